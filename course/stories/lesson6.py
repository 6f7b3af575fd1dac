"""Lesson 6's offline story: the support assistant gets its tools from the document server over MCP.

    "The mugs from my order A1002 arrived broken. What does your policy say? Can I get my money back?"

The rule does what a careful model does with the lesson 5 server's tools:
1. search the policies and look the order up, in one step (parallel calls);
2. read the best section in full;
3. if the customer asked for their money back and the record shows something left to refund,
   ask for `issue_refund` (the host asks a human first);
4. answer: the rule, cited as `document › section`, and what became of the refund.
Tools it is not offered, it does not call; a failed or rejected call is reported as such.
"""

from __future__ import annotations

import re

from course.orders import ORDER_ID
from course.scripted import ToolCall, call, offered_tools, tool_calls_since_user
from course.stories.lesson2 import question
from course.stories.lesson4 import parallel, parsed

__all__ = ["refund_desk"]

MONEY_BACK = re.compile(r"\b(refund|money back|reimburse)", re.IGNORECASE)
BROKEN = re.compile(r"\b(broken|damaged|cracked|faulty|defective)\b", re.IGNORECASE)


def refund_desk(body: dict) -> str | ToolCall | list[ToolCall]:
    text, offered = question(body), offered_tools(body)
    tools_on = body.get("tool_choice") != "none"
    done = tool_calls_since_user(body)
    called = {name for name, _, _ in done}
    order_id = next(iter(ORDER_ID.findall(text)), None)

    if tools_on and not done:
        first = []
        if "search_docs" in offered:
            first.append(call("search_docs", query=search_query(text), k=3))
        if order_id and "get_order_record" in offered:
            first.append(call("get_order_record", order_id=order_id))
        if first:
            return parallel(first)
    hit = top_hit(done)
    if tools_on and hit and "read_section" in offered and "read_section" not in called:
        return call("read_section", document=hit["document"], section=hit["section"])
    refundable = refundable_amount(done)
    if (tools_on and order_id and MONEY_BACK.search(text) and refundable and "issue_refund" in offered
            and "issue_refund" not in called):
        reason = "Item arrived broken" if BROKEN.search(text) else "Customer asked for a refund"
        return call("issue_refund", order_id=order_id, amount=refundable, reason=f"{reason} (order {order_id}).")
    return answer(done, order_id)


def search_query(text: str) -> str:
    if BROKEN.search(text):
        return "refund for an item that arrived broken or damaged"
    return "refund policy" if MONEY_BACK.search(text) else text[:200]


def top_hit(done: list[tuple[str, dict, str]]) -> dict | None:
    for name, _, result in done:
        data = parsed(result) if name == "search_docs" else None
        if data and data.get("hits"):
            return data["hits"][0]
    return None


def refundable_amount(done: list[tuple[str, dict, str]]) -> float | None:
    for name, _, result in done:
        data = parsed(result) if name == "get_order_record" else None
        if data and isinstance(data.get("refundable"), int | float) and data["refundable"] > 0:
            return float(data["refundable"])
    return None


def answer(done: list[tuple[str, dict, str]], order_id: str | None) -> str:
    lines = []
    for name, arguments, result in done:
        data = parsed(result)
        if name == "read_section" and data and "text" in data:
            rule = " ".join(re.split(r"(?<=[.!?])\s+", " ".join(data["text"].split()))[:2])
            lines.append(f"Our policy ({data.get('cite_as', data.get('section'))}) says: {rule}")
        elif name == "issue_refund":
            if data and "refund_id" in data:
                lines.append(f"I have refunded {data['amount']:.2f} EUR for order {data['order_id']} "
                             f"(refund {data['refund_id']}); it reaches your card in a few days.")
            elif "not run" in result or "rejected" in result:
                lines.append(f"I asked to refund order {arguments.get('order_id')}, but that was not approved, "
                             "so no money has moved yet. A colleague will look at it.")
            else:
                lines.append(f"I could not refund order {arguments.get('order_id')}: {result}")
        elif name == "get_order_record" and data and data.get("refundable") == 0:
            lines.append(f"Order {arguments.get('order_id')} has already been refunded in full.")
    if not lines:
        failed = [result for _, _, result in done if result.startswith("Error")]
        if failed:
            return f"Sorry, I could not look that up right now ({failed[0][:200]}). Please try again later."
        return ("I can check our refund policy and your order. Which order is it about "
                "(it looks like A1001)?")
    return " ".join(lines)
