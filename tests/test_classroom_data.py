"""The class server's data: one folder the teacher chooses (`--data`), a folder per learner, resettable."""

import json
import shutil
import subprocess
import sys

from course.classroom.class_data import class_data
from course.classroom.learners import Workspaces
from course.classroom.server import where_the_data_is
from course.classroom.status import table


class Budgets:
    """A stand-in for the web API's factory: counts the credit budgets handed out."""

    def __init__(self):
        self.made = 0

    def __call__(self):
        self.made += 1
        return {"budget": self.made}


def test_deleting_a_learners_folder_gives_them_a_fresh_shop_and_budget_on_their_next_request(tmp_path):
    budgets = Budgets()
    spaces = Workspaces(tmp_path / "class", make_api=budgets)
    anna, ben = spaces["anna"], spaces["ben"]
    anna.store.issue_refund("A1002", 32.5, "The mugs arrived broken.")
    ben.store.issue_refund("A1002", 10.0, "One mug arrived broken.")
    assert spaces["anna"] is anna  # while her folder is there, the same workspace serves her
    shutil.rmtree(tmp_path / "class" / "anna")  # the teacher resets anna, the server still running
    fresh = spaces["anna"]
    assert fresh is not anna and fresh.api == {"budget": 3} and fresh.store.refunds() == []
    assert fresh.store.issue_refund("A1002", 32.5, "Again, after a reset.")["refund_id"] == "R-0001"
    assert [r["amount"] for r in spaces["ben"].store.refunds()] == [10.0]  # ben is untouched


def test_a_learner_reset_in_the_middle_of_a_request_still_gets_the_request_logged(tmp_path):
    spaces = Workspaces(tmp_path / "class")
    anna = spaces["anna"]
    shutil.rmtree(tmp_path / "class")  # the whole class reset while her call runs
    anna.record("tools/call", "search_docs", True, 0.01)
    assert json.loads((tmp_path / "class" / "anna" / "calls.jsonl").read_text())["tool"] == "search_docs"


def test_the_class_summary_counts_each_learners_calls_failures_tickets_and_refunds(tmp_path):
    spaces = Workspaces(tmp_path)
    anna = spaces["anna"]
    anna.store.issue_refund("A1002", 32.5, "The mugs arrived broken.")
    anna.store.create_ticket("A1001", "Late", "Where is my parcel?")
    anna.store.create_ticket("A1003", "Wrong", "Wrong colour arrived.")
    for ok in (True, True, False):
        anna.record("tools/call", "issue_refund", ok, 0.02)
    spaces["ben"].record("tools/list", None, True, 0.01)  # ben listed tools, never touched his shop
    (tmp_path / "cleo").mkdir()
    (tmp_path / "cleo" / "shop.json").write_text("{ edited by hand")
    (tmp_path / "cleo" / "calls.jsonl").write_text('{"at": 1, "ok": true}\n{"at": 2, "ok"')  # cut short by a crash
    (tmp_path / "notes.txt").write_text("the teacher's own file")  # not a learner
    rows = {r.name: r for r in class_data(tmp_path)}
    assert sorted(rows) == ["anna", "ben", "cleo"]
    assert (rows["anna"].calls, rows["anna"].failed, rows["anna"].tickets, rows["anna"].refunds) == (3, 1, 2, 1)
    assert rows["ben"].calls == 1 and rows["ben"].tickets is None
    assert rows["cleo"].calls == 1 and rows["cleo"].tickets is None  # damaged files: counted, no traceback
    shown = table(tmp_path, list(rows.values()))
    assert shown.splitlines()[0] == f"3 learners in {tmp_path}" and "unreadable" in shown


def test_the_start_says_where_the_data_is_and_what_an_earlier_class_left_there(tmp_path):
    assert "empty so far" in where_the_data_is(tmp_path / "class", {"anna"})
    Workspaces(tmp_path / "class")["old-learner"].record("tools/list", None, True, 0.01)
    line = where_the_data_is(tmp_path / "class", {"anna", "ben"})
    assert str(tmp_path / "class") in line and "1 learners already have data there" in line
    assert "1 of them not in this tokens file" in line and f"rm -rf {tmp_path / 'class'}/<name>" in line


