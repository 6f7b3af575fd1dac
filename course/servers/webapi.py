"""A REST API wrapped as agent tools: web search, news and page reading with a credit budget (lesson 5).

    python -m course.servers.webapi [--api http://127.0.0.1:8765] [--budget 20]
    (start the API first: `make stub-api`, or python -m course.servers.stub_api)

The pattern for any paid API: check arguments before spending anything, give the model only
the fields it needs (and no more hits than it asked for), cap what it reads, give a reserved
credit back only when the provider cannot have charged it, and turn every failure into advice
the model can follow (stop, slow down, use another source, try later) instead of a stack trace.
The API itself is `course.servers.stub_api` here, so the lesson runs offline.
"""

from __future__ import annotations

import asyncio
import functools
import os
import ssl
from collections.abc import Awaitable, Callable
from typing import Annotated, Any

import httpx2
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations
from pydantic import Field, StringConstraints

from course.servers import bearer_auth, command_line, described, serve
from course.servers.strict import StrictServer
from course.servers.url_guard import check_url

API_URL_ENV, API_KEY_ENV = "COURSE_WEBAPI_URL", "COURSE_WEBAPI_KEY"
DEFAULT_API_URL = "http://127.0.0.1:8765"
MAX_POLITE_WAIT = 5.0  # seconds; a longer Retry-After is reported to the model instead of waited out
URL_CHARS = 2000  # the longest URL read_page accepts


class CreditBudget:
    """The credits this server may spend: our own cap, apart from the provider's account balance
    (which answers 402 when empty). Reserve before a request; refund only when the provider cannot
    have charged it (see `NotCharged`): a timeout keeps the credit, the provider may have billed it.

    Reserving happens before the first `await` of the call, so fifty parallel calls cannot all see
    "3 credits left" and then all spend: asyncio switches tasks only at an `await`, and there is
    none between the check and the spending. The lock keeps that true if reserving ever needs an
    `await` (a shared budget in a database, say). One budget per server process: over stdio that
    is one client's session; over HTTP every client of the process shares it.
    """

    def __init__(self, total: int):
        self.total, self.spent = total, 0
        self._lock = asyncio.Lock()

    @property
    def left(self) -> int:
        return self.total - self.spent

    async def reserve(self, cost: int) -> None:
        async with self._lock:
            if cost > self.left:
                raise ToolError(f"The web budget is spent ({self.spent} of {self.total} credits). "
                                "Do not call web tools again; answer from what you already have and tell the "
                                "user the web budget ran out.")
            self.spent += cost

    def refund(self, cost: int) -> None:
        self.spent -= cost  # no await: nothing can interleave, even while the call is being cancelled


class NotCharged(ToolError):
    """A failed request the provider cannot have charged: it was never sent (no connection), or the
    answer is one the provider documents as free (every status but 200). Only these are refunded."""


