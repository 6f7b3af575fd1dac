"""JupyterHub serves the course to several learners, each with their own state (jupyterhub_config.py).

Starts JupyterHub on 127.0.0.1 with the course's config (shared-password authenticator, local
process spawner, homes under a temporary folder), checks that its start names nothing deprecated
and that `teacher` cannot log in with the learners' password, logs two learners in with Debian's headless chromium,
runs lesson 4's store cell (and one refund) as each in JupyterLab, and checks that each learner's
shop lives in their own home, and that each got their own class-server token from the hub. Slow
(two JupyterLabs and two kernels); skipped locally when
chromium, JupyterHub or configurable-http-proxy is missing, and failed in CI, which has them all.
"""

from __future__ import annotations

import hashlib
import json
import os
import secrets
import shutil
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import nbformat
import pytest

from course.classroom.learners import new_tokens, read_tokens
from tests.test_browser import CHROMIUM_ARGS, alive, dismiss_news, free_port, require_browser, unavailable

ROOT = Path(__file__).resolve().parents[1]
VENV = Path(sys.executable).parent.parent  # the environment running the tests is the course's
WAIT_MS = 120_000  # two kernels cold-starting on a busy 2-core machine
LEARNERS = {"anna": 10.0, "ben": 20.0}  # each refunds a different amount of A1002


def lesson4_store_cell() -> str:
    """Lesson 4's own first store cell, as the notebook has it."""
    nb = nbformat.read(ROOT / "notebooks" / "04_permissions.ipynb", as_version=4)
    return next(c.source for c in nb.cells if c.cell_type == "code" and "store.reset()" in c.source)


def write_notebook(path: Path, amount: float) -> None:
    nb = nbformat.v4.new_notebook()
    given = ('import hashlib, os\n'
             'print("class token", hashlib.sha256(os.environ["COURSE_MCP_TOKEN"].encode()).hexdigest()[:12], '
             '"for", os.environ["COURSE_MCP_URL"])')
    nb.cells = [nbformat.v4.new_code_cell(lesson4_store_cell()), nbformat.v4.new_code_cell(given),
                nbformat.v4.new_code_cell(f'refund = store.issue_refund("A1002", {amount}, "Mugs arrived broken.")\n'
                                          'from pathlib import Path\n'
                                          'print("refund", refund["refund_id"], "of", refund["amount"], "in",'
                                          ' Path.home().name)')]
    nb.metadata["kernelspec"] = {"name": "course", "display_name": "Python (course)", "language": "python"}
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, path)


def proxy_command() -> str | None:
    local = ROOT / ".cache" / "chp" / "node_modules" / ".bin" / "configurable-http-proxy"
    return str(local) if local.exists() else shutil.which("configurable-http-proxy")


class Hub:
    def __init__(self, tmp: Path):
        self.port, self.password = free_port(), secrets.token_urlsafe(12)
        self.homes, self.log = tmp / "homes", tmp / "jupyterhub.log"
        self.env = {k: v for k, v in os.environ.items() if k not in ("CI", "COURSE_APPROVER", "PYTEST_CURRENT_TEST")}
        self.env |= {"COURSE_HUB_PASSWORD": self.password, "COURSE_HUB_HOMES": str(self.homes),
                     "COURSE_HUB_STATE": str(tmp / "state"), "COURSE_HUB_URL": f"http://127.0.0.1:{self.port}",
                     "COURSE_VENV": str(VENV), "PYTHONPATH": str(ROOT)}  # the kernels import this tree
        self.args = [str(VENV / "bin" / "jupyterhub"), "-f", str(ROOT / "jupyterhub_config.py"),
                     f"--JupyterHub.hub_bind_url=http://127.0.0.1:{free_port()}",
                     f"--ConfigurableHTTPProxy.api_url=http://127.0.0.1:{free_port()}",
                     f"--ConfigurableHTTPProxy.command={proxy_command()}"]
        self.cwd = tmp
        self.process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        with open(self.log, "wb") as out:
            self.process = subprocess.Popen(self.args, env=self.env, cwd=self.cwd, stdout=out,
                                            stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise AssertionError(f"JupyterHub exited with {self.process.returncode}:\n{self.tail()}")
            try:
                with urllib.request.urlopen(f"{self.url}/hub/api/", timeout=5) as r:
                    if r.status == 200:
                        return
            except (OSError, urllib.error.URLError):
                pass
            time.sleep(0.3)
        raise AssertionError(f"JupyterHub did not answer on {self.url} within 90 s:\n{self.tail()}")

    def tail(self, lines: int = 40) -> str:
        return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:]) if self.log.exists() else ""

    def stop(self) -> None:
        """SIGTERM lets the hub stop the learners' servers and the proxy; then kill what is left, by group."""
        if self.process is None:
            return
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(5)
        try:
            os.killpg(self.process.pid, signal.SIGKILL)  # the proxy and servers share the hub's group
        except ProcessLookupError:
            pass


