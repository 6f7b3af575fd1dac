"""The rehearsal on a real JupyterHub (as root): N learners log in, get their server, run lesson 6's calls in a kernel.

`make class-rehearsal N=20` runs this when it can (root, JupyterHub in the course's venv, configurable-http-proxy
from `make hub`), else the class-server-only rehearsal (`rehearsal.py`); it says which. Here, in temporary
folders (removed afterwards): a tokens file for N fresh names, the class server, and the hub with this course's
`jupyterhub_config.py` (a system user per learner, first-use passwords). Each simulated learner logs in through
the hub's log-in form (their password set there), asks the hub for an API token of their own, starts their
server, opens a kernel "Python (course)" in it and runs lesson 6 §6's calls there against the class server
with their own token, as their own system user. Measured: log-in to a ready server, the lesson's calls, and the
memory of each learner's processes (their server and kernel) and of the class server. The accounts the hub
made are deleted at the end.
"""

from __future__ import annotations

import json
import os
import pwd
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

from course import paths

VENV = Path(sys.executable).parent.parent
PROXY = paths.ROOT / ".cache" / "chp" / "node_modules" / ".bin" / "configurable-http-proxy"
WAIT = 300.0  # seconds: N servers cold-starting on a small machine
LESSON = """\
import json, os, time
from course.approval import AutoApprover
from course.classroom.endpoint import class_server
from course.host import McpHost, http
url, token = class_server()
start = time.perf_counter()
async with McpHost(approver=AutoApprover(True), quiet=True, timeout=120) as host:
    await host.connect("shop", http(url, token=token), allow={"search_docs", "get_order_record", "create_ticket",
                                                              "issue_refund"})
    await host.execute("search_docs", '{"query": "how long do refunds take", "k": 3}')
    await host.execute("get_order_record", '{"order_id": "A1002"}')
    await host.execute("create_ticket", '{"order_id": "A1002", "subject": "Mugs", "message": "Two arrived broken."}')
    await host.execute("issue_refund", '{"order_id": "A1002", "amount": 5.0, "reason": "One mug arrived broken."}')
    errors = sum(o.is_error for o in host.outcomes)
print(json.dumps({"user": os.environ["USER"], "errors": errors, "seconds": time.perf_counter() - start}))
"""


def possible() -> str | None:
    """Why the hub rehearsal cannot run here (None: it can)."""
    if os.getuid() != 0:
        return "not root (the hub creates a system user per learner)"
    if not (VENV / "bin" / "jupyterhub").exists():
        return "JupyterHub is not in the course's venv (`make hub` installs it)"
    if not (PROXY.exists() or shutil.which("configurable-http-proxy")):
        return "configurable-http-proxy is missing (`make hub` installs it)"
    return None


def free_port() -> int:
    from course.processes import free_port as free

    return free()


@dataclass
class Learner:
    name: str
    login_seconds: float = 0.0  # log-in to a ready server
    lesson_seconds: float = 0.0
    errors: int = 0
    memory_mb: float = 0.0
    problem: str = ""


@dataclass
class HubRun:
    learners: list[Learner] = field(default_factory=list)
    seconds: float = 0.0
    class_server_mb: float = 0.0


class Hub:
    """JupyterHub with the course's config, in temporary state; stopped with its learners' servers."""

    def __init__(self, folder: Path, tokens: Path, class_url: str):
        self.port, self.folder = free_port(), folder
        self.env = {k: v for k, v in os.environ.items() if k not in ("CI", "COURSE_APPROVER")}
        self.env |= {"COURSE_HUB_STATE": str(folder / "state"), "COURSE_HUB_HOMES": str(folder / "homes"),
                     "COURSE_HUB_RUNTIME": str(folder / "runtime"), "COURSE_HUB_URL": f"http://127.0.0.1:{self.port}",
                     "COURSE_HUB_ADMIN_PASSWORD": secrets.token_urlsafe(32), "COURSE_VENV": str(VENV),
                     "COURSE_CLASS_TOKENS": str(tokens), "COURSE_MCP_URL": class_url, "PYTHONPATH": str(paths.ROOT)}
        proxy = str(PROXY) if PROXY.exists() else shutil.which("configurable-http-proxy")
        self.args = [str(VENV / "bin" / "jupyterhub"), "-f", str(paths.ROOT / "jupyterhub_config.py"),
                     f"--JupyterHub.hub_bind_url=http://127.0.0.1:{free_port()}",
                     f"--ConfigurableHTTPProxy.api_url=http://127.0.0.1:{free_port()}",
                     f"--ConfigurableHTTPProxy.command={proxy}"]
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = folder / "jupyterhub.log"
        self.process: subprocess.Popen | None = None

    def start(self) -> None:
        import httpx2

        (self.folder / "homes").mkdir(mode=0o755)
        with open(self.log, "wb") as out:
            self.process = subprocess.Popen(self.args, env=self.env, cwd=self.folder, stdout=out,
                                            stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"JupyterHub exited with {self.process.returncode}: see {self.log}")
            try:
                if httpx2.get(f"{self.url}/hub/api/", timeout=5).status_code == 200:
                    return
            except httpx2.TransportError:
                pass
            time.sleep(0.2)
        raise RuntimeError("JupyterHub did not answer within 120 s")

    def stop(self) -> None:
        if self.process is None:
            return
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)  # the hub stops the learners' servers and the proxy
            try:
                self.process.wait(60)
            except subprocess.TimeoutExpired:
                pass
        try:
            os.killpg(self.process.pid, signal.SIGKILL)  # whatever of its group is left
        except ProcessLookupError:
            pass


