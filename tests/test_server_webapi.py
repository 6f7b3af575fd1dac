"""The web-API wrapper server, in memory through the SDK's Client, against the local stub API."""

from __future__ import annotations

import json

import anyio
import pytest
from mcp import Client, MCPError

from course.servers.stub_api import PAGES, StubAPI
from course.servers.webapi import WebAPI, build_server, check_url

pytestmark = pytest.mark.anyio

GUIDE = "https://home.example.org/guides/descale-kettle"


class Naps(list):
    """Stands in for asyncio.sleep: records how long the server would have waited, waits not at all."""

    async def __call__(self, seconds: float) -> None:
        self.append(seconds)


@pytest.fixture
def stub():
    with StubAPI() as api:
        yield api


@pytest.fixture
def naps():
    return Naps()


@pytest.fixture
async def make_api():
    """WebAPI(...) for one test, each closed after it: a client that made a request keeps its connection pool,
    open sockets (a ResourceWarning, an error under filterwarnings) until Python collects it."""
    made: list[WebAPI] = []

    def make(*args, **kwargs) -> WebAPI:
        made.append(WebAPI(*args, **kwargs))
        return made[-1]

    yield make
    for api in made:
        await api.aclose()


@pytest.fixture
async def api(stub, naps, make_api):
    return make_api(stub.url, budget=20, timeout=2.0, sleep=naps)


async def call(api: WebAPI, name: str, **arguments):
    async with Client(build_server(api)) as client:
        return await client.call_tool(name, arguments)


SEARCH = WebAPI.PRICES["/search"]  # credits a search costs (a page costs fewer)


def test_the_clients_price_list_is_the_stub_providers_own():
    # Written twice (the client reserves from its copy, the stub bills from its own): a price changed in one
    # place only would make every call "cost more than reserved". Every endpoint the stub serves is priced.
    assert WebAPI.PRICES == StubAPI.PRICES, (WebAPI.PRICES, StubAPI.PRICES)


def text(result) -> str:
    return result.content[0].text if result.content else ""


async def test_the_schema_carries_every_constraint_and_the_tools_are_read_only_and_open_world(api):
    async with Client(build_server(api)) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
    assert set(tools) == {"search", "news", "read_page"}
    search = tools["search"].input_schema["properties"]
    assert (search["query"]["minLength"], search["query"]["maxLength"]) == (2, 200)
    assert (search["n"]["minimum"], search["n"]["maximum"]) == (1, 10)
    page = tools["read_page"].input_schema["properties"]
    assert page["url"]["pattern"].startswith("^https?://") and page["max_chars"]["maximum"] == 8000
    assert tools["news"].input_schema["properties"]["days"]["maximum"] == 30
    for tool in tools.values():
        assert tool.input_schema["additionalProperties"] is False  # unknown arguments are refused
        assert tool.annotations.read_only_hint and tool.annotations.open_world_hint
        assert "credit" in tool.description and not tool.description.startswith(" ")


async def test_search_returns_only_title_url_and_snippet(api, stub):
    result = await call(api, "search", query="kettle descale", n=2)
    assert not result.is_error
    hits = result.structured_content["results"]
    assert hits[0]["url"] == GUIDE and len(hits) == 2
    assert all(set(hit) == {"title", "url", "snippet"} for hit in hits)  # no tracking, favicon, scores...
    assert result.structured_content["budget_left"] == 20 - SEARCH and stub.requests == 1


async def test_news_returns_recent_articles_newest_first(api):
    result = await call(api, "news", query="dhl kettle recall", days=14)
    articles = result.structured_content["articles"]
    assert [a["published"] for a in articles] == ["2026-11-18", "2026-11-12"]
    assert set(articles[0]) == {"title", "source", "published", "url", "summary"}


async def test_read_page_stops_at_the_character_budget_and_says_where_to_go_on(api):
    async with Client(build_server(api)) as client:
        first = (await client.call_tool("read_page", {"url": GUIDE, "max_chars": 500})).structured_content
        second = (await client.call_tool("read_page", {"url": GUIDE, "start": first["next_start"],
                                                       "max_chars": 8000})).structured_content
    assert first["truncated"] and len(first["text"]) == 500 and first["next_start"] == 500
    assert not second["truncated"] and second["next_start"] is None
    assert first["text"] + second["text"] == PAGES[0]["text"] and first["total_chars"] == len(PAGES[0]["text"])


