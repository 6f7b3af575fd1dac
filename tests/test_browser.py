"""Approve / Reject, and lesson 9's form, in a real browser: JupyterLab on 127.0.0.1, Debian's chromium driven
by Playwright.

The tests write small notebooks that ask through `choose_approver()` (which picks the buttons in a kernel when
CI and COURSE_APPROVER are unset), run them in JupyterLab, click Approve, Reject, Interrupt, reload the tab, and
check what the notebook shows and what the store file contains; one runs all of lesson 6 with nobody clicking.
The file's tests share one JupyterLab and one chromium (the `lab` fixture). Playwright never downloads a
browser: it drives the system's chromium (`apt-get install chromium`; `.ci/run` does it). Without chromium the
tests are skipped, except in CI, where they fail.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NoReturn

import nbformat
import pytest

from course.store import ShopStore

CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]
WAIT_MS = 60_000  # a cold kernel on a busy 2-core machine can take a while

SETUP = """\
from course.approval import choose_approver, guarded
from course.permissions import DecisionLog, Policy
from course.store import ShopStore
from course.tools import Toolbox

store = ShopStore({store!r})
store.reset()
toolbox = Toolbox(*store.write_tools())
log = DecisionLog()
approve = choose_approver(timeout=120)
execute = guarded(toolbox.execute, policy=Policy.for_tools(toolbox.tools.values()), approver=approve, log=log)
print("approver:", type(approve).__name__)
"""

ASK_TWICE = """\
first = await execute("issue_refund", '{"order_id": "A1001", "amount": 49, "reason": "Arrived broken."}')
second = await execute("cancel_order", '{"order_id": "A1003", "reason": "Ordered twice."}')
print("first:", first)
print("second:", second)
"""

REPORT = """\
print("decisions:", " ".join(e.decision for e in log))
print("A1003 is " + store.order("A1003")["status"] + ",", "refunded for A1001:", store.refunded("A1001"))
"""


def flag(name: str) -> bool:
    return os.environ.get(name, "").strip().lower() not in ("", "0", "false", "no")


def unavailable(reason: str) -> NoReturn:
    if flag("CI"):
        pytest.fail(f"{reason} CI must run the browser test: .ci/run installs chromium with apt.")
    pytest.skip(reason)


def find_chromium() -> str | None:
    return shutil.which("chromium") or ("/usr/bin/chromium" if os.access("/usr/bin/chromium", os.X_OK) else None)


def require_browser() -> str:
    """The chromium binary; skip without one, except in CI, where a missing browser fails."""
    path = find_chromium()
    if path is None:
        unavailable("Debian's chromium is not installed (`apt-get install chromium`); "
                    "the browser test drives it with Playwright and never downloads a browser.")
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        unavailable("playwright is not installed (`make setup` installs it).")
    return path


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def children(pid: int) -> list[int]:
    """Processes whose parent is `pid` (kernels run in their own session, so not in our process group)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            found.append(int(stat.parent.name))
    return found


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