def run_in_kernel(hub_url: str, name: str, token: str, code: str) -> str:
    """Open a kernel "Python (course)" in `name`'s server and run `code`; what it printed."""
    import httpx2
    import websocket

    api = f"{hub_url}/user/{name}/api"
    headers = {"Authorization": f"token {token}"}
    kernel = httpx2.post(f"{api}/kernels", json={"name": "course"}, headers=headers, timeout=120).json()["id"]
    ws = websocket.create_connection(f"{api.replace('http', 'ws', 1)}/kernels/{kernel}/channels",
                                     header=[f"Authorization: token {token}"], timeout=WAIT)
    try:
        msg_id = uuid.uuid4().hex
        ws.send(json.dumps({"header": {"msg_id": msg_id, "msg_type": "execute_request", "username": name,
                                       "session": uuid.uuid4().hex, "version": "5.3"},
                            "parent_header": {}, "metadata": {}, "channel": "shell", "buffers": [],
                            "content": {"code": code, "silent": False, "store_history": False,
                                        "user_expressions": {}, "allow_stdin": False, "stop_on_error": True}}))
        printed = []
        while True:
            msg = json.loads(ws.recv())
            if msg.get("parent_header", {}).get("msg_id") != msg_id:
                continue
            kind = msg["header"]["msg_type"]
            if kind == "stream":
                printed.append(msg["content"]["text"])
            elif kind == "error":
                printed.append(f"{msg['content']['ename']}: {msg['content']['evalue']}")
            elif kind == "execute_reply":
                return "".join(printed)
    finally:
        ws.close()


def learner_memory(name: str) -> float:
    """MB resident in the processes of `name`'s system user (their server, kernels, lesson 6's servers)."""
    import pwd

    import psutil

    uid = pwd.getpwnam(name).pw_uid
    total = 0
    for p in psutil.process_iter(["uids", "memory_info"]):
        if p.info["uids"] and p.info["uids"].real == uid and p.info["memory_info"]:
            total += p.info["memory_info"].rss
    return total / 2**20


def one_learner(hub: Hub, learner: Learner, password: str) -> None:
    import httpx2

    start = time.perf_counter()
    with httpx2.Client(base_url=hub.url, follow_redirects=False, timeout=120) as browser:
        browser.get("/hub/login")  # the form's page sets the _xsrf cookie
        xsrf = browser.cookies.get("_xsrf") or ""
        done = browser.post("/hub/login", data={"username": learner.name, "password": password, "_xsrf": xsrf})
        if done.status_code != 302:
            learner.problem = f"log-in refused ({done.status_code})"
            return
        xsrf = browser.cookies.get("_xsrf", path="/hub/") or xsrf
        made = browser.post(f"/hub/api/users/{learner.name}/tokens", json={"note": "rehearsal", "expires_in": 3600},
                            headers={"X-XSRFToken": xsrf})
        token = made.json()["token"]
        headers = {"Authorization": f"token {token}"}
        browser.post(f"/hub/api/users/{learner.name}/server", headers=headers)
        deadline = time.monotonic() + WAIT
        while time.monotonic() < deadline:
            model = browser.get(f"/hub/api/users/{learner.name}", headers=headers).json()
            if model.get("servers", {}).get("", {}).get("ready"):
                break
            time.sleep(0.25)
        else:
            learner.problem = "their server did not start"
            return
    learner.login_seconds = time.perf_counter() - start
    start = time.perf_counter()
    printed = run_in_kernel(hub.url, learner.name, token, LESSON)
    learner.lesson_seconds = time.perf_counter() - start
    try:
        result = json.loads(printed.strip().splitlines()[-1])
        learner.errors = int(result["errors"])
        if result["user"] != learner.name:
            learner.problem = f"the kernel ran as {result['user']}"
    except (ValueError, KeyError, IndexError):
        learner.problem, learner.errors = f"the lesson's cell failed: {printed.strip()[-200:]}", 1
    learner.memory_mb = learner_memory(learner.name)


