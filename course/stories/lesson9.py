"""Lesson 9's offline model: the shop desk with tools that ask, return structure and take a while.

    "Please refund 20 EUR to leo@example.com."      -> issue_refund (the server asks the human which order)
    "How many LAMP-1 do we have?"                    -> stock_level (a structured result)
    "Recount the stock in 5 aisles."                 -> recount_stock (progress; the human may cancel)
    "Recount the north warehouse."                   -> recount_warehouse (an MCP task; may still be running)

After the tool's answer it repeats what the tool said, and says plainly when it was cancelled,
declined or refused, so the lesson shows the model being told the truth.
"""

from __future__ import annotations

import json
import re

from course.scripted import ToolCall, call, last_user_text, offered_tools, tool_calls_since_user

__all__ = ["answer", "desk"]

EMAIL = re.compile(r"[\w.+-]+@[\w-]+\.\w+")
AMOUNT = re.compile(r"(\d+(?:\.\d+)?)\s*(?:EUR|€)")
SKU = re.compile(r"\b[A-Z]+-\d\b")
AISLES = re.compile(r"(\d+)\s+aisles")
STILL_RUNNING = re.compile(r"Still running: (\S+) is running on the server as (task \S+) ")
WAREHOUSE = re.compile(r"\b(north|south) warehouse", re.IGNORECASE)


def desk(body: dict) -> str | ToolCall:
    done = tool_calls_since_user(body)
    if done:
        return answer(*done[-1])
    text, tools = last_user_text(body), offered_tools(body)
    email, amount = EMAIL.search(text), AMOUNT.search(text)
    if "refund" in text.lower() and email and amount and "issue_refund" in tools:
        return call("issue_refund", email=email.group(0), amount=float(amount.group(1)))
    sku = SKU.search(text)
    if sku and "stock_level" in tools:
        return call("stock_level", sku=sku.group(0))
    warehouse = WAREHOUSE.search(text)
    if warehouse and "recount_warehouse" in tools:
        return call("recount_warehouse", warehouse=warehouse.group(1).lower())
    aisles = AISLES.search(text)
    if aisles and "recount_stock" in tools:
        return call("recount_stock", aisles=int(aisles.group(1)))
    return "I can refund an order, look up stock or recount it: tell me which."


def answer(name: str, arguments: dict, result: str) -> str:
    if result.startswith(("Error", "Cancelled")):
        return f"I could not finish that: {result}"
    running = STILL_RUNNING.match(result)
    if running:
        return f"Not finished yet: {running.group(1)} is still running on the server ({running.group(2)}); " \
               "I will not guess its result."
    if name == "stock_level":
        data = json.loads(result.splitlines()[0])
        free = data["on_hand"] - data["reserved"]
        return f"{data['sku']}: {data['on_hand']} on hand, {free} free to sell, in the {data['warehouse']} warehouse."
    return result
