"""The client of the web-search REST API behind the web tools: a credit per request, one retry, and every
failure turned into advice the model can follow (stop, slow down, use another source, try later) (lesson 5)."""

from __future__ import annotations

import asyncio
import functools
import ssl
from collections.abc import Awaitable, Callable

import httpx2
from mcp.server.mcpserver.exceptions import ToolError

from course.servers.credits import CreditBudget, NotCharged
from course.servers.url_guard import check_url
from course.servers.web_answers import UNREADABLE, clip, parsed, trimmed

API_URL_ENV, API_KEY_ENV = "COURSE_WEBAPI_URL", "COURSE_WEBAPI_KEY"
DEFAULT_API_URL = "http://127.0.0.1:8765"
MAX_POLITE_WAIT = 5.0  # seconds; a longer Retry-After is reported to the model instead of waited out
UNREACHABLE = ("The web API cannot be reached. Answer without web results and tell the user that web search is "
               "unavailable right now.")


class WebAPI:
    """Client of the web-search API: trimmed answers, a per-session credit budget, failures as advice."""

    # Credits per request, per endpoint, from the provider's price list: a search costs more than a page.
    # What is reserved is this price; what the provider says it billed (X-Credits-Used) settles it.
    PRICES = {"/search": 2, "/news": 2, "/page": 1}

    def __init__(self, base_url: str = DEFAULT_API_URL, *, budget: int = 20, timeout: float = 5.0,
                 connect_timeout: float = 2.0, api_key: str | None = None, budget_file: str | None = None,
                 sleep: Callable[[float], Awaitable[None]] = asyncio.sleep):
        # Split timeouts: a provider that is down should fail fast (connect), one that is slow to answer
        # gets longer (read), and only the read timeout can have been billed.
        self.base_url, self.timeout, self.connect_timeout = base_url.rstrip("/"), timeout, connect_timeout
        self._http: httpx2.AsyncClient | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self.headers = {"X-Api-Key": api_key} if api_key else {}
        self.budget = CreditBudget(budget, budget_file)  # with a file, a restart keeps what was spent
        self.sleep = sleep  # tests pass a recorder, so a 429 retry takes no real time
        self.retries: list[str] = []  # what was retried and why (the notebook shows it)
        self.settled: list[str] = []  # reserved vs billed, when they differ (the notebook shows it)

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
        price = self.PRICES[path]
        await self.budget.reserve(price)  # first, before any await that could let another call in
        try:
            data, billed = await self._request(path, params, what)
        except NotCharged:  # anything else (a timeout, a cancelled call, a garbled 200) may have been charged
            self.budget.refund(price)
            raise
        self.settle(path, price, billed)
        return data

    def settle(self, path: str, reserved: int, billed: int | None) -> None:
        """Make the budget say what the provider billed: refund what was reserved too much, spend what it
        charged on top (the call has happened: the budget may end up below zero, and the next call is refused)."""
        if billed is None or billed == reserved:
            return
        if billed < reserved:
            self.budget.refund(reserved - billed)
        else:
            self.budget.charge(billed - reserved)
        self.settled.append(f"{path}: reserved {reserved}, billed {billed}")

    def http(self) -> httpx2.AsyncClient:
        """The one HTTP client every request shares: its pool keeps connections open between calls (no
        TCP and TLS handshake per search). Made in the running event loop, because a client's connections
        belong to the loop that opened them; a new loop (another `asyncio.run`) gets a new client."""
        loop = asyncio.get_running_loop()
        if self._http is None or self._loop is not loop or self._http.is_closed:
            self._http = httpx2.AsyncClient(base_url=self.base_url, headers=self.headers, verify=tls_context(),
                                            timeout=httpx2.Timeout(self.timeout, connect=self.connect_timeout))
            self._loop = loop
        return self._http

    async def aclose(self) -> None:
        """Close the connection pool: until then its sockets stay open (a ResourceWarning when Python collects
        them). A later request opens a new pool."""
        if self._http is not None:
            await self._http.aclose()

    async def __aenter__(self) -> WebAPI:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def _request(self, path: str, params: dict, what: str) -> tuple[dict, int | None]:
        http = self.http()
        first: int | None = None  # the status of the first attempt, once we retry
        while True:
            r = await self._send(http, path, params)
            if r.status_code == 200:
                return parsed(r), billed(r)
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


@functools.cache
def tls_context() -> ssl.SSLContext:
    """httpx2's default TLS context, built once: building one costs ~20 ms of CPU (one per event loop's client)."""
    return httpx2.create_ssl_context()


def billed(r: httpx2.Response) -> int | None:
    """The credits the provider says this request cost (X-Credits-Used), or None if it does not say."""
    try:
        return max(0, int(r.headers["X-Credits-Used"]))
    except (KeyError, ValueError):
        return None


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

