"""The class MCP server: a token per learner, and a workspace each (store, call log, web credits)."""

import json
import os
from types import SimpleNamespace

import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from course.approval import AutoApprover
from course.classroom.endpoint import docs_endpoint
from course.classroom.learners import TokensFileError, new_tokens, read_tokens
from course.classroom.server import main as classroom_main
from course.classroom.server import serving, transport_security
from course.host import McpHost, ServerError, http
from course.servers.stub_api import StubAPI

pytestmark = [pytest.mark.anyio, pytest.mark.subprocess]

REFUND = '{"order_id": "A1002", "amount": 32.5, "reason": "The mugs arrived broken."}'
SHOP = {"get_order_record", "issue_refund", "search_docs"}


@pytest.fixture(scope="module")
def stub():
    with StubAPI() as api:
        yield api


@pytest.fixture(scope="module")
def server(tmp_path_factory, stub):
    folder = tmp_path_factory.mktemp("class")
    tokens = folder / "tokens.txt"
    tokens.write_text(new_tokens(["anna", "ben"]))
    by_name = {name: token for token, name in read_tokens(tokens).items()}
    old = os.environ.get("COURSE_WEBAPI_URL")
    os.environ["COURSE_WEBAPI_URL"] = stub.url
    try:
        with serving(tokens, "--embedder", "lexical", "--budget", "4", "--data", str(folder / "work")) as url:
            yield url, by_name, folder / "work"
    finally:
        os.environ.pop("COURSE_WEBAPI_URL") if old is None else os.environ.update(COURSE_WEBAPI_URL=old)


async def test_two_learners_each_refund_a1002_in_their_own_shop(server):
    url, token, _ = server
    async with McpHost(approver=AutoApprover(True), quiet=True) as anna, \
            McpHost(approver=AutoApprover(True), quiet=True) as ben:
        await anna.connect("shop", http(url, token=token["anna"]), allow=SHOP)
        await ben.connect("shop", http(url, token=token["ben"]), allow=SHOP)
        first = json.loads(await anna.execute("issue_refund", REFUND))
        seen_by_ben = json.loads(await ben.execute("get_order_record", '{"order_id": "A1002"}'))
        second = json.loads(await ben.execute("issue_refund", REFUND))
        again = await anna.execute("issue_refund", REFUND)
    assert first["refund_id"] == "R-0001" and second["refund_id"] == "R-0001"
    assert seen_by_ben["refunded"] == 0 and seen_by_ben["refunds"] == []  # anna's refund is not in ben's shop
    assert "already refunded in full" in again  # anna's own shop remembers hers


async def test_one_learner_cannot_spend_anothers_web_credits(server):
    url, token, _ = server
    web = url.replace("/mcp", "/web/mcp")
    async with McpHost(quiet=True) as anna, McpHost(quiet=True) as ben:
        await anna.connect("web", http(web, token=token["anna"]), allow={"search"})
        await ben.connect("web", http(web, token=token["ben"]), allow={"search"})
        spent = [await anna.execute("search", '{"query": "carrier strike", "n": 1}') for _ in range(3)]
        bens = json.loads(await ben.execute("search", '{"query": "carrier strike", "n": 1}'))
    assert json.loads(spent[1])["budget_left"] == 0 and "budget is spent" in spent[2]
    assert bens["budget_left"] == 2  # a budget of 4, one 2-credit search: anna's spending did not touch it


async def test_each_learner_has_a_call_log_of_their_own_with_no_token_in_it(server):
    url, token, work = server
    async with McpHost(quiet=True) as anna, McpHost(quiet=True) as ben:  # anna's log exists whatever ran before
        await anna.connect("shop", http(url, token=token["anna"]), allow=SHOP)
        await anna.execute("search_docs", '{"query": "carrier strike"}')
        await ben.connect("shop", http(url, token=token["ben"]), allow=SHOP)
        await ben.execute("search_docs", '{"query": "who pays for returns"}')
    bens = [json.loads(line) for line in (work / "ben" / "calls.jsonl").read_text().splitlines()]
    annas = (work / "anna" / "calls.jsonl").read_text()
    assert {"tools/call"} <= {e["method"] for e in bens} and "search_docs" in {e["tool"] for e in bens}
    assert "who pays" not in annas and all(t not in annas + json.dumps(bens) for t in token.values())


