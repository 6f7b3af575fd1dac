"""The scripted model served over HTTP, so an unmodified `OpenAI()` (or curl) reaches it by base URL (lesson 1)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx2

from course.scripted.rejections import ReadStall, error_body

# What serves a request: a ScriptedModel (model.py, whose `serve` starts this server) or any other
# handler an `httpx2.MockTransport` takes.
Handler = Callable[[httpx2.Request], httpx2.Response]


def server_for(model: Handler, port: int = 0) -> ThreadingHTTPServer:
    return ThreadingHTTPServer(("127.0.0.1", port), handler_for(model))


def handler_for(model: Handler) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            request = httpx2.Request("POST", f"http://127.0.0.1{self.path}", content=self.rfile.read(length))
            try:
                response = model(request)
            except ReadStall as stall:  # a real client times out while we wait
                threading.Event().wait(stall.seconds)
                response = httpx2.Response(504, json=error_body("The scripted model timed out.", "server_error"))
            data = response.content
            try:
                self.send_response(response.status_code)
                for key, value in response.headers.items():
                    if key.lower() not in {"content-length", "transfer-encoding"}:
                        self.send_header(key, value)
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up waiting (a scripted timeout): nobody to answer

        def log_message(self, *args: Any) -> None:  # keep notebooks and test output quiet
            pass

    return Handler
