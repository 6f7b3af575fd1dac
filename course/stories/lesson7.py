"""Lesson 7's offline story: a policy desk on the document server, the same rule through both APIs.

search_docs with the question, read_section of the top hit, then answer citing `cite_as`.
A failed call is reported as such, an empty search is admitted, and nothing is guessed.
The rule reads the Chat Completions view of a request; the scripted model gives it that
view of a Responses API request too, so one story serves both adapters.
"""

from __future__ import annotations

import re

from course.scripted import ToolCall, call, offered_tools, tool_calls_since_user
from course.stories.lesson2 import question
from course.stories.lesson4 import parsed

__all__ = ["policy_desk"]


def policy_desk(body: dict) -> str | ToolCall:
    offered, done = offered_tools(body), tool_calls_since_user(body)
    tools_on = body.get("tool_choice") != "none"
    called = {name for name, _, _ in done}
    for _, _, result in done:
        if result.startswith("Error"):
            return f"Sorry, I could not look that up: {result.removeprefix('Error: ')[:200]}"
    if tools_on and not done and "search_docs" in offered:
        return call("search_docs", query=question(body)[:200], k=3)
    hits = next(((parsed(r) or {}).get("hits") for n, _, r in done if n == "search_docs"), None)
    if hits == []:
        return "I could not find anything about that in our policies. Shall I ask a colleague?"
    if tools_on and hits and "read_section" in offered and "read_section" not in called:
        return call("read_section", document=hits[0]["document"], section=hits[0]["section"])
    for name, _, result in done:
        data = parsed(result)
        if name == "read_section" and data and "text" in data:
            rule = " ".join(re.split(r"(?<=[.!?])\s+", " ".join(data["text"].split()))[:2])
            return f"{rule} (Source: {data.get('cite_as') or data['document'] + ' › ' + data['section']})"
    return "I can answer questions about Northwind Goods' policies: refunds, returns, delivery and more."