class Lab:
    """A throw-away JupyterLab server: its own config, data, runtime and IPython folders."""

    def __init__(self, root: Path, home: Path):
        self.root, self.port, self.token = root, free_port(), secrets.token_hex(16)
        home.mkdir(parents=True, exist_ok=True)
        env = {k: v for k, v in os.environ.items()
               if k not in ("CI", "COURSE_APPROVER", "COURSE_HEADLESS", "PYTEST_CURRENT_TEST")}
        for var, sub in [("JUPYTER_CONFIG_DIR", "config"), ("JUPYTER_DATA_DIR", "data"),
                         ("JUPYTER_RUNTIME_DIR", "runtime"), ("IPYTHONDIR", "ipython")]:
            env[var] = str(home / sub)
        self.env = env
        self.log = home / "jupyterlab.log"
        self.process: subprocess.Popen | None = None
        self.browser: Any = None  # the fixture's chromium (playwright's Browser)
        self.kernels: set[int] = set()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def api(self, path: str, method: str = "GET") -> tuple[int, bytes]:
        request = urllib.request.Request(self.url + path, method=method,
                                         headers={"Authorization": f"token {self.token}"})
        try:
            with urllib.request.urlopen(request, timeout=5) as response:
                return response.status, response.read()
        except urllib.error.HTTPError as e:
            return e.code, e.read()

    def start(self) -> None:
        with open(self.log, "wb") as out:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "jupyterlab", "--allow-root", "--no-browser", "--ip=127.0.0.1",
                 f"--port={self.port}", "--ServerApp.port_retries=0", f"--IdentityProvider.token={self.token}",
                 f"--ServerApp.root_dir={self.root}", "--LabApp.news_url=None"],
                env=self.env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise AssertionError(f"JupyterLab exited with {self.process.returncode}:\n{self.tail()}")
            try:
                if self.api("/api/status")[0] == 200:
                    return
            except OSError:
                pass
            time.sleep(0.2)
        raise AssertionError(f"JupyterLab did not answer on {self.url} within 60 s:\n{self.tail()}")

    def tail(self, lines: int = 30) -> str:
        return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:]) if self.log.exists() else ""

    def shut_down(self, path: str, kernels: set[int]) -> None:
        """Shut down the kernel of the notebook at `path` (a test's), then kill `kernels` that are left, by pid."""
        self.kernels |= kernels
        with contextlib.suppress(OSError, ValueError):
            status, body = self.api("/api/sessions")
            for session in json.loads(body) if status == 200 else []:
                if session.get("path") == path:
                    self.api(f"/api/sessions/{session['id']}", "DELETE")
        deadline = time.monotonic() + 10
        while any(alive(pid) for pid in kernels) and time.monotonic() < deadline:
            time.sleep(0.1)
        for pid in kernels:
            if alive(pid):
                os.kill(pid, signal.SIGKILL)

    def stop(self) -> None:
        """Shut the kernels and the server down; kill whatever is left, by pid."""
        if self.process is None:
            return
        self.kernels |= set(children(self.process.pid))
        try:
            status, body = self.api("/api/kernels")
            for kernel in json.loads(body) if status == 200 else []:
                self.api(f"/api/kernels/{kernel['id']}", "DELETE")
            self.api("/api/shutdown", "POST")
            self.process.wait(10)
        except (OSError, subprocess.TimeoutExpired, ValueError):
            pass
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)  # the server and anything in its group
            try:
                self.process.wait(5)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(5)
        for pid in self.kernels:
            if alive(pid):
                os.kill(pid, signal.SIGKILL)


def write_notebook(path: Path, store: Path, cells: list | None = None) -> None:
    nb = nbformat.v4.new_notebook()
    nb.cells = cells or [nbformat.v4.new_code_cell(SETUP.format(store=str(store))),
                         nbformat.v4.new_code_cell(ASK_TWICE), nbformat.v4.new_code_cell(REPORT)]
    nb.metadata["kernelspec"] = {"name": "course", "display_name": "Python (course)", "language": "python"}
    nbformat.write(nb, path)


def course_kernel_installed(env: dict) -> bool:
    done = subprocess.run([sys.executable, "-m", "jupyter", "kernelspec", "list", "--json"], env=env,
                          capture_output=True, text=True, timeout=30)
    return done.returncode == 0 and "course" in json.loads(done.stdout).get("kernelspecs", {})


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Lab]:
    """One throw-away JupyterLab and one chromium for this file's browser tests: starting both took 6 s a
    test. Each test opens its own notebook, in its own folder, in a fresh browser context (no workspace, cookie
    or storage of another test), and `lab_page` shuts its kernel down. Module-scoped, not session-scoped:
    Playwright's sync API runs one instance at a time, and other files (the hub's) start their own. On the way
    out the browser closes and JupyterLab stops, and the server must be gone."""
    chromium = require_browser()
    from playwright.sync_api import sync_playwright

    base = tmp_path_factory.mktemp("jupyterlab")
    (base / "lab").mkdir()
    server = Lab(base / "lab", base / "home")
    assert course_kernel_installed(server.env), "the kernel 'course' is missing: run `make setup`."
    server.start()
    try:
        with sync_playwright() as p:
            server.browser = p.chromium.launch(executable_path=chromium, headless=True, args=CHROMIUM_ARGS)
            try:
                yield server
            finally:
                server.browser.close()
    finally:
        server.stop()
    assert server.process is not None and server.process.poll() is not None, "JupyterLab is still running"