@pytest.mark.parametrize("headers", [{}, {"Authorization": "Bearer not-a-learner-token-at-all"},
                                     {"Authorization": "Basic YW5uYTpwdw=="}])
async def test_a_request_without_a_learners_token_gets_401(server, headers):
    url, _, _ = server
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
    for endpoint in (url, url.replace("/mcp", "/web/mcp")):
        async with httpx2.AsyncClient() as client:
            r = await client.post(endpoint, json=body, headers={"Accept": "application/json, text/event-stream",
                                                                 **headers})
        assert r.status_code == 401


async def test_a_foreign_host_header_is_refused_even_with_a_good_token(server):
    url, token, _ = server  # DNS rebinding: a web page's script reaching 127.0.0.1 under another name
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
    async with httpx2.AsyncClient() as client:
        r = await client.post(url, json=body, headers={"Accept": "application/json, text/event-stream",
                                                       "Authorization": f"Bearer {token['anna']}",
                                                       "Host": "evil.example:8000"})
    assert r.status_code == 421


async def test_the_course_host_reports_a_wrong_token_in_one_line(server):
    url, _, _ = server
    with pytest.raises(ServerError, match="401|token"):
        await McpHost(quiet=True).connect("shop", http(url, token="x" * 24), allow=SHOP)


async def test_an_older_handshake_era_client_is_served_from_its_tokens_workspace_too(server):
    url, token, work = server
    async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {token['ben']}"}) as h:
        async with Client(streamable_http_client(url, http_client=h), mode="legacy") as client:
            result = await client.call_tool("create_ticket", {"order_id": "A1001", "subject": "Legacy",
                                                              "message": "Sent over a 2025-era session."})
    assert not result.is_error
    bens = json.loads((work / "ben" / "shop.json").read_text())["tickets"]
    anna = work / "anna" / "shop.json"  # absent when no test before this one had anna write (xdist, -k)
    annas = json.loads(anna.read_text())["tickets"] if anna.exists() else []
    assert [t["subject"] for t in bens] == ["Legacy"] and annas == []


async def test_lesson_6_uses_the_class_server_when_both_variables_are_set(server, monkeypatch):
    url, token, _ = server
    monkeypatch.setenv("COURSE_MCP_URL", url)
    monkeypatch.setenv("COURSE_MCP_TOKEN", token["anna"])
    with docs_endpoint("--embedder", "lexical") as given:
        assert given == (url, token["anna"])
    monkeypatch.delenv("COURSE_MCP_URL")
    with docs_endpoint("--embedder", "lexical") as (own, own_token):
        assert own != url and own_token != token["anna"]  # its own server, its own fresh token


def test_a_tokens_file_with_a_repeated_or_short_token_is_refused_with_its_line(tmp_path):
    path = tmp_path / "tokens.txt"
    path.write_text("anna abcdefghijklmnopqrstuvwx\nben abcdefghijklmnopqrstuvwx\n")
    with pytest.raises(TokensFileError, match="line 2"):
        read_tokens(path)
    path.write_text("# names and tokens\nanna short\n")
    with pytest.raises(TokensFileError, match="line 2.*shorter"):
        read_tokens(path)
    path.write_text("../etc abcdefghijklmnopqrstuvwx\n")
    with pytest.raises(TokensFileError, match="line 1"):
        read_tokens(path)


def test_new_tokens_are_distinct_and_the_file_is_for_the_teachers_eyes_only(tmp_path, capsys):
    path = tmp_path / "tokens.txt"
    classroom_main(["--new-tokens", "30", "--tokens", str(path)])
    learners = read_tokens(path)
    assert len(learners) == 30 and len(set(learners.values())) == 30
    assert path.stat().st_mode & 0o077 == 0
    with pytest.raises(SystemExit):  # never overwrites the tokens the learners already have
        classroom_main(["--new-tokens", "30", "--tokens", str(path)])
    assert read_tokens(path) == learners