@pytest.mark.parametrize("tool, arguments", [
    ("search", {"query": "x"}),                                   # too short
    ("search", {"query": "   "}),                                 # only spaces
    ("search", {"query": "kettle" * 50}),                         # too long
    ("search", {"query": "kettle", "n": 0}),
    ("news", {"query": "kettle", "n": 11}),
    ("news", {"query": "kettle", "days": 90}),
    ("read_page", {"url": "ftp://files.example.org/x"}),
    ("read_page", {"url": "file:///etc/passwd"}),
    ("read_page", {"url": "http://127.0.0.1:8765/admin/stats"}),  # the API's own admin port
    ("read_page", {"url": "http://10.0.0.7/wiki"}),
    ("read_page", {"url": "http://localhost/"}),
    ("read_page", {"url": "https://printer.local/status"}),
    ("read_page", {"url": "http://2130706433/"}),                 # 127.0.0.1 as one decimal number
    ("read_page", {"url": "http://0x7f000001/"}),                 # ... in hex
    ("read_page", {"url": "http://127.1/"}),                      # ... shortened
    ("read_page", {"url": "http://0177.0.0.1/"}),                 # ... in octal
    ("read_page", {"url": "http://0/"}),                          # 0.0.0.0: this machine
    ("read_page", {"url": "http://[::ffff:127.0.0.1]/"}),         # IPv4 inside IPv6
    ("read_page", {"url": "http://[::1]:8765/admin/stats"}),
    ("read_page", {"url": "http://localhost./"}),                 # a trailing dot is the same name
    ("read_page", {"url": "http://printer/status"}),              # one-word names resolve on the local network
    ("read_page", {"url": "http://%31%32%37.0.0.1/"}),            # escapes a resolver may decode
    ("read_page", {"url": "http://１２７.０.０.１/"}),                 # fullwidth digits: NFKC makes them 127.0.0.1
    ("read_page", {"url": "http://①②⑦.0.0.1/"}),                  # circled digits, likewise
    ("read_page", {"url": "http://１０。０。０。７/"}),                 # ... with ideographic full stops (IDNA dots)
    ("read_page", {"url": "http://ｌｏｃａｌｈｏｓｔ/"}),               # fullwidth letters
    ("read_page", {"url": "http://127.0.0.1\\@example.com/"}),     # a browser reads "\\" as "/": host 127.0.0.1
    ("read_page", {"url": "http://example.com@127.0.0.1/"}),     # user info before the real host
    ("read_page", {"url": "http://[::127.0.0.1]/"}),             # IPv4-compatible IPv6
    ("read_page", {"url": "http://[64:ff9b::a00:7]/"}),          # NAT64 for 10.0.0.7
    ("read_page", {"url": "http://[2002:7f00:1::]/"}),           # 6to4 for 127.0.0.1
    ("read_page", {"url": "http://[/"}),                         # does not parse
    ("read_page", {"url": GUIDE, "max_chars": 10}),
])
async def test_a_rejected_argument_never_reaches_the_stub_api(api, stub, tool, arguments):
    result = await call(api, tool, **arguments)
    assert result.is_error
    assert stub.requests == 0 and api.budget.spent == 0


@pytest.mark.parametrize("url, advice", [
    ("http://１２７.０.０.１/", "127.0.0.1 is a private or internal address"),
    ("http://[::127.0.0.1]/", "::127.0.0.1 is a private or internal address"),
    ("http://[/", "is not a valid URL"),
    ("http://127.0.0.1\\@example.com/", "URLs with a backslash cannot be read"),
    ("http://me@example.com/", "URLs with a user name or password before the host"),
])
async def test_a_refused_url_is_explained_with_advice_not_a_bare_error(api, url, advice):
    result = await call(api, "read_page", url=url)
    assert result.is_error and advice in text(result)
    assert "Use" in text(result) and text(result) != "Error executing tool read_page"


async def test_a_private_address_gets_advice_to_use_another_source(api):
    result = await call(api, "read_page", url="http://192.168.1.20/prices")
    assert result.is_error and "private or internal" in text(result) and "another, public source" in text(result)