def test_by_default_the_class_data_is_a_class_folder_in_the_teachers_work(tmp_path):
    env = {"PATH": "/usr/bin:/bin", "COURSE_WORK": str(tmp_path / "work"), "PYTHONPATH": ":".join(sys.path)}
    done = subprocess.run([sys.executable, "-m", "course.classroom.status"], capture_output=True, text=True,
                          env=env, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""  # `-m course.classroom.class_data` warned that the package had imported it
    assert done.stdout.strip() == f"No learner has data in {tmp_path / 'work' / 'class'} yet."


def test_after_a_reset_every_row_of_class_status_keeps_the_headers_columns(tmp_path):
    spaces = Workspaces(tmp_path)
    for name in ("anna", "ben"):
        spaces[name].store.create_ticket("A1001", "Late", "Where is my parcel?")
        spaces[name].record("tools/call", "create_ticket", True, 0.01)
    shutil.rmtree(tmp_path / "anna")  # the teacher resets anna; her next request lists the tools
    spaces["anna"].record("tools/list", None, True, 0.01)
    (tmp_path / "cleo").mkdir()
    (tmp_path / "cleo" / "shop.json").write_text("{ edited by hand")
    header, *rows = table(tmp_path, class_data(tmp_path)).splitlines()[1:]
    column = header.index("last call")
    for row in rows:
        assert row[column - 2:column] == "  " and row[column:column + 1] in "0123456789-", row
        assert header.index("refunds") + len("refunds") == len(row[:column].rstrip()), row
    assert rows[0].startswith("anna") and rows[0].endswith("(no shop yet)") and " - " in rows[0]
    assert rows[2].startswith("cleo") and rows[2].endswith("(shop.json unreadable)")


def test_a_clean_session_on_the_class_server_shows_no_failed_call_and_a_tool_error_shows_one(tmp_path):
    import anyio

    from course.classroom.learners import new_tokens, read_tokens, write_tokens
    from course.classroom.server import serving
    from course.host import McpHost, http

    tokens = tmp_path / "tokens.txt"
    write_tokens(tokens, new_tokens(["anna", "ben"]))
    token = {name: t for t, name in read_tokens(tokens).items()}

    async def session(name: str, calls: list[tuple[str, str]]) -> None:
        async with McpHost(quiet=True) as host:  # opens, calls, closes: a lesson 6 session's normal end
            await host.connect("shop", http(url, token=token[name]), allow={"search_docs", "get_order_record"})
            for tool, arguments in calls:
                await host.execute(tool, arguments)

    with serving(tokens, "--embedder", "lexical", "--data", str(tmp_path / "class")) as url:
        anyio.run(session, "anna", [("search_docs", '{"query": "who pays for returns"}')])
        anyio.run(session, "ben", [("get_order_record", '{"order_id": "A9999"}')])  # no such order: a tool error
    rows = {r.name: r for r in class_data(tmp_path / "class")}
    assert rows["anna"].calls >= 3 and rows["anna"].failed == 0, (tmp_path / "class/anna/calls.jsonl").read_text()
    assert rows["ben"].failed == 1


def test_a_rehearsal_with_two_simulated_learners_prints_time_latency_memory_and_the_rooms_size(capsys):
    from course.classroom.rehearsal import main as rehearsal

    assert rehearsal(["--learners", "2", "--embedder", "lexical", "--to", "class-server"]) == 0
    out = capsys.readouterr().out
    assert "2 simulated learners, lesson 6's calls, straight to the class server (no hub" in out
    assert "errors          0" in out and "crossed shops   0" in out and "index ready" in out
    for shown in ("time ", "p50 ", "p95 ", "class server    peak ", "GB available", "make doctor LEARNERS=2"):
        assert shown in out, shown


def test_class_status_of_a_folder_that_does_not_exist_says_so_instead_of_no_data_yet(tmp_path, capsys):
    import pytest

    from course.classroom.status import main

    with pytest.raises(SystemExit) as exit:
        main(["--data", str(tmp_path / "clas")])  # a typo for the server's DATA=class
    assert exit.value.code == 2
    err = capsys.readouterr().err
    assert "no such folder" in err and "learners' data in" in err
    (tmp_path / "class").mkdir()
    main(["--data", str(tmp_path / "class")])  # there, and empty: the server has not been called yet
    assert "No learner has data" in capsys.readouterr().out


def test_a_class_server_on_a_port_in_use_says_so_before_announcing_itself(tmp_path, capsys):
    import socket

    import pytest

    from course.classroom.learners import new_tokens, write_tokens
    from course.classroom.server import main

    write_tokens(tmp_path / "tokens.txt", new_tokens(["anna"]))
    with socket.socket() as other:
        other.bind(("127.0.0.1", 0))
        other.listen()
        port = other.getsockname()[1]
        with pytest.raises(SystemExit) as exit:
            main(["--tokens", str(tmp_path / "tokens.txt"), "--port", str(port), "--data", str(tmp_path / "d")])
    assert exit.value.code == 2
    captured = capsys.readouterr()
    assert f"port {port} on 127.0.0.1 is in use" in captured.err and f"PORT={port + 1}" in captured.err
    assert "class server:" not in captured.err and not (tmp_path / "d").exists()  # nothing started, nothing made
