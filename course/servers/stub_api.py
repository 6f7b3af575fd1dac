"""A local stand-in for a paid web-search REST API (lesson 5), so the web-API wrapper runs offline.

    python -m course.servers.stub_api [--port 8765] [--credits 1000]      (or: make stub-api)

It serves deterministic data on 127.0.0.1 and behaves like a real provider where it matters:
answers carry more fields than a model needs, every successful request costs credits (per
endpoint, said in its X-Credits-Used header) from the account (402 once it is empty: the
provider's balance, not the wrapper's session budget),
and it fails on demand (402, 429 with Retry-After, 5xx, slow answers), switched on by a test or
the notebook through `StubAPI.fail(...)` or `POST /admin/fail`. Like a real provider it charges
a request that succeeded even when the client stopped waiting for the answer. Two ways to
misbehave, for tests: `oversize` (answers that ignore `n` and carry huge fields) and `garbled`
(a charged 200 whose body is not JSON). It counts the requests it receives, so a test can
prove that a rejected argument never reached it. The data it serves is in `stub_data`.

Endpoints: GET /search?q=&n=, GET /news?q=&n=&days=, GET /page?url=;
admin: GET /admin/stats, POST /admin/fail, POST /admin/credits, POST /admin/reset.
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
import time
from collections import deque
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

from course.servers.stub_data import PAGES, news, search

__all__ = ["StubAPI"]


class StubAPI:
    """The stub service in a background thread: `with StubAPI() as api: ... api.url ...`.

    `requests` counts every API request received (admin calls excluded); `credits` is the
    account's balance (402 once it reaches 0); `fail(...)` queues failures; `settle()` waits
    until no request is being answered (a slow one goes on after its client gave up).
    """

    PRICES = {"/search": 2, "/news": 2, "/page": 1}  # credits per successful request; `prices` may change them

    def __init__(self, port: int = 0, *, credits: int = 1000, api_key: str | None = None):
        self.port, self.credits, self.api_key = port, credits, api_key
        self.requests = 0
        self.prices = dict(self.PRICES)  # a test raises one to show a call that costs more than was reserved
        self.delay = 0.0  # seconds to wait before answering (to exercise timeouts)
        self.oversize = 0  # > 0: search and news ignore n and send this many hits of this many characters each
        self.garbled = False  # True: successful answers (still charged) have a body that is not JSON
        self._answering = 0
        self._failures: deque[dict] = deque()
        self._lock = threading.Lock()
        self._idle = threading.Condition(self._lock)
        self._http: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- control (tests and notebooks) ---------------------------------------------------
    def fail(self, status: int, *, times: int = 1, retry_after: float | None = None, route: str | None = None) -> None:
        """Answer the next `times` requests (to `route`, e.g. "/search", or any) with `status`."""
        with self._lock:
            self._failures.extend({"status": status, "retry_after": retry_after, "route": route} for _ in range(times))

    def reset(self, credits: int = 1000) -> None:
        with self._lock:
            self.requests, self.credits, self.delay, self.oversize, self.garbled = 0, credits, 0.0, 0, False
            self.prices = dict(self.PRICES)
            self._failures.clear()

    def settle(self, timeout: float = 30.0) -> None:
        """Wait until every request received so far has been answered (and charged, if it succeeded)."""
        with self._idle:
            if not self._idle.wait_for(lambda: self._answering == 0, timeout):
                raise TimeoutError(f"the stub API was still answering {self._answering} request(s) after {timeout:g} s")

    def stats(self) -> dict:
        with self._lock:
            return {"requests": self.requests, "credits": self.credits, "pending_failures": len(self._failures)}

    # -- lifecycle ---------------------------------------------------------------------
    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> StubAPI:
        self._http = _Server(("127.0.0.1", self.port), _handler(self))
        self.port = self._http.server_address[1]  # port=0 picks a free one
        self._thread = threading.Thread(target=self._http.serve_forever, args=(0.05,), name="stub-api", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._http is not None:
            self._http.shutdown()
            self._http.server_close()
            self._http = None
        if self._thread is not None:
            self._thread.join(timeout=5)

    def wait(self) -> None:
        """Block until the server stops (`make stub-api` runs until Ctrl+C)."""
        if self._thread is not None:
            self._thread.join()

    def __enter__(self) -> StubAPI:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    # -- one request -------------------------------------------------------------------
    def answer(self, method: str, target: str, headers: dict, body: bytes) -> tuple[int, dict, dict | bytes]:
        """(status, extra headers, JSON body) for one request. Runs in the server's thread."""
        parts = urlsplit(target)
        if parts.path.startswith("/admin/"):
            return self._admin(method, parts.path, json.loads(body or b"{}"))
        with self._lock:
            self._answering += 1
        try:
            return self._answer(parts, headers)
        finally:
            with self._idle:
                self._answering -= 1
                self._idle.notify_all()

    def _answer(self, parts, headers: dict) -> tuple[int, dict, dict | bytes]:
        args = {k: v[-1] for k, v in parse_qs(parts.query).items()}
        with self._lock:
            self.requests += 1
            failure = next((f for f in self._failures if f["route"] in (None, parts.path)), None)
            if failure:
                self._failures.remove(failure)
            delay = self.delay
        if delay:
            time.sleep(delay)
        if self.api_key and headers.get("x-api-key") != self.api_key:
            return 401, {}, {"error": "unauthorized", "message": "Missing or wrong X-Api-Key header."}
        if failure:
            extra = {"Retry-After": f"{failure['retry_after']:g}"} if failure["retry_after"] is not None else {}
            return failure["status"], extra, {"error": _REASONS.get(failure["status"], "error")}
        status, data = self._route(parts.path, args)
        if status == 200:
            price = self.prices.get(parts.path, 1)
            with self._lock:
                if self.credits < price:
                    return 402, {}, {"error": "payment_required", "message": "The account has no credits left."}
                self.credits -= price
                data["credits_remaining"] = self.credits
            if self.garbled:
                return status, {}, b'{"results": [{"title": "Kettle'  # cut off mid-answer
            return status, {"X-Credits-Used": str(price)}, data  # what this request was billed
        return status, {}, data

    def _route(self, path: str, args: dict) -> tuple[int, dict]:
        try:
            n = int(args.get("n", 5))
            days = int(args.get("days", 7))
        except ValueError:
            return 400, {"error": "bad_request", "message": "n and days must be integers."}
        if self.oversize:
            n, days = len(PAGES), 365  # a provider that ignores what was asked for
        if path == "/search":
            results = _bloated(search(args.get("q", ""), n), "snippet", self.oversize)
            return 200, {"query": args.get("q", ""), "results": results, "took_ms": 12}
        if path == "/news":
            return 200, {"query": args.get("q", ""), "articles": _bloated(news(args.get("q", ""), n, days), "summary",
                                                                          self.oversize)}
        if path == "/page":
            page = next((p for p in PAGES if p["url"] == args.get("url")), None)
            if page is None:
                return 404, {"error": "not_found", "message": "No page at that URL."}
            if page.get("login"):
                return 403, {"error": "blocked", "reason": "login_required", "message": "The page needs a login."}
            if page.get("private"):
                return 403, {"error": "blocked", "reason": "private_address",
                             "message": "Resolves to a private address."}
            return 200, {**page, "html": f"<html><body>{page['text']}</body></html>", "status": 200,
                         "fetched_at": "2026-11-20T06:00:00Z", "links": [p["url"] for p in PAGES[:3]]}
        return 404, {"error": "not_found", "message": f"No endpoint {path}."}

    def _admin(self, method: str, path: str, data: dict) -> tuple[int, dict, dict]:
        if path == "/admin/fail" and method == "POST":
            self.fail(int(data["status"]), times=int(data.get("times", 1)), retry_after=data.get("retry_after"),
                      route=data.get("route"))
        elif path == "/admin/credits" and method == "POST":
            with self._lock:
                self.credits = int(data["credits"])
        elif path == "/admin/delay" and method == "POST":
            self.delay = float(data["seconds"])
        elif path == "/admin/reset" and method == "POST":
            self.reset(int(data.get("credits", 1000)))
        elif path != "/admin/stats":
            return 404, {}, {"error": "not_found"}
        return 200, {}, self.stats()


