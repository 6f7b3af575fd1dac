"""A room on one JupyterHub: each learner is a system user of their own, and the OS keeps them apart.

Starts JupyterHub as root with the course's config (jupyterhub_config.py: a system user per
learner, their own password, homes 0700) and the class MCP server, logs two learners in with
Debian's headless chromium, runs lesson 6's class-server cells as each in JupyterLab (each gets
their own token and workspace), then, from learner A's kernel, tries what a curious learner
would: list and read learner B's home, read B's processes' environment (B's class token), the
tokens file, the teacher's password and the hub's state, and open /hub/admin; all refused. A
wrong password and a learner typing `teacher` are refused at the log-in page. The accounts are
made by the hub (`useradd`) and removed afterwards. Slow (two JupyterLabs and two kernels);
skipped locally when not root or when chromium, JupyterHub or configurable-http-proxy is
missing, and failed in CI (root, with them all).
"""

from __future__ import annotations

import json
import os
import pwd
import secrets
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

import nbformat
import pytest

from course.classroom.learners import new_tokens, read_tokens, write_tokens
from course.classroom.server import serving
from tests.test_browser import CHROMIUM_ARGS, alive, dismiss_news, free_port, require_browser, unavailable

ROOT = Path(__file__).resolve().parents[1]
VENV = Path(sys.executable).parent.parent  # the environment running the tests is the course's
WAIT_MS = 120_000  # two kernels cold-starting on a busy 2-core machine


def lesson6_cell(marker: str) -> str:
    """Lesson 6's own cell that holds `marker`, as the notebook has it."""
    nb = nbformat.read(ROOT / "notebooks" / "06_mcp_client.ipynb", as_version=4)
    return next(c.source for c in nb.cells if c.cell_type == "code" and marker in c.source)


SEARCH = """\
from course.approval import AutoApprover

async with McpHost(approver=AutoApprover(True)) as web:
    await web.connect("docs", http(url, token=TOKEN), allow={"search_docs", "create_ticket"})
    found = json.loads(await web.execute("search_docs", '{"query": "refund window", "k": 1}'))
    ticket = await web.execute("create_ticket", '{"order_id": "A1002", "subject": "Mugs", "message": "Broken."}')
print("searched", len(found["hits"]), "hit;", "ticket", json.loads(ticket)["ticket_id"], "as", os.environ["USER"])
"""

# What a curious learner tries from their own kernel: every attempt must end in an OSError or a refusal.
ATTACKS = """\
import json, os, pwd, urllib.error, urllib.request
from pathlib import Path

other = pwd.getpwnam({other!r})
tried = {{}}
def attempt(what, do):
    try:
        got = do()
        tried[what] = f"READ {{str(got)[:80]!r}}"
    except (OSError, urllib.error.HTTPError) as e:
        tried[what] = f"refused ({{type(e).__name__}})"

attempt("list the other learner's home", lambda: os.listdir(other.pw_dir))
attempt("read the other learner's notebook", lambda: Path(other.pw_dir, "lesson6.ipynb").read_text())
theirs = [p for p in Path("/proc").glob("[0-9]*") if p.joinpath("status").exists()
          and f"Uid:\\t{{other.pw_uid}}\\t" in p.joinpath("status").read_text()]
tried["the other learner's processes"] = f"{{len(theirs)}} running"
for p in theirs[:3]:
    attempt(f"read /proc/{{p.name}}/environ (their token)", lambda p=p: p.joinpath("environ").read_bytes())
attempt("read the tokens file", lambda: Path({tokens!r}).read_text())
attempt("read the teacher's password", lambda: Path({state!r}, "admin-password").read_text())
attempt("list the hub's state", lambda: os.listdir({state!r}))
api = os.environ["JUPYTERHUB_API_URL"]
attempt("the hub's user list with my own hub token", lambda: urllib.request.urlopen(urllib.request.Request(
    f"{{api}}/users", headers={{"Authorization": "token " + os.environ["JUPYTERHUB_API_TOKEN"]}})).read())
Path("attacks.json").write_text(json.dumps(tried))
print("attacks:", sum(v.startswith("refused") for v in tried.values()), "refused,",
      sum(v.startswith("READ") for v in tried.values()), "read")
"""


