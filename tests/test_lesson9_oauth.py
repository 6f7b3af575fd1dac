"""Lesson 9's OAuth 2.1 end to end, against the three servers' real ASGI apps (the authorization server from the
SDK's auth routes, the docs and the desk as protected resources): discovery (RFC 9728, RFC 8414), authorization
code with PKCE, a token bound to one resource (RFC 8707) and scoped, refresh — and the tokens a server must
refuse: one issued for another resource, one passed through by a middleman, one without the scope."""

from __future__ import annotations

import contextlib
import socket
import threading
import time

import pytest

from course.beyond import oauth_flow, protected
from course.beyond.authserver import CLIENT_ID, REDIRECT, ShopAuthProvider
from course.beyond.oauth_flow import SignInError, pkce_pair, sign_in

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]
DOCS, DESK = protected.DOCS + "/mcp", protected.DESK + "/mcp"


async def call(web, resource, token, tool, arguments):
    async with protected.mcp_client(web, resource, token) as client:
        result = await client.call_tool(tool, arguments)
    return result.is_error, result.content[0].text


async def status(web, resource, token):
    r = await web(token).post(resource, json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
                              headers={"Accept": "application/json, text/event-stream"})
    return r.status_code, r.headers.get("www-authenticate", "")


async def test_without_a_token_the_server_answers_401_pointing_to_its_metadata_which_names_the_issuer():
    async with protected.served(ShopAuthProvider()) as web:
        code, challenge = await status(web, DOCS, None)
        meta, server = await oauth_flow.discover(web(), DOCS)
    assert code == 401
    assert 'resource_metadata="http://127.0.0.1:8102/.well-known/oauth-protected-resource/mcp"' in challenge
    assert meta["resource"] == DOCS and meta["authorization_servers"] == [protected.ISSUER + "/"]
    assert server["code_challenge_methods_supported"] == ["S256"]


async def test_sign_in_with_pkce_gives_a_token_for_this_resource_that_reads_but_cannot_write():
    provider = ShopAuthProvider()
    async with protected.served(provider) as web:
        tokens = await sign_in(web(), DOCS, ["docs:read"])
        read = await call(web, DOCS, tokens.access, "read_policy", {"topic": "refunds"})
        write = await call(web, DOCS, tokens.access, "add_note", {"text": "hello"})
    assert provider.access[tokens.access].resource == DOCS and tokens.scopes == ["docs:read"]
    assert read == (False, "refunds: 30 days to ask for a refund (policy text from docs).")
    assert write[0] and "insufficient_scope" in write[1] and "docs:write" in write[1]


async def test_a_token_with_the_write_scope_writes():
    async with protected.served(ShopAuthProvider()) as web:
        tokens = await sign_in(web(), DOCS, ["docs:read", "docs:write"])
        assert await call(web, DOCS, tokens.access, "add_note", {"text": "hello"}) == (False, "Noted (1 notes).")


async def test_a_token_issued_for_another_resource_is_refused():
    async with protected.served(ShopAuthProvider()) as web:
        desk = await sign_in(web(), DESK, ["docs:read"])
        assert (await status(web, DESK, desk.access))[0] == 200
        code, challenge = await status(web, DOCS, desk.access)
    assert code == 401 and 'error="invalid_token"' in challenge


async def test_a_token_passed_through_by_a_middleman_is_refused():
    # The desk holds its caller's token; forwarding it to the docs (token passthrough) must not work.
    async with protected.served(ShopAuthProvider()) as web:
        callers = await sign_in(web(), DESK, ["docs:read", "docs:write"])
        forwarded = await status(web, DOCS, callers.access)
        own = await sign_in(web(), DOCS, ["docs:read"])  # what the desk must do instead: its own token
        assert forwarded[0] == 401 and (await status(web, DOCS, own.access))[0] == 200


async def test_a_token_without_the_required_scope_gets_403_insufficient_scope():
    async with protected.served(ShopAuthProvider()) as web:
        writer = await sign_in(web(), DOCS, ["docs:write"])
        code, challenge = await status(web, DOCS, writer.access)
    assert code == 403 and 'error="insufficient_scope"' in challenge


async def test_an_unknown_or_expired_token_is_refused():
    provider = ShopAuthProvider()
    async with protected.served(provider) as web:
        tokens = await sign_in(web(), DOCS, ["docs:read"])
        provider.access[tokens.access].expires_at = 1
        assert (await status(web, DOCS, tokens.access))[0] == 401
        assert (await status(web, DOCS, "made-up"))[0] == 401


