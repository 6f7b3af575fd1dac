"""Lesson 2's offline stories: the main one (two tool steps), and the misbehaving models of the demos."""

from __future__ import annotations

import json
import re

from course.orders import ORDER_ID
from course.scripted import ToolCall, call, offered_tools, tool_results
from course.scripted import last_user_text as question  # the customer's latest message; notes excluded

__all__ = ["latest_order", "restless", "stubborn", "thorough"]

EMAIL = re.compile(r"[^@\s]+@[^@\s]+\.[a-z]{2,}", re.IGNORECASE)


def latest_order(body: dict) -> str | ToolCall:
    """Find the customer's orders by email, look up the latest one, then answer from what came back."""
    results = tool_results(body)
    tools_on = body.get("tool_choice") != "none"
    for name, text in reversed(results):
        if text.startswith("Error:"):
            return f"Sorry, I could not look that up: {text.removeprefix('Error: ')}"
        data = json.loads(text)
        if name == "get_order_status":
            return describe(data)
        if name == "find_orders" and data:
            newest = max(data, key=lambda o: o["placed"])
            if tools_on and "get_order_status" in offered_tools(body):
                return call("get_order_status", order_id=newest["order_id"])
            return f"Your latest order is {newest['order_id']}, placed on {newest['placed']}: {newest['status']}."
    text = question(body)
    email, ids = EMAIL.search(text), ORDER_ID.findall(text)
    if tools_on and ids and "get_order_status" in offered_tools(body):
        return call("get_order_status", order_id=ids[0])
    if tools_on and email and "find_orders" in offered_tools(body):
        return call("find_orders", email=email.group(0).rstrip(".,;:!?"))
    return "I can help with your orders. What is your email address, or the order number (like A1001)?"


def describe(order: dict) -> str:
    when = (order.get("eta") and f", expected on {order['eta']}"
            or order.get("delivered") and f", delivered on {order['delivered']}" or "")
    items = ", ".join(i["name"] for i in order.get("items", []))
    return f"Your latest order {order['order_id']} ({items}) is {order['status']}{when}."


# -- models that misbehave, for the stop-reason demos --------------------------------------
def restless(body: dict) -> str | ToolCall:
    """Never satisfied: looks up one order after another, A1001, A1002, ... until tools are switched off."""
    looked_up = [json.loads(t)["order_id"] for n, t in tool_results(body)
                 if n == "get_order_status" and not t.startswith("Error:")]
    if body.get("tool_choice") == "none":
        return f"I looked up {len(looked_up)} orders ({', '.join(looked_up)}) but did not finish checking."
    return call("get_order_status", order_id=f"A{1001 + len(tool_results(body))}")


def stubborn(body: dict) -> str | ToolCall:
    """Asks for the same lookup again and again, until it is told it repeats itself."""
    results = tool_results(body)
    if results and "Not run: you already called" in results[-1][1]:
        return describe(json.loads(results[0][1]))
    if body.get("tool_choice") == "none":
        return "I kept checking the same order and got no further."
    return call("get_order_status", order_id="A1001")


def thorough(body: dict) -> str | ToolCall:
    """Reads every order it can find, one call per step, before it answers: fine for a short chat."""
    done = {json.loads(t)["order_id"] for n, t in tool_results(body)
            if n == "get_order_status" and not t.startswith("Error:")}
    todo = [i for i in ("A1001", "A1002", "A1003", "A1004") if i not in done]
    if body.get("tool_choice") == "none" or not todo:
        return f"I checked {len(done)} of 4 orders: {', '.join(sorted(done)) or 'none'}."
    return call("get_order_status", order_id=todo[0])