def write_notebook(path: Path, *extra: str) -> None:
    nb = nbformat.v4.new_notebook()
    cells = [lesson6_cell("DOCS_ARGS = ("), lesson6_cell("docs_endpoint(*DOCS_ARGS)"),
             "import json, os\n" + SEARCH, *extra]
    nb.cells = [nbformat.v4.new_code_cell(source) for source in cells]
    nb.metadata["kernelspec"] = {"name": "course", "display_name": "Python (course)", "language": "python"}
    nbformat.write(nb, path)


def proxy_command() -> str | None:
    local = ROOT / ".cache" / "chp" / "node_modules" / ".bin" / "configurable-http-proxy"
    return str(local) if local.exists() else shutil.which("configurable-http-proxy")


class Hub:
    def __init__(self, tmp: Path, homes: Path):
        self.port, self.password = free_port(), secrets.token_urlsafe(12)
        self.homes, self.log, self.state = homes, tmp / "jupyterhub.log", tmp / "state"
        self.env = {k: v for k, v in os.environ.items() if k not in ("CI", "COURSE_APPROVER", "PYTEST_CURRENT_TEST")}
        self.env |= {"COURSE_HUB_PASSWORD": self.password, "COURSE_HUB_HOMES": str(self.homes),
                     "COURSE_HUB_STATE": str(self.state), "COURSE_HUB_URL": f"http://127.0.0.1:{self.port}",
                     "COURSE_VENV": str(VENV), "PYTHONPATH": str(ROOT),
                     "COURSE_HUB_RUNTIME": str(homes / ".runtime")}  # the kernels import this tree
        self.args = [str(VENV / "bin" / "jupyterhub"), "-f", str(ROOT / "jupyterhub_config.py"),
                     f"--JupyterHub.hub_bind_url=http://127.0.0.1:{free_port()}",
                     f"--ConfigurableHTTPProxy.api_url=http://127.0.0.1:{free_port()}",
                     f"--ConfigurableHTTPProxy.command={proxy_command()}"]
        self.cwd = tmp
        self.process: subprocess.Popen | None = None
        self.stopped = "the hub was not running"

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
            began = time.monotonic()
            try:  # each server may take the spawner's 10 + 5 + 5 s to stop; a loaded machine makes it longer
                self.process.wait(60)
                self.stopped = f"the hub stopped {time.monotonic() - began:.1f} s after SIGTERM"
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(5)
                self.stopped = "the hub had not stopped 60 s after SIGTERM: killed"
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
                    " (`make test` does it when npm is there).")


def remove_accounts(names) -> None:
    """Delete the accounts the hub made for this test (marked as the course's), with their homes: a server or kernel
    that outlived the hub is ended first (`userdel` refuses while one runs; once, two of each ran on for an hour)."""
    from course.classroom.hub import made_by_the_hub
    from course.classroom.rehearsal_hub import remove_account

    for name in names:
        if made_by_the_hub(name):
            remove_account(name)


def log_in(browser, hub: Hub, name: str, password: str):
    page = browser.new_context().new_page()  # a context each: their own cookies
    page.set_default_timeout(WAIT_MS)
    page.goto(f"{hub.url}/hub/login")
    page.fill("#username_input", name)
    page.fill("#password_input", password)
    page.click("#login_submit")
    return page


def open_notebook(page, hub: Hub, name: str, notebook: str) -> None:
    """Open `notebook` in `name`'s JupyterLab; its kernel starts (run_all waits for it)."""
    page.goto(f"{hub.url}/user/{name}/lab/workspaces/t{secrets.token_hex(4)}/tree/{notebook}?reset")


def run_all(page) -> None:
    from playwright.sync_api import expect

    expect(page.get_by_role("button", name="Python (course) | Idle")).to_be_visible(timeout=WAIT_MS)
    dismiss_news(page)
    page.get_by_role("menuitem", name="Run", exact=True).click()
    page.locator('li[data-command="runmenu:run-all"]').click()