def wait_until_ended(processes: list, seconds: float) -> None:
    """Until each has ended: gone, or a zombie (its parent not yet told; `userdel` does not count it, but
    psutil.wait_procs would wait the whole `seconds` for it)."""
    import psutil

    def running(p) -> bool:
        try:
            return p.status() != psutil.STATUS_ZOMBIE
        except psutil.NoSuchProcess:
            return False

    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and any(map(running, processes)):
        time.sleep(0.05)


def remove_account(name: str) -> str:
    """Delete an account the hub made, with its home. `userdel` refuses while any process of the user runs, and a
    learner's server or kernel can outlive the hub by a moment (they are not in its process group): end them first."""
    import psutil

    uid = pwd.getpwnam(name).pw_uid
    for _ in range(20):
        left = [p for p in psutil.process_iter(["uids"]) if p.info["uids"] and p.info["uids"].real == uid]
        for p in left:
            try:
                p.kill()
            except psutil.NoSuchProcess:
                pass
        wait_until_ended(left, 3.0)
        done = subprocess.run(["userdel", "--remove", name], capture_output=True, text=True, check=False)
        if done.returncode in (0, 12):  # 12: the home could not be removed; the account is gone
            return ""
        time.sleep(0.5)
    return f"could not remove the rehearsal's account {name}: {done.stderr.strip()} (remove it: userdel -r {name})"


def rehearse_on_hub(learners: int, embedder: str = "auto") -> HubRun:
    import psutil

    from course.classroom.hub import made_by_the_hub
    from course.classroom.learners import new_tokens, write_tokens
    from course.classroom.server import serving

    tag = secrets.token_hex(2)
    names = [f"r{tag}-{i:02d}" for i in range(1, learners + 1)]  # fresh names: never an account of this machine
    folder = Path(tempfile.mkdtemp(prefix="course-rehearsal-", dir="/tmp"))
    folder.chmod(0o755)  # as /home: anyone may pass through; each home inside is its owner's
    tokens = folder / "tokens.txt"
    write_tokens(tokens, new_tokens(names))
    teacher_existed = made_by_the_hub("teacher") is not None
    run = HubRun([Learner(n) for n in names])
    hub = None
    left: list[str] = []
    try:
        with serving(tokens, "--embedder", embedder, "--data", str(folder / "class"), timeout=180) as class_url:
            server = next(p for p in psutil.Process().children() if "course.classroom" in " ".join(p.cmdline()))
            hub = Hub(folder, tokens, class_url)
            hub.start()
            password = secrets.token_urlsafe(12)  # each learner's first log-in sets it
            start = time.perf_counter()
            threads = [threading.Thread(target=one_learner, args=(hub, learner, password)) for learner in run.learners]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            run.seconds = time.perf_counter() - start
            run.class_server_mb = server.memory_info().rss / 2**20
    finally:
        if hub is not None:
            hub.stop()
        for name in names + ([] if teacher_existed else ["teacher"]):
            if made_by_the_hub(name):
                left.append(remove_account(name))
        shutil.rmtree(folder, ignore_errors=True)
    if any(left):
        raise RuntimeError("; ".join(filter(None, left)))
    return run


def report(run: HubRun) -> str:
    import statistics

    ok = [r for r in run.learners if not r.problem]
    lines = [f"rehearsal: {len(run.learners)} simulated learners logged in to a real JupyterHub (this course's "
             "jupyterhub_config.py: a system user each), lesson 6's calls in a kernel of their own server",
             f"  time            {run.seconds:.1f} s for the room"]
    if ok:
        lines += [f"  log-in → server  median {statistics.median(r.login_seconds for r in ok):.1f} s, "
                  f"slowest {max(r.login_seconds for r in ok):.1f} s",
                  f"  lesson's calls   median {statistics.median(r.lesson_seconds for r in ok):.1f} s, "
                  f"slowest {max(r.lesson_seconds for r in ok):.1f} s",
                  f"  per learner      median {statistics.median(r.memory_mb for r in ok):.0f} MB "
                  f"(their server and one kernel), largest {max(r.memory_mb for r in ok):.0f} MB"]
    lines += [f"  errors          {sum(r.errors for r in run.learners)}",
              f"  class server    {run.class_server_mb:.0f} MB"]
    lines += [f"  {r.name}: {r.problem}" for r in run.learners if r.problem]
    return "\n".join(lines)