def _bloated(hits: list[dict], field: str, size: int) -> list[dict]:
    """`size` hits, each with `field` `size` characters long (unchanged when size is 0)."""
    if not size or not hits:
        return hits
    return [{**hit, field: ((hit[field] + " ") * (size // (len(hit[field]) + 1) + 1))[:size]}
            for hit in (hits * size)[:size]]


class _Server(ThreadingHTTPServer):
    # The default backlog of 5 drops the connections of a burst of parallel calls, and the
    # client's TCP retries them a second later: a delay no real API adds.
    request_queue_size = 128

    def handle_error(self, request, client_address) -> None:
        if isinstance(sys.exception(), ConnectionError):  # the client stopped waiting: nothing to report
            return
        super().handle_error(request, client_address)


_REASONS = {402: "payment_required", 429: "rate_limited", 500: "internal_error", 502: "bad_gateway",
            503: "unavailable"}


def _handler(api: StubAPI) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def _serve(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            headers = {k.lower(): v for k, v in self.headers.items()}
            status, extra, data = api.answer(self.command, self.path, headers, body)
            payload = data if isinstance(data, bytes) else json.dumps(data).encode()
            self.send_response(status)
            for k, v in {"Content-Type": "application/json", "Content-Length": str(len(payload)), **extra}.items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(payload)

        do_GET = do_POST = _serve

        def log_message(self, format, *args) -> None:  # quiet: the notebook's output stays clean
            pass

    return Handler


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m course.servers.stub_api", description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--credits", type=int, default=1000)
    parser.add_argument("--api-key", default=None, help="require this X-Api-Key header")
    args = parser.parse_args(argv)
    try:
        api = StubAPI(args.port, credits=args.credits, api_key=args.api_key).start()
    except OSError as e:
        parser.exit(2, f"cannot listen on port {args.port} ({e.strerror}): is the stub API already running? "
                       f"Stop it, or choose another port (make stub-api PORT=8766).\n")
    print(f"stub web API on {api.url} (Ctrl+C to stop)", file=sys.stderr, flush=True)
    try:
        api.wait()
    except KeyboardInterrupt:
        api.stop()


if __name__ == "__main__":
    main()