@pytest.mark.browser
@pytest.mark.slow
@pytest.mark.timeout(600)
def test_two_learners_each_their_own_system_user_run_lesson_6_and_cannot_reach_each_other(tmp_path):
    chromium = require_browser()
    require_hub()
    if os.getuid() != 0:
        unavailable("the hub creates a system user per learner: run as root (CI does).")
    from playwright.sync_api import expect, sync_playwright

    tag = secrets.token_hex(3)
    anna, ben = f"anna{tag}", f"ben{tag}"  # fresh names: never an account of this machine
    homes = Path(tempfile.mkdtemp(prefix="course-hub-", dir="/tmp"))
    homes.chmod(0o755)  # as /home: anyone may pass through, each home inside is its owner's
    tokens = homes / "tokens.txt"
    write_tokens(tokens, new_tokens([anna, ben]))  # root's, 0600
    token_of = {name: token for token, name in read_tokens(tokens).items()}
    hub = Hub(tmp_path, homes)
    from course.classroom.hub import made_by_the_hub

    teacher_existed = made_by_the_hub("teacher") is not None
    try:
        with serving(tokens, "--embedder", "lexical", "--data", str(tmp_path / "class")) as class_url:
            hub.env |= {"COURSE_CLASS_TOKENS": str(tokens), "COURSE_MCP_URL": class_url}
            hub.start()
            started = hub.tail(200)
            assert "CourseAuthenticator" in started, started
            assert "deprecat" not in started.lower(), "the hub's start names something deprecated"
            assert stat.S_IMODE(hub.state.stat().st_mode) == 0o700
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=chromium, headless=True, args=CHROMIUM_ARGS)
                try:
                    # Both log in, then both run at once (their servers and kernels start side by side, as in a
                    # class); ben's server is up before anna's notebook runs, so her kernel finds his processes.
                    pages = {name: log_in(browser, hub, name, hub.password) for name in (ben, anna)}
                    for name, page in pages.items():
                        page.wait_for_url(f"**/user/{name}/lab**", timeout=WAIT_MS)
                        home = Path(pwd.getpwnam(name).pw_dir)
                        assert stat.S_IMODE(home.stat().st_mode) == 0o700 and home.stat().st_uid != 0, name
                        extra = [ATTACKS.format(other=ben, tokens=str(tokens), state=str(hub.state))] \
                            if name == anna else []
                        write_notebook(home / "lesson6.ipynb", *extra)
                        os.chown(home / "lesson6.ipynb", home.stat().st_uid, home.stat().st_gid)
                    for name, page in pages.items():
                        open_notebook(page, hub, name, "lesson6.ipynb")
                    # While their kernels start: a learner typing `teacher`, and anna with a wrong password.
                    for page in [log_in(browser, hub, "teacher", hub.password),
                                 log_in(browser, hub, anna, hub.password + "x")]:
                        expect(page.get_by_text("Invalid username or password")).to_be_visible(timeout=WAIT_MS)
                    for page in pages.values():
                        run_all(page)
                    for name, page in pages.items():
                        expect(page.get_by_text(f"ticket T-0001 as {name}")).to_be_visible(timeout=WAIT_MS)
                    expect(pages[anna].locator("pre", has_text="attacks:")).to_be_visible(timeout=WAIT_MS)
                    tried = json.loads((Path(pwd.getpwnam(anna).pw_dir) / "attacks.json").read_text())
                    assert int(tried["the other learner's processes"].split()[0]) > 0, tried  # ben is running
                    read = {what: how for what, how in tried.items() if how.startswith("READ")}
                    assert not read, f"learner A reached: {read}"
                    assert sum(how.startswith("refused") for how in tried.values()) >= 7, tried
                    admin = pages[anna].goto(f"{hub.url}/hub/admin")
                    assert admin is not None and admin.status == 403, "a learner got the admin page"
                finally:
                    browser.close()
            for name in (anna, ben):  # each learner's own workspace on the class server, by their own token
                shop = json.loads((tmp_path / "class" / name / "shop.json").read_text())
                assert [t["ticket_id"] for t in shop["tickets"]] == ["T-0001"], name
            assert all(token_of[n] not in hub.tail(2000) for n in token_of), "a class token reached the hub's log"
    except Exception as e:  # a browser timeout too: the hub's log says why
        raise AssertionError(f"{e}\n--- jupyterhub.log ---\n{hub.tail()}") from None
    finally:
        hub.stop()
        deadline = time.monotonic() + 30
        while learner_processes(homes) and time.monotonic() < deadline:
            time.sleep(0.1)
        left = learner_processes(homes)
        remove_accounts([anna, ben] + ([] if teacher_existed else ["teacher"]))
        shutil.rmtree(homes, ignore_errors=True)
    assert not left, f"a learner's server or kernel outlived the hub by 30 s ({hub.stopped})"