@contextlib.contextmanager
def lab_page(lab: Lab, tmp_path: Path, name: str, cells=None, *, lesson: Path | None = None,
             first: str | None = None, **context) -> Iterator[tuple]:
    """(page, kernel pids, store path): notebook `name` open in the shared JupyterLab, its kernel idle and known.

    `cells(store_path)` gives the notebook's cells (the default asks twice); `lesson` is a course
    notebook to open instead (its outputs cleared), with the code cell `first` put before its own;
    `context` goes to chromium's new context (e.g. viewport). On the way out the page closes and the
    notebook's kernel is shut down (killed by pid if it stays)."""
    from playwright.sync_api import expect

    folder = lab.root / tmp_path.name  # a folder of its own: the kernel's working directory
    folder.mkdir()
    store_path = tmp_path / "shop.json"
    if lesson is not None:
        nb = nbformat.read(lesson, as_version=4)
        for cell in nb.cells:
            if cell.cell_type == "code":
                cell.outputs, cell.execution_count = [], None
        if first is not None:
            nb.cells.insert(0, nbformat.v4.new_code_cell(first))
        nbformat.write(nb, folder / name)
    else:
        write_notebook(folder / name, store_path, cells(store_path) if cells else None)
    assert lab.process is not None and lab.browser is not None  # started by the fixture
    before = set(children(lab.process.pid))
    kernels: set[int] = set()
    browser = lab.browser.new_context(**context)
    try:
        page = browser.new_page()
        page.set_default_timeout(WAIT_MS)
        # A fresh workspace: restoring an old one can open a "Select Kernel" dialog.
        page.goto(f"{lab.url}/lab/workspaces/t{secrets.token_hex(4)}/tree/{folder.name}/{name}"
                  f"?reset&token={lab.token}")
        # The kernel is up and connected (running earlier opens a "Select Kernel" dialog).
        expect(page.get_by_role("button", name="Python (course) | Idle")).to_be_visible(timeout=WAIT_MS)
        kernels |= set(children(lab.process.pid)) - before
        dismiss_news(page)
        yield page, kernels, store_path
    finally:
        browser.close()
        lab.shut_down(f"{folder.name}/{name}", kernels)


def run_all(page) -> None:
    page.get_by_role("menuitem", name="Run", exact=True).click()
    page.locator('li[data-command="runmenu:run-all"]').click()


@pytest.mark.parametrize("ci, outcome", [("", pytest.skip.Exception), ("true", pytest.fail.Exception)])
def test_a_missing_browser_is_skipped_locally_but_fails_in_ci(monkeypatch, ci, outcome):
    monkeypatch.setattr(sys.modules[__name__], "find_chromium", lambda: None)
    monkeypatch.setenv("CI", ci)
    with pytest.raises(outcome, match="chromium is not installed"):
        require_browser()


