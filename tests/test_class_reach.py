"""The hub's check of COURSE_MCP_URL at its start (course/classroom/reach.py), against a real class server."""

import http.server
import threading

import pytest

from course.classroom.learners import new_tokens, read_tokens, write_tokens
from course.classroom.reach import class_server_problem, what_answered
from course.classroom.server import serving
from course.processes import free_port


@pytest.fixture(scope="module")
def class_server(tmp_path_factory):
    """(its /mcp URL, a learner's token it knows, its --data folder)."""
    folder = tmp_path_factory.mktemp("class")
    tokens = folder / "tokens.txt"
    write_tokens(tokens, new_tokens(["anna", "ben"]))
    with serving(tokens, "--embedder", "lexical", "--data", str(folder / "data")) as url:
        yield url, next(iter(read_tokens(tokens))), folder / "data"


def test_a_class_server_that_knows_the_hubs_tokens_passes_and_keeps_no_trace_of_the_check(class_server):
    url, token, data = class_server
    assert class_server_problem(url, token) is None
    assert not data.exists() or not any(data.iterdir())  # no learner's folder: `make class-status` shows nothing


def test_a_class_server_started_with_another_tokens_file_is_named_as_such(class_server):
    url, _, _ = class_server
    other = new_tokens(["anna"]).splitlines()[1].split()[1]  # anna's token in another tokens file
    assert "started with another tokens file" in (class_server_problem(url, other) or "")


@pytest.mark.parametrize(("change", "said"), [
    (lambda url: url.removesuffix("/mcp") + "/mpc", "the class server's path is /mcp"),
    (lambda url: f"http://127.0.0.1:{free_port()}/mcp", "No class server answers"),
    (lambda url: "127.0.0.1:8000/mcp", "is not a web address"),
])
def test_a_wrong_class_server_url_is_a_message_that_says_what_to_do(class_server, change, said):
    url, token, _ = class_server
    problem = class_server_problem(change(url), token, timeout=2)
    assert problem is not None and said in problem, problem


def test_a_name_the_class_server_does_not_allow_is_told_with_the_flag_that_allows_it():
    said = what_answered("http://192.168.1.20:8000/mcp", 421, "start it first")
    assert "--allow-host 192.168.1.20" in said


def test_a_server_that_asks_for_no_token_is_not_taken_for_the_class_server():
    class Open(http.server.BaseHTTPRequestHandler):
        def do_POST(self):  # noqa: N802 (the standard library's name)
            self.send_response(200)
            self.end_headers()

        def log_message(self, *args):
            pass

    server = http.server.HTTPServer(("127.0.0.1", 0), Open)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        problem = class_server_problem(f"http://127.0.0.1:{server.server_port}/mcp", "anna-token", timeout=2)
    finally:
        server.shutdown()
        server.server_close()  # shutdown() stops the loop; the listening socket stays open until closed
    assert problem is not None and "asks for no token: it is not the class server" in problem