async def test_refresh_gives_a_new_token_rotates_the_refresh_token_and_cannot_widen_scopes():
    provider = ShopAuthProvider()
    async with protected.served(provider) as web:
        http = web()
        first = await sign_in(http, DOCS, ["docs:read"])
        second = await oauth_flow.refresh(http, first)
        assert second.access != first.access and second.refresh != first.refresh and second.resource == DOCS
        assert (await status(web, DOCS, second.access))[0] == 200
        with pytest.raises(SignInError, match="invalid_grant"):
            await oauth_flow.refresh(http, first)  # the old refresh token was used up
        r = await http.post(first.token_endpoint, data={"grant_type": "refresh_token", "refresh_token": second.refresh,
                                                        "client_id": CLIENT_ID, "scope": "docs:read docs:write"})
        assert r.status_code == 400 and r.json()["error"] == "invalid_scope"


async def test_a_code_with_the_wrong_pkce_verifier_or_used_twice_is_refused():
    async with protected.served(ShopAuthProvider()) as web:
        http = web()
        meta, server = await oauth_flow.discover(http, DOCS)
        verifier, challenge = pkce_pair()
        r = await http.get(server["authorization_endpoint"], params={
            "response_type": "code", "client_id": CLIENT_ID, "redirect_uri": REDIRECT, "scope": "docs:read",
            "state": "s", "code_challenge": challenge, "code_challenge_method": "S256", "resource": DOCS})
        code = r.headers["location"].split("code=")[1].split("&")[0]
        form = {"grant_type": "authorization_code", "code": code, "redirect_uri": REDIRECT, "client_id": CLIENT_ID,
                "resource": DOCS}
        wrong = await http.post(server["token_endpoint"], data={**form, "code_verifier": pkce_pair()[0]})
        right = await http.post(server["token_endpoint"], data={**form, "code_verifier": verifier})
        again = await http.post(server["token_endpoint"], data={**form, "code_verifier": verifier})
    assert wrong.status_code == 400 and wrong.json()["error"] == "invalid_grant"
    assert right.status_code == 200 and again.status_code == 400


async def test_when_the_human_says_no_there_is_no_code_and_the_host_says_why():
    async with protected.served(ShopAuthProvider(consent=lambda *_: False)) as web:
        with pytest.raises(SignInError, match="no authorization code: the human said no"):
            await sign_in(web(), DOCS, ["docs:read"])


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def running(provider):
    """The three servers on real ports (uvicorn, one thread each), stopped on the way out."""
    import uvicorn

    urls = [f"http://127.0.0.1:{free_port()}" for _ in range(3)]
    servers = []
    for url, app in protected.apps(provider, *urls).items():
        if hasattr(app, "streamable_http_app"):
            app = app.streamable_http_app(host="127.0.0.1", json_response=True, stateless_http=True)
        server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=int(url.rsplit(":", 1)[1]),
                                               log_level="warning", lifespan="on"))
        thread = threading.Thread(target=server.run, daemon=True)
        thread.start()
        servers.append((server, thread))
    try:
        deadline = time.monotonic() + 20
        while not all(s.started for s, _ in servers):
            assert time.monotonic() < deadline, "the servers did not start within 20 s"
            time.sleep(0.05)
        yield urls
    finally:
        for server, thread in servers:
            server.should_exit = True
            thread.join(10)


async def test_end_to_end_on_real_ports_sign_in_call_and_the_three_refused_tokens():
    import httpx2

    provider = ShopAuthProvider()
    with running(provider) as (issuer, docs, desk):
        async with httpx2.AsyncClient() as http:
            reader = await sign_in(http, docs + "/mcp", ["docs:read"])
            other = await sign_in(http, desk + "/mcp", ["docs:read"])  # a token the desk server got for itself
            callers = await sign_in(http, desk + "/mcp", ["docs:read", "docs:write"])  # what the desk would forward
            writer_only = await sign_in(http, docs + "/mcp", ["docs:write"])
            fresh = await oauth_flow.refresh(http, reader)
            answers = []
            for token in (other.access, callers.access, writer_only.access, fresh.access, "made-up"):
                r = await http.post(docs + "/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
                                    headers={"Authorization": f"Bearer {token}",
                                             "Accept": "application/json, text/event-stream"})
                answers.append((r.status_code, r.headers.get("www-authenticate", "")))
        from mcp import Client
        from mcp.client.streamable_http import streamable_http_client

        # The SDK leaves a client it is given open (the caller's): closed here, or its socket is left behind.
        async with (httpx2.AsyncClient(headers={"Authorization": f"Bearer {fresh.access}"}) as bearer,
                    Client(streamable_http_client(docs + "/mcp", http_client=bearer)) as client):
            text = (await client.call_tool("read_policy", {"topic": "returns"})).content[0].text
            write = await client.call_tool("add_note", {"text": "hello"})
    assert reader.resource == docs + "/mcp"
    # another resource's token, a passed-through token, a token without docs:read; the reader's; a made-up one
    assert [code for code, _ in answers] == [401, 401, 403, 200, 401]
    assert 'error="invalid_token"' in answers[1][1] and 'error="insufficient_scope"' in answers[2][1]
    assert text == "returns: 30 days to ask for a refund (policy text from docs)."
    assert write.is_error and "insufficient_scope" in write.content[0].text  # the write scope, checked in the tool
