"""Streamable HTTP as the lesson shows it, in memory: JSON or SSE answers, sessions in the handshake era and
none in 2026-07-28, and DNS-rebinding protection (a foreign Host or Origin is refused)."""

import pytest
from mcp.server.transport_security import TransportSecuritySettings

from course.architecture.local_http import (
    ACCEPT,
    initialize,
    modern,
    modern_headers,
    served,
    summary,
)
from course.servers.docs import build_server

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]


@pytest.fixture
def docs(tmp_path):
    return build_server(embedder="lexical", store_path=tmp_path / "shop.json")


async def test_the_handshake_era_answers_as_an_sse_stream_with_a_session_id(docs):
    async with served(docs) as web:
        answer = summary(await web.post("/mcp", json=initialize(), headers=ACCEPT))
    assert answer["status"] == 200 and answer["content-type"] == "text/event-stream"
    assert answer["mcp-session-id"] == "yes" and answer["body"].startswith("event: message data: {")


async def test_a_stateless_json_server_answers_the_handshake_with_plain_json_and_no_session(docs):
    async with served(docs, json_response=True, stateless_http=True) as web:
        answer = summary(await web.post("/mcp", json=initialize(), headers=ACCEPT))
    assert answer["content-type"] == "application/json" and answer["mcp-session-id"] == "none"


async def test_a_2026_request_is_sessionless_json_and_its_headers_must_match_its_body(docs):
    async with served(docs) as web:
        ok = await web.post("/mcp", json=modern("tools/list"), headers=modern_headers("tools/list"))
        mismatched = await web.post("/mcp", json=modern("tools/list"), headers=modern_headers("prompts/list"))
    assert summary(ok)["content-type"] == "application/json" and summary(ok)["mcp-session-id"] == "none"
    assert ok.json()["result"]["resultType"] == "complete"
    assert mismatched.status_code == 400


async def test_a_foreign_host_gets_421_and_a_foreign_origin_403_and_only_because_of_the_protection(docs, tmp_path):
    async with served(docs) as web:
        host = await web.post("/mcp", json=initialize(), headers=ACCEPT | {"Host": "evil.example"})
        origin = await web.post("/mcp", json=initialize(), headers=ACCEPT | {"Origin": "http://evil.example"})
    assert (host.status_code, host.text) == (421, "Invalid Host header")
    assert (origin.status_code, origin.text) == (403, "Invalid Origin header")
    off = TransportSecuritySettings(enable_dns_rebinding_protection=False)
    undefended = build_server(embedder="lexical", store_path=tmp_path / "other.json")
    async with served(undefended, transport_security=off) as web:
        let_in = await web.post("/mcp", json=initialize(), headers=ACCEPT | {"Host": "evil.example",
                                                                             "Origin": "http://evil.example"})
    assert let_in.status_code == 200  # without the check, a rebound name reaches the tools
