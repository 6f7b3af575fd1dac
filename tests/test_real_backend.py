"""The real-model path: each lesson runs unchanged when OPENAI_BASE_URL points at a server.

The server is the scripted model served over HTTP with the lesson's own story, so the
notebook takes the `compatible` branch of `connect()`: no `backend.scripted`, real HTTP.
"""

from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from course.scripted import ScriptedModel
from course.stories import lesson1, lesson2, lesson3, lesson4, lesson6, lesson7

ROOT = Path(__file__).resolve().parents[1]
STORIES = {
    "01_tool_calling": lesson1.order_status,
    "02_agent_loop": lesson2.latest_order,
    "03_document_search": lesson3.document_search,
    "04_permissions": lesson4.support_desk,
    "06_mcp_client": lesson6.refund_desk,
    "07_model_adapters": lesson7.policy_desk,  # through Chat Completions and the Responses API
}


@pytest.mark.timeout(180)
@pytest.mark.parametrize("name", sorted(STORIES))
def test_the_lesson_runs_unchanged_against_an_openai_compatible_server(name, monkeypatch):
    nb = nbformat.read(ROOT / f"notebooks/{name}.ipynb", as_version=4)
    server = ScriptedModel(STORIES[name])
    with server.serve() as url:
        # The kernel inherits this process's environment.
        monkeypatch.delenv("COURSE_BACKEND", raising=False)
        monkeypatch.delenv("PYTEST_CURRENT_TEST", raising=False)
        monkeypatch.setenv("OPENAI_BASE_URL", url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
        NotebookClient(nb, timeout=120, kernel_name="course",
                       resources={"metadata": {"path": str(ROOT / "notebooks")}}).execute()
    shown = "".join(o.get("text", "") for c in nb.cells if c.cell_type == "code" for o in c.outputs)
    assert f"OpenAI-compatible server at {url}" in shown
    assert "the scripted model instead" not in shown
    streamed = {e["endpoint"] for e in server.exchanges if e["request"].get("stream")}
    if name == "07_model_adapters":  # the same MCP half, through both APIs, streaming too
        assert {e["endpoint"] for e in server.exchanges} == {"chat", "responses"} == streamed