@pytest.mark.browser
def test_approve_then_reject_change_the_store_only_for_the_approved_call_and_interrupt_ends_a_wait(lab, tmp_path):
    from playwright.sync_api import expect

    with lab_page(lab, tmp_path, "approval.ipynb", approval_notebook) as (page, kernels, store_path):
        expect(page.locator(".jp-Notebook .jp-CodeCell")).to_have_count(4, timeout=WAIT_MS)
        run_all(page)

        expect(page.get_by_text("approver: WidgetApprover")).to_be_visible(timeout=WAIT_MS)
        page.get_by_role("button", name="Approve", disabled=False).click()
        expect(page.get_by_text("approved", exact=True)).to_be_visible(timeout=WAIT_MS)
        # The second prompt appears only after the first is answered.
        page.get_by_role("button", name="Reject", disabled=False).click()
        expect(page.get_by_text("rejected", exact=True)).to_be_visible(timeout=WAIT_MS)

        expect(page.get_by_text("second: cancel_order was not run: the user rejected this action; "
                                "do not retry without a new request.")).to_be_visible(timeout=WAIT_MS)
        expect(page.get_by_text("decisions: approved rejected")).to_be_visible(timeout=WAIT_MS)
        expect(page.get_by_text("A1003 is processing, refunded for A1001: 49.0")).to_be_visible(timeout=WAIT_MS)

        # The third prompt (600 s to wait): Interrupt ends its wait at once, with one line and no traceback.
        approve = page.get_by_role("button", name="Approve", disabled=False)
        expect(approve).to_be_visible(timeout=WAIT_MS)
        interrupt(page, until=page.get_by_text("Interrupted: the prompt for issue_refund was cancelled, so nothing "
                                               "was run."))
        expect(page.get_by_role("button", name="Python (course) | Idle")).to_be_visible(timeout=WAIT_MS)
        assert page.get_by_text("CancelledError").count() == 0
        assert page.get_by_text("Waiting for your decision").count() == 0
        assert approve.count() == 0
        assert page.get_by_role("button", name="Reject", disabled=False).count() == 0
    store = ShopStore(store_path)
    assert [(r["order_id"], r["amount"]) for r in store.refunds()] == [("A1001", 49.0)]
    assert store.order("A1003")["status"] == "processing"
    assert kernels and not [pid for pid in kernels if alive(pid)], "a kernel outlived the test"


def interrupt(page, until) -> None:
    """Kernel > Interrupt Kernel until `until` shows. Right after a reload the menu can open before the notebook's
    kernel is connected, with the item disabled, and an open menu does not update: waiting on it once took the
    whole 60 s (and failed a quiet serial run), so a disabled item closes the menu and it opens again."""
    from playwright.sync_api import TimeoutError as NotYet

    deadline = time.monotonic() + WAIT_MS / 1000
    while True:
        page.get_by_role("menuitem", name="Kernel", exact=True).click(timeout=WAIT_MS)
        try:
            page.locator('li[data-command="kernelmenu:interrupt"]').click(timeout=2_000)
            until.wait_for(state="visible", timeout=5_000)
            return
        except NotYet:
            assert time.monotonic() < deadline, "Interrupt did not end the wait"
            page.keyboard.press("Escape")  # the menu, if it is still open


