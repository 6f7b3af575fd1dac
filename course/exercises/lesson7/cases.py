"""What lesson 7's checks make up as they run: call ids, sentences, and MCP results with parts of every kind."""

from __future__ import annotations

import json
import random
import string

from mcp import types

WORDS = ["refund", "parcel", "kettle", "voucher", "invoice", "section", "carrier", "warranty", "mug", "lamp"]


def call_id(rng: random.Random) -> str:
    return "call_" + "".join(rng.choices(string.ascii_letters + string.digits, k=12))


def sentence(rng: random.Random, n: int = 6) -> str:
    return " ".join(rng.choices(WORDS, k=n)).capitalize() + "."


PNG = "iVBORw0KGgo="  # a few bytes of base64: the check never looks inside


def mcp_part(rng: random.Random, kind: str) -> tuple[types.ContentBlock, str]:
    """One content part of a kind, and the line the model should get for it (course/host/convert.py's rule)."""
    uri = f"docs://{rng.choice(WORDS)}/{rng.randint(1, 99)}"
    if kind == "text":
        text = sentence(rng, 4)
        return types.TextContent(type="text", text=text), text
    if kind == "image":
        mime = rng.choice(["image/png", "image/jpeg"])
        return types.ImageContent(type="image", data=PNG, mime_type=mime), f"[image omitted: {mime}]"
    if kind == "audio":
        return types.AudioContent(type="audio", data=PNG, mime_type="audio/wav"), "[audio omitted: audio/wav]"
    if kind == "link":
        return types.ResourceLink(type="resource_link", uri=uri, name=rng.choice(WORDS)), f"[resource link: {uri}]"
    if kind == "embedded":
        text = sentence(rng, 5)
        return (types.EmbeddedResource(type="resource", resource=types.TextResourceContents(uri=uri, text=text)),
                text)
    return (types.EmbeddedResource(type="resource", resource=types.BlobResourceContents(uri=uri, blob=PNG)),
            f"[binary resource {uri}]")


KINDS = ("text", "image", "audio", "link", "embedded", "blob")


def mcp_result(rng: random.Random, failed: bool, kinds: list[str]) -> tuple[types.CallToolResult, str]:
    parts = [mcp_part(rng, kind) for kind in kinds]
    return (types.CallToolResult(content=[p for p, _ in parts], is_error=failed),
            "\n".join(line for _, line in parts))




# -- Responses API answers of every shape, for l7-read-response --------------------------------------------
def output_item(rng: random.Random, kind: str) -> dict:
    n = rng.randint(1000, 9999)
    if kind == "reasoning":
        return {"type": "reasoning", "id": f"rs_{n}", "summary": []}
    if kind in ("call", "broken call"):
        tail = "".join(rng.choices(string.ascii_letters + string.digits, k=10))
        return {"type": "function_call", "id": f"fc_{tail}", "call_id": f"call_{tail}", "status": "completed",
                "name": rng.choice(["search_docs", "read_section", "get_order_record"]),
                "arguments": '{"query": ' if kind == "broken call" else  # not JSON, as a model may write
                rng.choice([json.dumps({"query": rng.choice(WORDS)}), json.dumps({"order_id": f"A{n}"}), "{}"])}
    parts = [{"type": "output_text", "text": sentence(rng, rng.randint(2, 5)), "annotations": []}
             for _ in range(2 if kind == "message in two parts" else rng.randint(1, 2))]
    return {"type": "message", "id": f"msg_{n}", "role": "assistant", "status": "completed", "content": parts}


def response(rng: random.Random, kinds: list[str], *, cut: str | None = None, usage: bool = True):
    from openai.types.responses import Response

    tokens = (rng.randint(50, 900), rng.randint(1, 300))
    return Response.model_validate({
        "id": f"resp_{rng.randint(1000, 9999)}", "created_at": 0, "model": "gpt-5.5", "object": "response",
        "parallel_tool_calls": True, "tool_choice": "auto", "tools": [],
        "status": "incomplete" if cut else "completed",
        "incomplete_details": {"reason": cut} if cut else None,
        "output": [output_item(rng, k) for k in kinds],
        "usage": {"input_tokens": tokens[0], "output_tokens": tokens[1], "total_tokens": sum(tokens),
                  "input_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 0},
                  "output_tokens_details": {"reasoning_tokens": 0}} if usage else None})


def responses(rng: random.Random) -> list[tuple[str, object]]:
    """(what it is, a Response) for answers of every shape the loop meets."""
    calls = ["call"] * rng.randint(1, 2) + ["broken call"]
    return [
        ("an answer in one message of two parts", response(rng, ["message in two parts"])),
        ("an answer after a reasoning item, in two messages", response(rng, ["reasoning", "message", "message"])),
        ("a response with only calls", response(rng, ["reasoning", *calls])),
        ("a response with text and a call", response(rng, ["message", "call"])),
        ("a response cut at max_output_tokens", response(rng, ["message"], cut="max_output_tokens")),
        ("a response cut at max_output_tokens during a call", response(rng, ["reasoning", "call"],
                                                                       cut="max_output_tokens")),
        ("a response with no usage", response(rng, ["message"], usage=False)),
        ("a response with nothing in it", response(rng, ["reasoning"])),
    ]
