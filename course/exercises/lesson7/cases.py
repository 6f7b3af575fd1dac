"""What lesson 7's checks make up as they run: call ids, sentences, and MCP results with parts of every kind."""

from __future__ import annotations

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