class WebAPI:
    """Client of the web-search API: trimmed answers, a per-session credit budget, failures as advice."""

    COST = 1  # credits per request, as the provider charges

    def __init__(self, base_url: str = DEFAULT_API_URL, *, budget: int = 20, timeout: float = 5.0,
                 api_key: str | None = None, sleep: Callable[[float], Awaitable[None]] = asyncio.sleep):
        self.base_url, self.timeout = base_url.rstrip("/"), timeout
        self.headers = {"X-Api-Key": api_key} if api_key else {}
        self.budget = CreditBudget(budget)
        self.sleep = sleep  # tests pass a recorder, so a 429 retry takes no real time
        self.retries: list[str] = []  # what was retried and why (the notebook shows it)

    async def search(self, query: str, n: int) -> dict:
        data = await self._get("/search", {"q": query, "n": n})
        return trimmed(data, "results", n, ("title", "url", "snippet")) | {"budget_left": self.budget.left}

    async def news(self, query: str, n: int, days: int) -> dict:
        data = await self._get("/news", {"q": query, "n": n, "days": days})
        keep = ("title", "source", "published", "url", "summary")
        return trimmed(data, "articles", n, keep) | {"budget_left": self.budget.left}

    async def read_page(self, url: str, start: int, max_chars: int) -> dict:
        check_url(url)
        data = await self._get("/page", {"url": url}, what=url)
        text = data.get("text")
        if not isinstance(text, str):
            raise ToolError(UNREADABLE)
        piece = text[start:start + max_chars]
        truncated = start + len(piece) < len(text)
        return {"url": url, "title": clip(data.get("title")), "text": piece, "truncated": truncated,
                "next_start": start + len(piece) if truncated else None, "total_chars": len(text),
                "budget_left": self.budget.left}

    async def _get(self, path: str, params: dict, what: str = "") -> dict:
        await self.budget.reserve(self.COST)  # first, before any await that could let another call in
        try:
            return await self._request(path, params, what)
        except NotCharged:  # anything else (a timeout, a cancelled call, a garbled 200) may have been charged
            self.budget.refund(self.COST)
            raise

    async def _request(self, path: str, params: dict, what: str) -> dict:
        async with httpx2.AsyncClient(base_url=self.base_url, headers=self.headers, timeout=self.timeout,
                                      verify=tls_context()) as http:
            first: int | None = None  # the status of the first attempt, once we retry
            while True:
                r = await self._send(http, path, params)
                if r.status_code == 200:
                    return parsed(r)
                if first is None and r.status_code == 429 and retry_after(r) <= MAX_POLITE_WAIT:
                    wait = retry_after(r)
                    self.retries.append(f"429 rate limited: waited {wait:g} s (Retry-After), then retried once")
                    await self.sleep(wait)
                elif first is None and r.status_code >= 500:
                    self.retries.append(f"{r.status_code} server error: retried once")
                    await self.sleep(0.5)
                else:
                    raise NotCharged(advice(r, what, first))
                first = r.status_code

    async def _send(self, http: httpx2.AsyncClient, path: str, params: dict) -> httpx2.Response:
        try:
            return await http.get(path, params=params)
        except (httpx2.ConnectError, httpx2.ConnectTimeout):  # no connection, so no request
            raise NotCharged(UNREACHABLE) from None
        except httpx2.TimeoutException:
            raise ToolError(f"The web API did not answer within {self.timeout:g} s (the credit stays spent: it "
                            "may have charged the request). Try once more with a simpler query, or answer without "
                            "web results.") from None
        except httpx2.TransportError:  # the connection broke after the request went out
            raise ToolError(UNREACHABLE) from None


UNREACHABLE = ("The web API cannot be reached. Answer without web results and tell the user that web search is "
               "unavailable right now.")
UNREADABLE = ("The web API sent an answer that cannot be read. Try once more later, or answer without web results "
              "and tell the user web search is not working properly.")
FIELD_CHARS = 500  # a title, snippet or summary longer than this is cut: the model needs a glimpse, not the page


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


@functools.cache
def tls_context() -> ssl.SSLContext:
    """httpx2's default TLS context, built once: building one per client costs ~20 ms of CPU."""
    return httpx2.create_ssl_context()


def retry_after(r: httpx2.Response) -> float:
    try:
        return max(0.0, float(r.headers.get("Retry-After", "1")))
    except ValueError:  # an HTTP date: treat as "longer than we wait politely"
        return MAX_POLITE_WAIT + 1


STOP_FOR_THIS_TURN = ("Do not call the web tools again in this turn; answer from what you have and tell the user "
                      "web search is busy.")


def advice(r: httpx2.Response, what: str, first: int | None = None) -> str:
    """What the model should do about a failed request: the message it reads instead of a traceback.
    `first` is the status of the first attempt when this answer came from the one retry."""
    status = r.status_code
    try:
        body = r.json()
    except ValueError:
        body = {}
    if status == 402:
        return ("The web API account is out of credits (HTTP 402). Stop using the web tools and tell the user "
                "that web search is unavailable until credits are added. Do not retry.")
    if status == 429:
        if first == 429:
            return f"The web API is still rate limiting after one polite retry (HTTP 429). {STOP_FOR_THIS_TURN}"
        if first is not None:
            return f"The web API failed (HTTP {first}), then rate limited the retry (HTTP 429). {STOP_FOR_THIS_TURN}"
        return f"The web API is rate limiting (HTTP 429) and asks to wait {retry_after(r):g} s. {STOP_FOR_THIS_TURN}"
    if status == 403 and body.get("error") == "blocked":
        why = "needs a login" if body.get("reason") == "login_required" else "is on a private network"
        return f"The page {what} {why}, so it cannot be read. Use another source: pick a different result."
    if status == 404:
        return f"There is no page at {what}. Use a URL exactly as it appears in search or news results."
    if status in (413, 414):
        return (f"The web API refused the request as too large (HTTP {status}). Send a shorter query or URL and "
                "call again.")
    if status == 401:
        return (f"The web API rejected this server's API key (HTTP 401). Tell the user to set {API_KEY_ENV}; "
                "do not retry.")
    if status >= 500:
        if first is None:
            happened = f"failed (HTTP {status})"
        elif first == status:
            happened = f"failed twice (HTTP {status})"
        elif first >= 500:
            happened = f"failed twice (HTTP {first}, then {status})"
        else:
            happened = f"rate limited (HTTP {first}), then failed on the retry (HTTP {status})"
        return (f"The web API {happened}. Try again later; for now answer from what you have and tell the user "
                "web results are unavailable.")
    return f"The web API refused the request (HTTP {status}: {body.get('message', r.reason_phrase)}). Do not retry."


