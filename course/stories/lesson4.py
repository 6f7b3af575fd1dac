"""Lesson 4's offline story: a support assistant that can act (refund, cancel, open tickets).

The rule reads what the customer asks for, sentence by sentence: "refund", "cancel" and
"ticket" name an action, an order number names its order ("it" means the last order
mentioned). It looks the orders up first, then asks for all the actions at once, then tells
the customer what happened to each, including the ones a human rejected. Like a careful
model, it does not ask for what the lookup shows is already done (an order refunded in full,
an order no longer processing), so running the story twice never asks a human to approve a
refund of 0.
"""

from __future__ import annotations

import json
import re

from course.orders import ORDER_ID
from course.scripted import ToolCall, call, offered_tools, tool_calls_since_user
from course.stories.lesson2 import question

__all__ = ["support_desk"]

ACTIONS = {"refund": "issue_refund", "cancel": "cancel_order", "ticket": "create_ticket"}
VERB = {"issue_refund": "refund", "cancel_order": "cancel", "create_ticket": "open a ticket for"}
LOOKUPS = ("get_order_record", "get_order_status")


def wishes(text: str) -> list[tuple[str, str, str]]:
    """(tool, order id, the sentence that asked) for every action the customer asks for, in order."""
    found: list[tuple[str, str, str]] = []
    last = None
    for sentence in re.split(r"(?<=[.!?])\s+", text):
        ids = ORDER_ID.findall(sentence)
        last = ids[-1] if ids else last
        for word, tool in ACTIONS.items():
            if re.search(rf"\b{word}", sentence, re.IGNORECASE) and last:
                for order_id in ids or [last]:
                    if (tool, order_id) not in {(t, o) for t, o, _ in found}:
                        found.append((tool, order_id, sentence.strip()))
    return found


def support_desk(body: dict) -> str | ToolCall | list[ToolCall]:
    """Look the orders up, then ask for every action at once, then report what happened."""
    text, offered = question(body), offered_tools(body)
    tools_on = body.get("tool_choice") != "none"
    done = tool_calls_since_user(body)
    todo = wishes(text)
    lookup = next((t for t in LOOKUPS if t in offered), None)

    if not done and tools_on and lookup and todo:
        ids = list(dict.fromkeys(order_id for _, order_id, _ in todo))
        return parallel([call(lookup, order_id=i) for i in ids])
    if tools_on and done and all(name in LOOKUPS for name, _, _ in done):
        facts = {args.get("order_id"): result for name, args, result in done}
        planned = [action(tool, order_id, sentence, facts.get(order_id, ""))
                   for tool, order_id, sentence in todo if tool in offered]
        actions = [a for a in planned if a is not None]
        if actions:
            return parallel(actions)
    if not todo:
        return ("I can refund an order, cancel one that has not shipped, or open a support ticket. "
                "Which order is it about (it looks like A1001)?")
    return report(todo, done, offered)


def parsed(lookup: str) -> dict | None:
    try:
        facts = json.loads(lookup)
    except json.JSONDecodeError:
        return None  # the lookup failed: nothing to act on; the report says why
    return facts if isinstance(facts, dict) else None


def already_done(tool: str, facts: dict | None) -> str | None:
    """Why the lookup shows there is nothing to do, or None."""
    if not facts:
        return None
    order = facts.get("order", facts)
    if tool == "issue_refund" and facts.get("refundable", 1) <= 0:
        return f"it is already refunded in full ({facts.get('refunded', order.get('total')):.2f} EUR)"
    if tool == "cancel_order" and order.get("status", "processing") != "processing":
        return f"it is already {order['status']}" if order["status"] == "cancelled" else \
            f"it is {order['status']}, and only orders still processing can be cancelled"
    return None


def action(tool: str, order_id: str, sentence: str, lookup: str) -> ToolCall | None:
    facts = parsed(lookup)
    if facts is None or already_done(tool, facts):
        return None
    order = facts.get("order", facts)
    reason = sentence[:200] if len(sentence) >= 5 else "Requested by the customer."
    if tool == "issue_refund":
        amount = facts.get("refundable", order.get("total"))
        return call(tool, order_id=order_id, amount=amount, reason=reason)
    if tool == "cancel_order":
        return call(tool, order_id=order_id, reason=reason)
    return call(tool, order_id=order_id, subject=f"Customer request about {order_id}", message=sentence)


def report(todo: list[tuple[str, str, str]], done: list[tuple[str, dict, str]], offered: list[str]) -> str:
    """One sentence per requested action: done, rejected, refused, or impossible here."""
    lines = []
    for tool, order_id, _ in todo:
        outcome = next((r for name, args, r in done if name == tool and args.get("order_id") == order_id), None)
        failed_lookup = next((r for name, args, r in done if name in LOOKUPS and args.get("order_id") == order_id
                              and r.startswith("Error:")), None)
        lookup = next((r for name, args, r in done if name in LOOKUPS and args.get("order_id") == order_id), "")
        verb = VERB[tool]
        if outcome is None:
            why = (failed_lookup.removeprefix("Error: ") if failed_lookup
                   else "I do not have a tool for that here" if tool not in offered
                   else already_done(tool, parsed(lookup)) or "I did not get to it")
            lines.append(f"I did not {verb} order {order_id}: {why.rstrip('.')}.")
        elif "rejected this action" in outcome or "nobody approved" in outcome:
            lines.append(f"I did not {verb} order {order_id}: the action was not approved.")
        elif outcome.startswith("Error:") or " was not run:" in outcome:
            lines.append(f"I could not {verb} order {order_id}: {outcome.removeprefix('Error: ')}")
        else:
            lines.append(done_sentence(tool, order_id, json.loads(outcome)))
    return " ".join(lines)


def done_sentence(tool: str, order_id: str, data: dict) -> str:
    if tool == "issue_refund":
        return f"I refunded {data['amount']:.2f} EUR for order {order_id} (refund {data['refund_id']})."
    if tool == "cancel_order":
        return f"Order {order_id} is cancelled."
    return f"I opened support ticket {data['ticket_id']} about order {order_id}."


def parallel(calls: list[ToolCall]) -> ToolCall | list[ToolCall]:
    return calls[0] if len(calls) == 1 else calls