@pytest.mark.parametrize("url, why", [
    ("https://forum.example.net/members/kettle-complaints", "needs a login"),
    ("https://wiki.northwind-goods.example/internal/refund-rules", "private network"),  # known only to the API
])
async def test_a_blocked_page_advises_another_source_and_costs_nothing(api, stub, url, why):
    result = await call(api, "read_page", url=url)
    assert result.is_error and why in text(result) and "Use another source" in text(result)
    assert stub.requests == 1 and api.budget.spent == 0


async def test_an_unknown_page_points_to_urls_from_the_results(api):
    result = await call(api, "read_page", url="https://home.example.org/nope")
    assert result.is_error and "Use a URL exactly as it appears" in text(result)


async def test_out_of_credits_tells_the_model_to_stop_without_retrying(api, stub, naps):
    stub.credits = 0
    result = await call(api, "search", query="kettle")
    assert result.is_error and "out of credits" in text(result) and "Stop using the web tools" in text(result)
    assert stub.requests == 1 and naps == [] and api.budget.spent == 0


async def test_rate_limiting_is_retried_once_after_the_retry_after_delay(api, stub, naps):
    stub.fail(429, retry_after=2)
    result = await call(api, "search", query="kettle")
    assert not result.is_error and result.structured_content["results"]
    assert naps == [2.0] and stub.requests == 2 and api.budget.spent == SEARCH
    assert api.retries == ["429 rate limited: waited 2 s (Retry-After), then retried once"]


async def test_rate_limiting_twice_tells_the_model_to_stop_web_calls_for_this_turn(api, stub, naps):
    stub.fail(429, retry_after=1, times=2)
    result = await call(api, "news", query="kettle")
    assert result.is_error and "still rate limiting after one polite retry" in text(result)
    assert "Do not call the web tools again in this turn" in text(result)
    assert naps == [1.0] and stub.requests == 2 and api.budget.spent == 0


async def test_a_long_retry_after_is_reported_rather_than_waited_out(api, stub, naps):
    stub.fail(429, retry_after=120)
    result = await call(api, "search", query="kettle")
    assert result.is_error and "asks to wait 120 s" in text(result)
    assert naps == [] and stub.requests == 1


async def test_rate_limit_advice_never_asks_the_model_to_wait_because_a_model_cannot_sleep(api, stub, naps):
    stub.fail(429, retry_after=120)
    result = await call(api, "search", query="kettle")
    assert "answer from what you have and tell the user web search is busy" in text(result)
    assert "Wait that long" not in text(result) and "wait before" not in text(result).lower()


async def test_a_server_error_after_a_rate_limit_is_not_reported_as_failing_twice(api, stub, naps):
    stub.fail(429, retry_after=1)
    stub.fail(500)
    result = await call(api, "search", query="kettle")
    assert result.is_error and "twice" not in text(result)
    assert "rate limited (HTTP 429), then failed on the retry (HTTP 500)" in text(result)
    assert stub.requests == 2 and api.budget.spent == 0


async def test_a_rate_limit_after_a_server_error_is_not_reported_as_a_second_rate_limit(api, stub, naps):
    stub.fail(503)
    stub.fail(429, retry_after=1)
    result = await call(api, "search", query="kettle")
    assert result.is_error and "still rate limiting" not in text(result)
    assert "failed (HTTP 503), then rate limited the retry (HTTP 429)" in text(result)


async def test_a_server_error_is_retried_once(api, stub):
    stub.fail(503)
    result = await call(api, "search", query="kettle")
    assert not result.is_error and stub.requests == 2 and api.budget.spent == SEARCH


async def test_two_server_errors_advise_trying_later_and_are_refunded(api, stub):
    stub.fail(502, times=2)
    result = await call(api, "search", query="kettle")
    assert result.is_error and "failed twice (HTTP 502)" in text(result) and "Try again later" in text(result)
    assert stub.requests == 2 and api.budget.spent == 0