Query = Annotated[str, StringConstraints(strip_whitespace=True, min_length=2, max_length=200),
                  Field(description="Search words, 2-200 characters, e.g. 'kettle recall'.")]
Count = Annotated[int, Field(ge=1, le=10, description="How many results to return (1-10).")]
Url = Annotated[str, Field(pattern=r"^https?://\S+$", max_length=URL_CHARS,
                           description="A public http(s) URL, as found in search or news results.")]

WEB = ToolAnnotations(read_only_hint=True, open_world_hint=True, idempotent_hint=True)


def build_server(api: Any = None, *, token: Any = None) -> MCPServer:
    """The web tools as an MCP server. `api` holds the budget (`budget_left` in every answer). Over stdio
    every client starts its own server process, so the budget is per session; over HTTP all clients of
    one process share it. `api` is a `WebAPI` or, on the class server, a stand-in that finds each
    learner's own; `token` a bearer token or a verifier (`bearer_auth`)."""
    api = api or WebAPI(os.environ.get(API_URL_ENV, DEFAULT_API_URL), api_key=os.environ.get(API_KEY_ENV))
    mcp = StrictServer("course-web", instructions="Web search, news and page reading. Every call costs one credit "
                    "from a small budget: prefer the shop's own documents when they answer the question.",
                    log_level="WARNING", **bearer_auth(token))
    tool = described(mcp)

    @tool(annotations=WEB)
    async def search(query: Query, n: Count = 5) -> dict[str, Any]:
        """Search the public web. Returns title, URL and a short snippet per result.
        Use it for facts outside the shop's own documents (consumer law, carriers, product news).
        For recent events prefer `news`; to read a result in full use `read_page`. Costs 1 credit."""
        return await api.search(query, n)

    @tool(annotations=WEB)
    async def news(query: Query, n: Count = 5,
                   days: Annotated[int, Field(ge=1, le=30, description="Only articles from the last N days.")] = 7,
                   ) -> dict[str, Any]:
        """Recent news articles (newest first): title, source, date, URL and a one-line summary.
        Use it for current events such as strikes, recalls or delays; for background use `search`.
        Costs 1 credit."""
        return await api.news(query, n, days)

    @tool(annotations=WEB)
    async def read_page(url: Url,
                        start: Annotated[int, Field(ge=0, description="Character offset to read from; "
                                                    "pass the previous answer's next_start to continue.")] = 0,
                        max_chars: Annotated[int, Field(ge=200, le=8000, description="Read at most this "
                                                        "many characters.")] = 2000) -> dict[str, Any]:
        """Read the text of one web page, at most `max_chars` characters from `start`.
        If `truncated` is true, call again with `start=next_start` only if you need more.
        Use URLs from `search` or `news` results. Costs 1 credit per call."""
        return await api.read_page(url, start, max_chars)

    return mcp


def main(argv: list[str] | None = None) -> None:
    parser = command_line(__doc__.splitlines()[0], "course.servers.webapi")
    parser.add_argument("--api", default=os.environ.get(API_URL_ENV, DEFAULT_API_URL), help="the REST API's URL")
    parser.add_argument("--budget", type=int, default=20, help="credits one session may spend")
    args = parser.parse_args(argv)
    serve(build_server, args, api=WebAPI(args.api, budget=args.budget, api_key=os.environ.get(API_KEY_ENV)))


if __name__ == "__main__":
    main()
