"""A local stand-in for a paid web-search REST API (lesson 5), so the web-API wrapper runs offline.

    python -m course.servers.stub_api [--port 8765] [--credits 1000]      (or: make stub-api)

It serves deterministic data on 127.0.0.1 and behaves like a real provider where it matters:
answers carry more fields than a model needs, every successful request costs a credit from
the account (402 once it is empty: the provider's balance, not the wrapper's session budget),
and it fails on demand (402, 429 with Retry-After, 5xx, slow answers), switched on by a test or
the notebook through `StubAPI.fail(...)` or `POST /admin/fail`. It counts the requests it
receives, so a test can prove that a rejected argument never reached it.

Endpoints: GET /search?q=&n=, GET /news?q=&n=&days=, GET /page?url=;
admin: GET /admin/stats, POST /admin/fail, POST /admin/credits, POST /admin/reset.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import threading
import time
from collections import deque
from datetime import date, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

from course.orders import SHOP_DATE

_DESCALING = [
    "Limescale builds up in every kettle that boils hard water. A thin white layer on the element is harmless, "
    "but it slows heating, wastes energy and flakes into drinks.",
    "Fill the kettle halfway with equal parts water and white vinegar, or dissolve two tablespoons of citric "
    "acid in water. Bring it to the boil, switch it off and leave it for an hour.",
    "Pour the solution away, rinse three times with fresh water and boil once more with clean water before "
    "making tea. Never use a scouring pad on the element: scratches make the next layer stick faster.",
    "How often? With hard water, once a month; with soft water, every three months. A kettle that starts to "
    "rumble loudly or switches off before boiling usually needs descaling.",
    "Manufacturers' warranties rarely cover damage from scale, so keep the kettle clean if you plan to claim "
    "a repair. Filter jugs reduce scale but do not remove it completely.",
]

PAGES = [
    {"url": "https://home.example.org/guides/descale-kettle", "title": "How to descale an electric kettle",
     "text": "\n\n".join(_DESCALING * 6)},  # long on purpose: reading it needs a character budget
    {"url": "https://consumer.example.org/rights/withdrawal", "title": "Your 14-day right of withdrawal",
     "text": "When you buy online in the EU you may cancel within 14 days of delivery without giving a reason. "
             "The seller must refund the price and the standard delivery cost within 14 days of your notice. "
             "You pay the return shipping unless the seller said otherwise. Sealed hygiene products and "
             "made-to-order goods are excluded."},
    {"url": "https://consumer.example.org/rights/faulty-goods", "title": "Faulty goods: repair, replace, refund",
     "text": "Goods must match their description and work for a reasonable time. In the EU the legal guarantee "
             "lasts at least two years. In the first year the seller must prove a fault did not exist at delivery. "
             "You can ask for a repair or a replacement first; a refund follows if neither is possible."},
    {"url": "https://carriers.example.com/dhl/holiday-delays", "title": "DHL parcel delays before the holidays",
     "text": "Parcel volumes double from mid-November. DHL expects deliveries in Germany to take one or two "
             "days longer than usual until December 24. Tracking updates may lag behind the parcel by a day."},
    {"url": "https://carriers.example.com/dpd/tracking-help", "title": "DPD tracking explained",
     "text": "A DPD tracking number has 14 digits. 'In transit' means the parcel left the depot; 'out for "
             "delivery' means it arrives today. If tracking has not changed for five working days, "
             "contact the sender."},
    {"url": "https://kitchen.example.net/reviews/best-kettles-2026", "title": "The best electric kettles of 2026",
     "text": "We boiled 400 litres in twelve kettles. The best models boil a litre in under three minutes, "
             "switch off reliably and have a limescale filter that is easy to remove and rinse."},
    {"url": "https://forum.example.net/members/kettle-complaints", "title": "Members' forum: kettle complaints",
     "text": "", "login": True},
    {"url": "https://wiki.northwind-goods.example/internal/refund-rules", "title": "Internal refund rules",
     "text": "", "private": True},
]

ARTICLES = [
    {"title": "DHL workers in Germany strike for two days", "source": "Logistics Daily", "published": "2026-11-18",
     "url": "https://news.example.com/2026/11/18/dhl-strike",
     "summary": "A two-day strike at DHL hubs in Germany delays parcels by up to three days.", "tags": "dhl delay"},
    {"title": "Kettle model KT-200 recalled over faulty switch", "source": "Consumer Watch", "published": "2026-11-12",
     "url": "https://news.example.com/2026/11/12/kettle-recall",
     "summary": "The KT-200 kettle may not switch off after boiling. Owners should stop using it and ask for a refund.",
     "tags": "kettle recall refund"},
    {"title": "EU agrees on a common charger for kitchen appliances", "source": "Tech Brief", "published": "2026-10-30",
     "url": "https://news.example.com/2026/10/30/common-charger",
     "summary": "Cordless appliances must use USB-C by 2028.", "tags": "eu kettle appliances"},
    {"title": "Online returns hit a record after Black Friday", "source": "Retail Today", "published": "2026-11-19",
     "url": "https://news.example.com/2026/11/19/returns-record",
     "summary": "Shops report a third more returns than last year; most are clothing and small appliances.",
     "tags": "returns refund"},
    {"title": "DPD opens 500 new parcel lockers", "source": "Logistics Daily", "published": "2026-09-02",
     "url": "https://news.example.com/2026/09/02/dpd-lockers", "summary": "Customers can now pick up parcels at night.",
     "tags": "dpd delivery"},
]

WORD = re.compile(r"[a-z0-9]+")


def _words(text: str) -> set[str]:
    return set(WORD.findall(text.lower()))


def search(q: str, n: int) -> list[dict]:
    """Pages ranked by how many query words they contain, with the clutter a real API returns."""
    terms = _words(q)
    scored = [(len(terms & _words(p["title"] + " " + p["text"] + " " + p["url"])), i, p) for i, p in enumerate(PAGES)]
    hits = sorted((s for s in scored if s[0]), key=lambda s: (-s[0], s[1]))[:n]
    return [{"id": f"r{i}", "rank": rank + 1, "score": round(score / max(len(terms), 1), 3), "url": p["url"],
             "title": p["title"], "snippet": (p["text"] or "(no preview: sign-in required)")[:160],
             "language": "en", "crawled_at": "2026-11-20T06:00:00Z", "favicon": "https://static.example/fav.ico",
             "tracking": {"click_id": f"c-{i}-{rank}", "campaign": None}}
            for rank, (score, i, p) in enumerate(hits)]


def news(q: str, n: int, days: int) -> list[dict]:
    since = date.fromisoformat(SHOP_DATE) - timedelta(days=days)
    terms = _words(q)
    hits = [a for a in ARTICLES if date.fromisoformat(a["published"]) >= since
            and terms & _words(a["title"] + " " + a["summary"] + " " + a["tags"])]
    hits.sort(key=lambda a: a["published"], reverse=True)
    return [{**a, "author": "Staff", "image": {"url": a["url"] + ".jpg", "width": 1200, "height": 630},
             "sentiment": 0.0, "body_html": "<p>" + a["summary"] + "</p>"} for a in hits[:n]]


class StubAPI:
    """The stub service in a background thread: `with StubAPI() as api: ... api.url ...`.

    `requests` counts every API request received (admin calls excluded); `credits` is the
    account's balance (402 once it reaches 0); `fail(...)` queues failures.
    """

    COST = 1  # credits per successful request

    def __init__(self, port: int = 0, *, credits: int = 1000, api_key: str | None = None):
        self.port, self.credits, self.api_key = port, credits, api_key
        self.requests = 0
        self.delay = 0.0  # seconds to wait before answering (to exercise timeouts)
        self._failures: deque[dict] = deque()
        self._lock = threading.Lock()
        self._http: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- control (tests and notebooks) ---------------------------------------------------
    def fail(self, status: int, *, times: int = 1, retry_after: float | None = None, route: str | None = None) -> None:
        """Answer the next `times` requests (to `route`, e.g. "/search", or any) with `status`."""
        with self._lock:
            self._failures.extend({"status": status, "retry_after": retry_after, "route": route} for _ in range(times))

    def reset(self, credits: int = 1000) -> None:
        with self._lock:
            self.requests, self.credits, self.delay = 0, credits, 0.0
            self._failures.clear()

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
            self._thread.join(timeout=5)
            self._http = None

    def __enter__(self) -> StubAPI:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    # -- one request -------------------------------------------------------------------
    def answer(self, method: str, target: str, headers: dict, body: bytes) -> tuple[int, dict, dict]:
        """(status, extra headers, JSON body) for one request. Runs in the server's thread."""
        parts = urlsplit(target)
        args = {k: v[-1] for k, v in parse_qs(parts.query).items()}
        if parts.path.startswith("/admin/"):
            return self._admin(method, parts.path, json.loads(body or b"{}"))
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
            with self._lock:
                if self.credits < self.COST:
                    return 402, {}, {"error": "payment_required", "message": "The account has no credits left."}
                self.credits -= self.COST
                data["credits_remaining"] = self.credits
        return status, {}, data

    def _route(self, path: str, args: dict) -> tuple[int, dict]:
        try:
            n = int(args.get("n", 5))
            days = int(args.get("days", 7))
        except ValueError:
            return 400, {"error": "bad_request", "message": "n and days must be integers."}
        if path == "/search":
            return 200, {"query": args.get("q", ""), "results": search(args.get("q", ""), n), "took_ms": 12}
        if path == "/news":
            return 200, {"query": args.get("q", ""), "articles": news(args.get("q", ""), n, days)}
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


class _Server(ThreadingHTTPServer):
    # The default backlog of 5 drops the connections of a burst of parallel calls, and the
    # client's TCP retries them a second later: a delay no real API adds.
    request_queue_size = 128


_REASONS = {402: "payment_required", 429: "rate_limited", 500: "internal_error", 502: "bad_gateway",
            503: "unavailable"}


def _handler(api: StubAPI) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def _serve(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            headers = {k.lower(): v for k, v in self.headers.items()}
            status, extra, data = api.answer(self.command, self.path, headers, body)
            payload = json.dumps(data).encode()
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
        api._thread.join()
    except KeyboardInterrupt:
        api.stop()


if __name__ == "__main__":
    main()