async def test_a_timed_out_request_keeps_its_credit_because_the_provider_may_have_charged_it(stub, make_api):
    stub.delay = 0.5  # answered after the client's 0.2 s, however loaded the machine (settle() waits it out)
    api = make_api(stub.url, budget=SEARCH, timeout=0.2)
    async with Client(build_server(api)) as client:
        results = [await client.call_tool("search", {"query": "kettle"}) for _ in range(3)]
    stub.settle()
    assert "did not answer within 0.2 s" in text(results[0]) and "Try once more" in text(results[0])
    assert all("budget is spent" in text(r) for r in results[1:])
    assert api.budget.spent == SEARCH and 1000 - stub.credits == SEARCH and stub.requests == 1


async def test_a_call_the_client_gave_up_on_keeps_its_credit_so_the_provider_charges_no_more_than_the_budget(
        stub, capfd, make_api):
    stub.delay = 0.5  # every request still succeeds, and is charged, after the client stopped waiting (0.2 s)
    api = make_api(stub.url, budget=2 * SEARCH, timeout=5.0)
    async with Client(build_server(api), read_timeout_seconds=0.2) as client:
        for _ in range(7):
            try:
                await client.call_tool("search", {"query": "kettle"})
            except MCPError:
                pass  # the client's own timeout
    stub.settle()
    assert 1000 - stub.credits <= 2 * SEARCH and api.budget.spent == 2 * SEARCH
    assert "Traceback" not in capfd.readouterr().err  # the stub says nothing about clients that left


async def test_a_200_whose_body_does_not_parse_keeps_its_credit_and_advises_trying_later(api, stub):
    stub.garbled = True
    result = await call(api, "search", query="kettle")
    assert result.is_error and "sent an answer that cannot be read" in text(result) and "Try once more" in text(result)
    assert api.budget.spent == SEARCH and 1000 - stub.credits == SEARCH


@pytest.mark.parametrize("tool, arguments, key", [
    ("search", {"query": "kettle", "n": 1}, "results"),
    ("news", {"query": "kettle", "n": 1}, "articles"),
])
async def test_a_provider_that_sends_too_much_is_cut_to_n_short_fields_and_a_note(api, stub, tool, arguments, key):
    stub.oversize = 1000  # 1000 hits of 1000 characters each, whatever n says
    result = await call(api, tool, **arguments)
    answer = result.structured_content
    assert not result.is_error and len(answer[key]) == 1
    assert answer["note"].startswith(f"Cut: the API sent 1000 {key}; these are the first 1 you asked for")
    assert "fields longer than 500 characters were cut" in answer["note"]
    assert all(len(value) <= 504 for value in answer[key][0].values())
    assert len(json.dumps(answer)) < 2000 and len(text(result)) < 2000


async def test_an_answer_within_the_limits_carries_no_note(api):
    result = await call(api, "search", query="kettle", n=2)
    assert "note" not in result.structured_content


async def test_an_unreachable_api_is_reported_not_crashed(make_api):
    from course.servers import free_port

    api = make_api(f"http://127.0.0.1:{free_port()}", budget=5, timeout=1.0)
    result = await call(api, "search", query="kettle")
    assert result.is_error and "cannot be reached" in text(result) and api.budget.spent == 0


async def test_a_request_too_large_for_the_provider_asks_for_a_shorter_one_and_costs_nothing(api, stub):
    stub.fail(413)
    result = await call(api, "search", query="kettle")
    assert result.is_error and "too large (HTTP 413). Send a shorter query" in text(result)
    assert "not available" not in text(result) and api.budget.spent == 0


async def test_a_wrong_api_key_tells_the_user_which_variable_to_set(make_api):
    with StubAPI(api_key="right") as stub:
        ok = await call(make_api(stub.url, api_key="right"), "search", query="kettle")
        wrong = await call(make_api(stub.url, api_key="wrong"), "search", query="kettle")
    assert not ok.is_error
    assert wrong.is_error and "COURSE_WEBAPI_KEY" in text(wrong)


async def test_the_budget_runs_out_with_advice_and_no_further_requests(stub, make_api):
    api = make_api(stub.url, budget=2 * SEARCH)
    async with Client(build_server(api)) as client:
        results = [await client.call_tool("search", {"query": "kettle"}) for _ in range(3)]
    assert [r.is_error for r in results] == [False, False, True]
    assert f"budget is spent ({2 * SEARCH} of {2 * SEARCH} credits)" in text(results[2]) and stub.requests == 2
    assert results[1].structured_content["budget_left"] == 0