def test_a_missing_names_file_is_named_without_a_traceback_and_no_tokens_file_is_written(tmp_path, capsys):
    with pytest.raises(SystemExit) as stopped:
        classroom_main(["--new-tokens", "2", "--names", str(tmp_path / "names.txt"), "--tokens",
                        str(tmp_path / "tokens.txt")])
    assert stopped.value.code == 2 and not (tmp_path / "tokens.txt").exists()
    err = capsys.readouterr().err
    assert f"{tmp_path / 'names.txt'}: No such file or directory" in err and "Traceback" not in err


def test_the_teacher_sets_each_learners_share_on_the_command_line_and_the_start_says_it(tmp_path, monkeypatch,
                                                                                       capsys):
    import uvicorn

    from course.classroom import server

    built: dict = {}
    app = SimpleNamespace(state=SimpleNamespace(library=None))
    monkeypatch.setattr(server, "build_app", lambda tokens, **options: built.update(options) or app)
    monkeypatch.setattr(server, "freeze_when_loaded", lambda library: None)  # no index loads here
    monkeypatch.setattr(uvicorn, "run", lambda app, **options: None)
    tokens = tmp_path / "tokens.txt"
    classroom_main(["--new-tokens", "2", "--tokens", str(tokens)])
    classroom_main(["--tokens", str(tokens), "--data", str(tmp_path / "class"), "--in-flight", "8", "--waiting",
                    "0", "--sessions", "4", "--idle-seconds", "30"])
    assert (built["in_flight"], built["waiting"], built["sessions"], built["idle_seconds"]) == (8, 0, 4, 30.0)
    err = capsys.readouterr().err
    assert "each learner: 8 requests served at once, 0 more waiting, the rest refused; 4 open connections" in err
    assert "--in-flight" in err
    with pytest.raises(SystemExit):
        classroom_main(["--tokens", str(tokens), "--in-flight", "0"])
    assert "--in-flight and --sessions of 1 or more" in capsys.readouterr().err


def test_beyond_loopback_only_the_names_learners_use_are_accepted_as_host_and_origin():
    settings = transport_security("0.0.0.0", ["192.168.1.20", "teacher.local"])
    assert "192.168.1.20:*" in settings.allowed_hosts and "teacher.local:*" in settings.allowed_hosts
    assert "0.0.0.0:*" not in settings.allowed_hosts and settings.enable_dns_rebinding_protection
    assert "http://teacher.local:*" in settings.allowed_origins


def test_listening_everywhere_without_naming_the_host_is_refused(tmp_path, capsys):
    with pytest.raises(SystemExit):
        classroom_main(["--tokens", str(tmp_path / "t.txt"), "--host", "0.0.0.0"])
    assert "--allow-host" in capsys.readouterr().err


def test_the_class_server_keeps_its_loaded_index_out_of_garbage_collections_once_the_load_has_ended():
    """Each full collection walked the model's half a million objects with the event loop stopped (~600 ms, the
    class-scale p95: bench class_search); frozen, they are never walked again. Not before the load has ended."""
    import gc
    import threading

    from course.classroom.server import freeze_when_loaded

    class Loading:
        def __init__(self):
            self.done = threading.Event()

        def loaded(self, timeout=None):
            return self.done.wait(timeout)

    library = Loading()
    freezer = threading.Thread(target=freeze_when_loaded, args=(library,), daemon=True)
    gc.unfreeze()
    try:
        freezer.start()
        freezer.join(0.2)
        assert freezer.is_alive() and gc.get_freeze_count() == 0  # still loading: nothing frozen yet
        library.done.set()
        freezer.join(10)
        assert not freezer.is_alive() and gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()  # this test process is no class server: its objects go back to the collector
