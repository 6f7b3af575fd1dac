"""One switch for the model: scripted by default, a real or compatible server by environment."""

import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import nbformat
import openai
import pytest

from course import backend
from course.orders import shop_toolbox

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def clean_env(monkeypatch):
    for var in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "COURSE_BACKEND", "COURSE_MODEL"):
        monkeypatch.delenv(var, raising=False)
    return monkeypatch


def test_without_a_key_the_scripted_model_is_used(clean_env, capsys):
    b = backend.connect(offline=["hi"])
    assert b.kind == "scripted" and b.scripted is not None and b.model == backend.MODEL
    assert "offline: the scripted model" in capsys.readouterr().out


def test_a_key_selects_openai_and_a_base_url_a_compatible_server(clean_env):
    clean_env.setattr(backend, "preflight", lambda key, url: None)  # no network here
    clean_env.setenv("OPENAI_API_KEY", "sk-test")
    assert backend.connect(quiet=True).kind == "openai"
    clean_env.setenv("OPENAI_BASE_URL", "http://localhost:11434/v1")
    clean_env.delenv("OPENAI_API_KEY")
    b = backend.connect(quiet=True)
    assert b.kind == "compatible" and str(b.client.base_url).startswith("http://localhost:11434")


def test_course_backend_scripted_wins_over_a_key(clean_env):
    clean_env.setenv("OPENAI_API_KEY", "sk-test")
    clean_env.setenv("COURSE_BACKEND", "scripted")
    assert backend.connect(quiet=True).kind == "scripted"


def test_the_model_id_is_defined_once_and_can_be_overridden(clean_env):
    clean_env.setenv("COURSE_MODEL", "llama3.2")
    assert backend.connect(quiet=True).model == "llama3.2"
    texts = {p.name: p.read_text() for p in [*(ROOT / "course").rglob("*.py"), *(ROOT / "solutions").glob("*.py")]}
    for nb in (ROOT / "notebooks").glob("*.ipynb"):  # sources only: outputs may print the id
        texts[nb.name] = "".join(c.source for c in nbformat.read(nb, as_version=4).cells)
    assert [name for name, text in texts.items() if backend.MODEL in text] == ["model_id.py"]


def test_the_scripted_model_serves_a_story_to_other_processes():
    with subprocess.Popen([sys.executable, "-m", "course.scripted", "course.stories.lesson1:order_status"],
                          stdout=subprocess.PIPE, text=True) as server:  # the `with` closes its pipe
        try:
            url = server.stdout.readline().split()[-1]
            with openai.OpenAI(base_url=url, api_key="sk-test", max_retries=0) as client:
                r = client.chat.completions.create(model="gpt-5.5", tools=shop_toolbox().definitions(),
                                                   messages=[{"role": "user", "content": "Where is A1001?"}])
            assert r.choices[0].message.tool_calls[0].function.arguments == '{"order_id": "A1001"}'
        finally:
            server.terminate()
            server.wait(timeout=10)


def test_a_server_that_is_not_running_falls_back_to_the_scripted_model_with_a_hint(clean_env, capsys):
    clean_env.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")  # port 9 (discard): nothing listens
    b = backend.connect(offline=["hi"])
    out = capsys.readouterr().out
    assert b.kind == "scripted" and "nothing answered at http://127.0.0.1:9/v1" in out and "ollama serve" in out


def test_a_rejected_key_falls_back_with_a_hint(clean_env, capsys):
    class Reject(BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802
            body = b'{"error": {"message": "Incorrect API key provided", "type": "invalid_request_error"}}'
            self.send_response(401)
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Reject)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        clean_env.setenv("OPENAI_BASE_URL", f"http://127.0.0.1:{server.server_address[1]}/v1")
        b = backend.connect(offline=["hi"])
    finally:
        server.shutdown()
        server.server_close()
    assert b.kind == "scripted" and "API key was rejected (401)" in capsys.readouterr().out