def learner_processes(homes: Path) -> list[int]:
    """Processes whose HOME is under `homes`: the learners' servers and kernels."""
    found = []
    for environ in Path("/proc").glob("[0-9]*/environ"):
        try:
            if f"HOME={homes}".encode() in environ.read_bytes():
                found.append(int(environ.parent.name))
        except OSError:
            continue
    return [pid for pid in found if alive(pid)]


def require_hub() -> None:
    if not (VENV / "bin" / "jupyterhub-singleuser").exists():
        unavailable("JupyterHub is not installed in the course's venv (`make test` installs the dev set).")
    if proxy_command() is None:
        unavailable("configurable-http-proxy is missing: `npm install --prefix .cache/chp configurable-http-proxy`"
                    " (.ci/run does it).")


@pytest.mark.browser
@pytest.mark.slow
def test_two_learners_on_one_hub_run_lesson_4_each_in_their_own_state(tmp_path):
    chromium = require_browser()
    require_hub()
    from playwright.sync_api import expect, sync_playwright

    hub = Hub(tmp_path)
    tokens = tmp_path / "tokens.txt"
    tokens.write_text(new_tokens(LEARNERS))
    token_of = {name: token for token, name in read_tokens(tokens).items()}
    hub.env |= {"COURSE_CLASS_TOKENS": str(tokens), "COURSE_MCP_URL": "http://127.0.0.1:8000/mcp"}
    for name, amount in LEARNERS.items():
        write_notebook(hub.homes / name / "lesson4.ipynb", amount)
    hub.start()
    try:
        started = hub.tail(200)
        assert "Using Authenticator: jupyterhub.authenticators.shared.SharedPasswordAuthenticator" in started
        assert "deprecat" not in started.lower(), "the hub's start names something deprecated"
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=chromium, headless=True, args=CHROMIUM_ARGS)
            try:
                page = browser.new_context().new_page()  # the learners' password does not make anyone admin
                page.goto(f"{hub.url}/hub/login")
                page.fill("#username_input", "teacher")
                page.fill("#password_input", hub.password)
                page.click("#login_submit")
                expect(page.get_by_text("Invalid username or password")).to_be_visible(timeout=WAIT_MS)
                for name, amount in LEARNERS.items():
                    page = browser.new_context().new_page()  # a context each: their own cookies
                    page.set_default_timeout(WAIT_MS)
                    page.goto(f"{hub.url}/hub/login")
                    page.fill("#username_input", name)
                    page.fill("#password_input", hub.password)
                    page.click("#login_submit")
                    page.wait_for_url(f"**/user/{name}/lab**", timeout=WAIT_MS)
                    page.goto(f"{hub.url}/user/{name}/lab/workspaces/t{secrets.token_hex(4)}/tree/lesson4.ipynb?reset")
                    expect(page.get_by_role("button", name="Python (course) | Idle")).to_be_visible(timeout=WAIT_MS)
                    expect(page.locator(".jp-Notebook .jp-CodeCell")).to_have_count(3, timeout=WAIT_MS)
                    dismiss_news(page)
                    page.get_by_role("menuitem", name="Run", exact=True).click()
                    page.locator('li[data-command="runmenu:run-all"]').click()
                    expect(page.get_by_text("store: llm-mcp-course/lesson4/shop.json")).to_be_visible(timeout=WAIT_MS)
                    expect(page.get_by_text(f"refund R-0001 of {amount} in {name}")).to_be_visible(timeout=WAIT_MS)
                    digest = hashlib.sha256(token_of[name].encode()).hexdigest()[:12]
                    expect(page.get_by_text(f"class token {digest} for http://127.0.0.1:8000/mcp")).to_be_visible(
                        timeout=WAIT_MS)
                    assert learner_processes(hub.homes / name), f"{name}'s server runs with their own HOME"
            finally:
                browser.close()
        for name, amount in LEARNERS.items():
            shop = hub.homes / name / ".local" / "state" / "llm-mcp-course" / "lesson4" / "shop.json"
            refunds = json.loads(shop.read_text())["refunds"]
            assert [(r["refund_id"], r["amount"]) for r in refunds] == [("R-0001", amount)], name
    except AssertionError as e:
        raise AssertionError(f"{e}\n--- jupyterhub.log ---\n{hub.tail()}") from None
    finally:
        hub.stop()
    deadline = time.monotonic() + 15
    while learner_processes(hub.homes) and time.monotonic() < deadline:
        time.sleep(0.5)
    assert not learner_processes(hub.homes), "a learner's server or kernel outlived the hub"