async def test_fifty_concurrent_calls_never_spend_more_than_the_budget(stub):
    stub.delay = 0.05  # every request is in flight while the others start
    api = WebAPI(stub.url, budget=7 * SEARCH)
    results = []
    async with Client(build_server(api)) as client:

        async def one(i: int) -> None:
            results.append(await client.call_tool("search", {"query": f"kettle {i}"}))

        with anyio.fail_after(60):
            async with anyio.create_task_group() as tg:
                for i in range(50):
                    tg.start_soon(one, i)
    await api.aclose()
    assert len(results) == 50
    assert sum(not r.is_error for r in results) == 7
    assert all("budget is spent" in text(r) for r in results if r.is_error)
    assert stub.requests == 7 and api.budget.spent == 7 * SEARCH and stub.credits == 1000 - 7 * SEARCH


async def test_concurrent_failures_are_refunded_so_later_calls_can_spend_them(stub, naps, make_api):
    api = make_api(stub.url, budget=3 * SEARCH, sleep=naps)
    stub.fail(500, times=6)  # three calls, each tried twice, all fail
    async with Client(build_server(api)) as client:
        async with anyio.create_task_group() as tg:
            for _ in range(3):
                tg.start_soon(client.call_tool, "search", {"query": "kettle"})
        assert api.budget.spent == 0
        later = [await client.call_tool("search", {"query": "kettle"}) for _ in range(3)]
    assert not any(r.is_error for r in later) and api.budget.spent == 3 * SEARCH


@pytest.mark.parametrize("url", ["https://home.example.org/guides/descale-kettle", "http://93.184.216.34/",
                                 "https://bücher.example.de/", "https://xn--bcher-kva.example/",
                                 "http://[2001:4860:4860::8888]/", "https://ｅｘａｍｐｌｅ.org/page",
                                 "http://[2002:5db8:d822::]/"])  # 6to4 for the public 93.184.216.34
def test_public_hosts_in_any_spelling_pass_the_url_check(url):
    check_url(url)  # raises ToolError if refused


def test_the_stub_api_accepts_a_burst_of_parallel_connections_at_once(stub):
    # With socketserver's default backlog of 5, part of a burst was dropped and retried by TCP a second later.
    import socket

    sockets, refused = [socket.socket() for _ in range(40)], []
    try:
        for s in sockets:
            s.settimeout(0.5)  # a dropped connection attempt is retried only after 1 s
            refused.append(s.connect_ex(("127.0.0.1", stub.port)))
    finally:
        for s in sockets:
            s.close()
    assert refused == [0] * 40


# -- prices per endpoint, and what the provider billed (issue 24) -------------------------------
async def test_a_search_is_refused_for_lack_of_credit_while_a_cheaper_page_is_still_read(stub, make_api):
    api = make_api(stub.url, budget=SEARCH + 1)  # one search, then one credit left: less than a search costs
    async with Client(build_server(api)) as client:
        first = await client.call_tool("search", {"query": "kettle"})
        refused = await client.call_tool("search", {"query": "kettle"})
        page = await client.call_tool("read_page", {"url": GUIDE})
    assert not first.is_error and refused.is_error and "spent down to 1 of 3 credits" in text(refused)
    assert "this call costs 2" in text(refused)
    assert not page.is_error and page.structured_content["budget_left"] == 0 and stub.requests == 2


async def test_billed_less_than_reserved_is_refunded_and_more_is_spent(stub, make_api):
    api = make_api(stub.url, budget=10)
    stub.prices["/search"] = 1  # a provider discount: reserved 2, billed 1
    cheap = await call(api, "search", query="kettle")
    assert cheap.structured_content["budget_left"] == 9 and api.budget.spent == 1
    stub.prices["/page"] = 4  # a long page billed 4 where 1 was reserved
    dear = await call(api, "read_page", url=GUIDE)
    assert not dear.is_error and api.budget.spent == 5 == 1000 - stub.credits
    assert api.settled == ["/search: reserved 2, billed 1", "/page: reserved 1, billed 4"]


