"""What the model reads of the web API's answers: the fields it needs, no more hits than it asked for,
each field capped (lesson 5). A provider may send more, and longer, than was asked for."""

from __future__ import annotations

import httpx2
from mcp.server.mcpserver.exceptions import ToolError

URL_CHARS = 2000  # the longest URL read_page accepts
FIELD_CHARS = 500  # a title, snippet or summary longer than this is cut: the model needs a glimpse, not the page
UNREADABLE = ("The web API sent an answer that cannot be read. Try once more later, or answer without web results "
              "and tell the user web search is not working properly.")


def parsed(r: httpx2.Response) -> dict:
    try:
        data = r.json()
    except ValueError:
        data = None
    if not isinstance(data, dict):
        raise ToolError(UNREADABLE)
    return data


def clip(value: object, limit: int = FIELD_CHARS) -> str:
    text = value if isinstance(value, str) else ""
    return text if len(text) <= limit else text[:limit] + " […]"


def field_limit(field: str) -> int:
    return URL_CHARS if field == "url" else FIELD_CHARS


def trimmed(data: dict, key: str, n: int, keep: tuple[str, ...]) -> dict:
    """The first `n` hits of `data[key]`, with only the fields in `keep`, each at most FIELD_CHARS long,
    and a note saying what was cut: a provider may send more (and longer) than was asked for."""
    hits = data.get(key)
    if not isinstance(hits, list) or not all(isinstance(hit, dict) for hit in hits):
        raise ToolError(UNREADABLE)
    rows = [{k: clip(hit.get(k), field_limit(k)) for k in keep} for hit in hits[:n]]
    cut = [f"the API sent {len(hits)} {key}; these are the first {n} you asked for"] if len(hits) > n else []
    if any(isinstance(hit.get(k), str) and len(hit[k]) > field_limit(k) for hit in hits[:n] for k in keep):
        cut.append(f"fields longer than {FIELD_CHARS} characters were cut (they end in \" […]\")")
    return {key: rows} | ({"note": "Cut: " + "; ".join(cut) + "."} if cut else {})
