"""Lesson 1's offline story: a support assistant that looks orders up."""

from __future__ import annotations

import json

from course.orders import ORDER_ID
from course.scripted import ToolCall, call, last_user_text, offered_tools, tool_results

__all__ = ["order_status"]


def order_status(body: dict) -> str | ToolCall | list[ToolCall]:
    """Look up every order number the customer mentions (in parallel), then answer from the results."""
    results = tool_results(body)
    if results:
        return summarize(results)
    ids = ORDER_ID.findall(last_user_text(body))
    can_look_up = "get_order_status" in offered_tools(body) and body.get("tool_choice") != "none"
    if ids and can_look_up:
        calls = [call("get_order_status", order_id=i) for i in dict.fromkeys(ids)]
        return calls[0] if len(calls) == 1 else calls
    if ids:
        return (f"I'm sorry, I can't look orders up from here, so I don't know where {ids[0]} is. "
                "Please check the tracking link in your confirmation email.")
    return "I can help with your order. What is the order number? It looks like A1001."


def summarize(results: list[tuple[str, str]]) -> str:
    lines = []
    for _name, text in results:
        try:
            data = json.loads(text)
        except json.JSONDecodeError:
            lines.append(f"I could not look that up: {text.removeprefix('Error: ')}")
            continue
        if isinstance(data, dict) and "status" in data:
            when = data.get("eta") and f", expected on {data['eta']}" or (
                data.get("delivered") and f", delivered on {data['delivered']}") or ""
            lines.append(f"Order {data['order_id']} is {data['status']}{when}.")
        else:
            lines.append(f"Here is what I found: {text}")
    return " ".join(lines)
