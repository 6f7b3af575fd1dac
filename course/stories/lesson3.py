"""Lesson 3's offline story: search the policies, read the best section, answer citing it."""

from __future__ import annotations

import json
import re

from course.scripted import ToolCall, call, offered_tools
from course.stories.lesson2 import question, tool_results

__all__ = ["document_search"]


def document_search(body: dict) -> str | ToolCall:
    """search_docs with the customer's question, then read_section of the top hit, then answer citing
    `document › section`. Errors and empty results get an honest answer instead of a guess."""
    tools_on = body.get("tool_choice") != "none"
    offered = offered_tools(body)
    results = tool_results(body)
    if results:
        name, text = results[-1]
        if text.startswith("Error:"):
            return f"Sorry, I could not find that in our policies ({text.removeprefix('Error: ')})."
        data = json.loads(text)
        if name == "read_section":
            return cite(data)
        if name == "search_docs":
            if not data:
                return "I could not find anything about that in our policies. Shall I ask a colleague?"
            top = data[0]
            if tools_on and "read_section" in offered:
                return call("read_section", document=top["document"], section=top["section"])
            return f"Our policy says: {top['excerpt']} (Source: {top['document']} › {top['section']})"
    text = question(body).strip()
    if tools_on and text and "search_docs" in offered:
        return call("search_docs", query=text, k=3)
    return "I can answer questions about Northwind Goods' policies: refunds, returns, delivery and more."


def cite(section: dict) -> str:
    """The first two sentences of the section, and where they come from."""
    sentences = re.split(r"(?<=[.!?])\s+", " ".join(section["text"].split()))
    return (f"According to our {section['title']}: {' '.join(sentences[:2])} "
            f"(Source: {section['document']} › {section['section']})")