async def test_a_provider_that_does_not_say_what_it_billed_keeps_the_reservation(stub, monkeypatch, make_api):
    import course.servers.web_client as web_client
    monkeypatch.setattr(web_client, "billed", lambda r: None)
    api = make_api(stub.url, budget=10)
    await call(api, "search", query="kettle")
    assert api.budget.spent == SEARCH and api.settled == []


async def test_a_connect_failure_refunds_but_a_timeout_keeps_the_reservation(stub):
    import socket
    with socket.socket() as s:  # a port nobody listens on: the connection is refused, no request is sent
        s.bind(("127.0.0.1", 0))
        closed = f"http://127.0.0.1:{s.getsockname()[1]}"
    unreachable = WebAPI(closed, budget=10)
    result = await call(unreachable, "search", query="kettle")
    await unreachable.aclose()
    assert result.is_error and "cannot be reached" in text(result) and unreachable.budget.spent == 0
    stub.delay = 0.5
    slow = WebAPI(stub.url, budget=10, timeout=0.1)
    result = await call(slow, "search", query="kettle")
    await slow.aclose()
    stub.settle()
    assert "did not answer" in text(result) and slow.budget.spent == SEARCH == 1000 - stub.credits


async def test_every_request_shares_one_http_client_with_split_timeouts(stub, monkeypatch):
    import httpx2

    import course.servers.web_client as web_client
    made = []
    real = httpx2.AsyncClient
    monkeypatch.setattr(web_client.httpx2, "AsyncClient", lambda **kw: made.append(kw) or real(**kw))
    api = WebAPI(stub.url, budget=20, timeout=4.0, connect_timeout=1.5)
    async with Client(build_server(api)) as client:
        for _ in range(3):
            assert not (await client.call_tool("search", {"query": "kettle"})).is_error
        await client.call_tool("read_page", {"url": GUIDE})
    assert len(made) == 1 and stub.requests == 4
    timeout = api.http().timeout
    assert (timeout.connect, timeout.read) == (1.5, 4.0)
    await api.aclose()
    assert api.http() is not None and len(made) == 2  # a closed client is replaced, not reused
    await api.aclose()



async def test_leaving_an_async_with_block_closes_the_connection_pool(stub):
    async with WebAPI(stub.url, budget=10) as api:
        assert not (await call(api, "search", query="kettle")).is_error
        pool = api.http()
        assert not pool.is_closed  # kept open between calls: no handshake per search
    assert pool.is_closed  # no socket left for Python to collect (and warn about)

# -- the budget across a restart (issue 24) ------------------------------------------------------
async def test_a_budget_file_keeps_what_was_spent_across_a_restart(stub, tmp_path, make_api):
    path = tmp_path / "budget.json"
    first = make_api(stub.url, budget=5, budget_file=str(path))
    await call(first, "search", query="kettle")
    await call(first, "search", query="kettle")
    restarted = make_api(stub.url, budget=5, budget_file=str(path))  # a new process reads the same file
    assert restarted.budget.spent == 2 * SEARCH
    result = await call(restarted, "search", query="kettle")
    assert result.is_error and "down to 1 of 5" in text(result) and stub.requests == 2
    assert not (await call(restarted, "read_page", url=GUIDE)).is_error and restarted.budget.left == 0
    assert WebAPI(stub.url, budget=5).budget.spent == 0  # without a file, a restart starts afresh


async def test_refunds_and_surcharges_reach_the_budget_file(stub, tmp_path, make_api):
    path = tmp_path / "budget.json"
    api = make_api(stub.url, budget=10, budget_file=str(path))
    stub.fail(402)
    await call(api, "search", query="kettle")  # refunded: the provider did not bill it
    assert json.loads(path.read_text())["spent"] == 0
    stub.prices["/page"] = 3
    await call(api, "read_page", url=GUIDE)
    assert json.loads(path.read_text()) == {"spent": 3, "total": 10}


@pytest.mark.parametrize("content", ["{not json", '{"spent": "lots"}', "[]"])
def test_a_damaged_budget_file_is_refused_with_what_to_do(tmp_path, content):
    path = tmp_path / "budget.json"
    path.write_text(content)
    with pytest.raises(ValueError, match="budget file .* (cannot be read|whole number)") as e:
        WebAPI("http://127.0.0.1:1", budget_file=str(path))
    assert "budget.json" in str(e.value)