def saved_with_prompt(path: Path, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while "application/vnd.jupyter.widget-view+json" not in path.read_text():
        assert time.monotonic() < deadline, "JupyterLab did not save the notebook with its prompt"
        time.sleep(0.2)


def dismiss_news(page) -> None:
    """JupyterLab may ask whether to fetch its news; the toast can cover buttons."""
    no = page.get_by_role("button", name="No", exact=True)
    if no.count():
        no.first.click()


UNANSWERED = """\
missed = await execute("issue_refund", '{"order_id": "A1001", "amount": 49, "reason": "Arrived broken."}')
print("missed:", missed)
"""

INTERRUPTED = """\
from course.approval import WidgetApprover

patient = guarded(toolbox.execute, policy=Policy.for_tools(toolbox.tools.values()),
                  approver=WidgetApprover(timeout=600), log=log)
await patient("issue_refund", '{"order_id": "A1002", "amount": 32.5, "reason": "Never arrived."}')
"""


def approval_notebook(store: Path) -> list:
    new = nbformat.v4.new_code_cell
    return [new(SETUP.format(store=str(store))), new(ASK_TWICE), new(REPORT), new(INTERRUPTED)]


AFTER_RELOAD = """\\
second = await execute("cancel_order", '{"order_id": "A1003", "reason": "Ordered twice."}')
print("second:", second)
"""


def reload_notebook(store: Path) -> list:
    new = nbformat.v4.new_code_cell
    return [new(SETUP.format(store=str(store)).replace("timeout=120", "timeout=600")), new(UNANSWERED),
            new(AFTER_RELOAD)]


@pytest.mark.browser
def test_a_prompt_waiting_when_the_tab_reloads_can_still_be_answered_or_cancelled(lab, tmp_path):
    from playwright.sync_api import expect

    with lab_page(lab, tmp_path, "reload.ipynb", reload_notebook) as (page, _, store_path):
        idle = page.get_by_role("button", name="Python (course) | Idle")
        run_all(page)
        approve = page.get_by_role("button", name="Approve", disabled=False)
        expect(approve).to_be_visible(timeout=WAIT_MS)

        # Reloaded before any save: the buttons are gone, and Interrupt frees the kernel at once.
        page.reload()
        interrupt(page, until=idle)

        # Saved while waiting (as JupyterLab's autosave does), then reloaded: the prompt answers.
        page.locator(".jp-Notebook .jp-CodeCell").nth(2).locator(".jp-InputArea-prompt").click()
        page.keyboard.press("Shift+Enter")
        expect(approve).to_be_visible(timeout=WAIT_MS)
        page.keyboard.press("Control+s")
        saved_with_prompt(lab.root / tmp_path.name / "reload.ipynb")
        page.reload()
        approve.click(timeout=WAIT_MS)
        expect(page.get_by_text("approved", exact=True)).to_be_visible(timeout=WAIT_MS)
        expect(idle).to_be_visible(timeout=WAIT_MS)
    store = ShopStore(store_path)
    assert store.refunds() == [] and store.order("A1003")["status"] == "cancelled"


LESSON_6 = Path(__file__).parent.parent / "notebooks" / "06_mcp_client.ipynb"
PROMPTS_IN_LESSON_6 = 4  # the ticket, the refund, the refund of each agent run (sections 4-6)
# Each prompt of lesson 6 waits this long for nobody. It only needs to outlast the time a prompt takes to come on
# screen, which the test checks while the prompt still waits (an enabled button), so a slow machine fails loudly
# rather than passing unseen: each came on screen within 0.15 s of showing, with both cores busy besides.
REHEARSAL_TIMEOUT = 3
REHEARSAL = (f'import os\n\nos.environ["COURSE_APPROVAL_TIMEOUT"] = "{REHEARSAL_TIMEOUT}"  '
             "# the test's: nobody clicks, each prompt times out")


@pytest.mark.browser
@pytest.mark.timeout(900)
def test_under_run_all_of_lesson_6_with_nobody_clicking_every_prompt_is_on_screen_when_it_appears(lab, tmp_path):
    """Issue 22.6: the first prompt sat below the visible screen and timed out unseen. Each prompt must
    come into the viewport by itself while it waits (a screenshot of each is kept in the test's folder),
    a missed one says so and the lesson goes on to its end, and the decision log's table must not wrap
    in a 1400-px window."""
    from playwright.sync_api import expect

    with lab_page(lab, tmp_path, "06_mcp_client.ipynb", lesson=LESSON_6, first=REHEARSAL,
                  viewport={"width": 1400, "height": 900}) as (page, _, _store):
        run_all(page)
        waiting = page.locator("[class*=course-approval-]").filter(has=page.get_by_role("button", name="Reject",
                                                                                        disabled=False))
        for n in range(1, PROMPTS_IN_LESSON_6 + 1):
            waiting.first.wait_for(timeout=300_000)  # the next prompt has appeared (checked in the page, at once)
            assert waiting.count() == 1, "two prompts wait at once"
            marker = next(c for c in waiting.first.get_attribute("class").split() if c.startswith("course-approval-"))
            prompt = page.locator(f".{marker}")
            # On screen, nobody scrolling, while it still waits (an enabled button, before its timeout).
            expect(prompt.get_by_role("button", name="Reject", disabled=False)).to_be_in_viewport(
                timeout=REHEARSAL_TIMEOUT * 1000)
            page.screenshot(path=str(tmp_path / f"prompt-{n}.png"))
            # Nobody clicks: it times out (the next one may appear at once, so follow this one by its marker).
            prompt.get_by_role("button", name="Reject", disabled=False).wait_for(state="detached", timeout=60_000)
        expect(page.get_by_text("child processes still running: []")).to_be_visible(timeout=300_000)
        # The first missed prompt says what happened and what to do, and so does the call's result.
        for text in (f"no decision within {REHEARSAL_TIMEOUT} s, so it counts as rejected; nothing was run. "
                     "To be asked again, run this cell again.", "create_ticket was not run: nobody approved"):
            said = page.get_by_text(text).first
            said.scroll_into_view_if_needed()
            expect(said).to_be_visible()
        # The decision log's table: with its lines unwrapped, it must still fit the output's width.
        table = page.locator(".jp-OutputArea-output pre").filter(has_text="decision  decided by").first
        table.scroll_into_view_if_needed()
        widths = table.evaluate("""el => { const before = el.style.whiteSpace; el.style.whiteSpace = "pre";
            const fit = {needs: el.scrollWidth, has: el.clientWidth}; el.style.whiteSpace = before; return fit; }""")
        assert widths["needs"] <= widths["has"], f"the decision log wraps: {widths}"
        table.screenshot(path=str(tmp_path / "decision-log.png"))
    assert [p.name for p in sorted(tmp_path.glob("prompt-*.png"))] == [f"prompt-{n}.png" for n in range(1, 5)]
    assert (tmp_path / "decision-log.png").exists()


# Lesson 9's elicitation form (here, not in a file of its own, so that it shares this file's JupyterLab). The
# server asks which order; the test presses Send on an empty form (nothing is sent: the form names the required
# field), fills it in and sends; the next question is declined. Then the server's own record says one refund,
# for the order picked in the form.
FORM_SETUP = """\
from course.beyond import Desk, choose_answerer
from course.beyond.shop import build_server

server = build_server()
desk = await Desk(server, choose_answerer(timeout=120)).__aenter__()
print("asks with a form")
"""

FORM_ASK = """\
first = await desk.execute("issue_refund", '{"email": "leo@example.com", "amount": 80}')
print("first:", first)
second = await desk.execute("issue_refund", '{"email": "leo@example.com", "amount": 15}')
print("second:", second)
print("refunds:", server.refunds, "| outcomes:", [a.outcome for a in desk.asked])
"""


def form_notebook(_store) -> list:
    return [nbformat.v4.new_code_cell(FORM_SETUP), nbformat.v4.new_code_cell(FORM_ASK)]


@pytest.mark.browser
def test_lesson_9s_form_is_filled_checked_sent_and_the_next_question_declined(lab, tmp_path):
    from playwright.sync_api import expect

    with lab_page(lab, tmp_path, "form.ipynb", form_notebook) as (page, _kernels, _store):
        run_all(page)
        send = page.get_by_role("button", name="Send", disabled=False)
        expect(send).to_be_visible(timeout=WAIT_MS)
        expect(page.get_by_text("leo@example.com has 2 orders: which one should get 80.00 EUR back?")).to_be_visible()
        expect(page.get_by_text("Refund 80.00 EUR (over 50)?")).to_be_visible()  # each field's description

        send.click()  # nothing chosen yet: the form says what is missing and stays open
        expect(page.get_by_text("Order Id: required.")).to_be_visible(timeout=WAIT_MS)

        page.locator(".widget-dropdown select").first.select_option("A1004")
        page.locator(".widget-checkbox input[type=checkbox]").first.check()
        page.locator(".widget-text input").first.fill("Sorry for the wait")
        send.click()
        expect(page.get_by_text("first: Refunded 80.00 EUR to A1004.")).to_be_visible(timeout=WAIT_MS)

        page.get_by_role("button", name="Decline", disabled=False).click()
        expect(page.get_by_text("second: No refund: the human chose decline.")).to_be_visible(timeout=WAIT_MS)
        expect(page.get_by_text("refunds: [('A1004', 80.0)] | outcomes: ['accepted', 'decline']")).to_be_visible()
        assert page.get_by_role("button", name="Send", disabled=False).count() == 0
