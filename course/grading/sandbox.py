"""Where a learner's code runs when it is graded, and the one boundary grading trusts (README, "Grading a class").

`bwrap` (bubblewrap, the default; `--sandbox auto` stops if it cannot run): learner code runs as the system
user `nobody` in its own PID, network, IPC and mount namespace; the filesystem is read-only but a private
tmpfs capped at `tmp_mb` (the sandbox's only writable space, shared by its whole tree); the repo, the
mentor's home, `solutions/` and `notebooks/` are not mounted. Per process (cgroups here are v1 and not
delegated): address space, CPU seconds and file size; per system user: the number of processes.
The supervisor is this process, outside the sandbox: it reads every pipe with a cap, and a sandbox that
floods a pipe, answers out of order or dies voids the exercise it was on.

`process` (trusted work only, "not sandboxed" in every report): a process group with the same limits and
an allowlisted environment, in the mentor's account.
"""

from __future__ import annotations

import compileall
import json
import os
import py_compile
import selectors
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from functools import cache
from pathlib import Path

from course import offline
from course.errors import SandboxError

ROOT = Path(__file__).resolve().parents[2]
ALLOWED_ENV = ("PATH", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "SYSTEMROOT", "TERM")  # keys and tokens never pass
FIXED_ENV = {**offline.SCRIPTED, **offline.LOCAL_MODELS, "PYTHONIOENCODING": "utf-8", "MPLBACKEND": "Agg",
             "PYTHONDONTWRITEBYTECODE": "1"}
PIPE_CAP = 1 << 20  # what the supervisor reads of one pipe; more is a void verdict, not memory
BOOT = "import sys; sys.path.insert(0, sys.argv[1]); from course.grading.worker import main; main()"
NOBODY = "65534"
INSTALL = "`apt-get install bubblewrap` (Debian/Ubuntu; `dnf install bubblewrap` on Fedora)"


@dataclass(frozen=True)
class SandboxLimits:
    wall_seconds: float = 30.0  # per exercise: an endless loop becomes a verdict
    cpu_seconds: int = 60  # per process
    memory_mb: int = 4096  # address space per process; torch and the MCP SDK map a lot without using it
    processes: int = 256  # processes and threads of the system user nobody: every sandbox's tree at once
    file_mb: int = 64  # per file, including what the code prints
    tmp_mb: int = 256  # the private tmpfs: everything the sandbox writes, together
    output_chars: int = 4000  # what a report shows of the printed output


@cache
def bwrap_problem() -> str:
    """Why bubblewrap cannot grade here, or "" when it can."""
    if not sys.platform.startswith("linux") or shutil.which("bwrap") is None:
        return f"bubblewrap is not installed: {INSTALL}."
    try:
        done = subprocess.run(["bwrap", *namespaces(), "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
                               *drop(), "true"], capture_output=True, timeout=20)
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"bubblewrap could not start: {e}"
    return "" if done.returncode == 0 else f"bubblewrap could not start: {done.stderr.decode()[:200].strip()}"


def namespaces() -> list[str]:
    # As root, no user namespace: inside, setpriv makes the code the system user nobody (a real uid, so
    # RLIMIT_NPROC holds). A mentor's own account: an unprivileged uid in a user namespace of its own.
    common = ["--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts", "--die-with-parent", "--new-session"]
    return common if os.geteuid() == 0 else [*common, "--unshare-user", "--disable-userns", "--uid", NOBODY,
                                             "--gid", NOBODY, "--cap-drop", "ALL"]


def drop() -> list[str]:
    return ["setpriv", "--reuid", NOBODY, "--regid", NOBODY, "--clear-groups", "--inh-caps=-all",
            "--bounding-set=-all", "--no-new-privs"] if os.geteuid() == 0 else []


def choose_mode(mode: str) -> str:
    if mode not in ("auto", "bwrap", "process"):
        raise SandboxError(f"unknown sandbox {mode!r}: choose auto, bwrap or process.")
    if mode != "process" and bwrap_problem():
        raise SandboxError(f"grading needs bubblewrap and {bwrap_problem()} Nothing was graded. For trusted work "
                           "only, `--sandbox process` grades without a sandbox (every report then says so).")
    return "process" if mode == "process" else "bwrap"


def learner_env(home: str, course: str) -> dict[str, str]:
    env = {k: os.environ[k] for k in ALLOWED_ENV if k in os.environ}
    env.setdefault("PATH", os.defpath)
    return {**env, **FIXED_ENV, "HOME": home, "TMPDIR": home, "PYTHONPATH": course}


def read_capped(child: subprocess.Popen, deadline_of, cap: int = PIPE_CAP):
    """Yield the complete lines of the child's stdout, each within `deadline_of(lines so far)`; stderr is
    kept (capped) in child.err. Raises SandboxError on a flood, a late line or a stall."""
    assert child.stdout is not None and child.stderr is not None
    buffers = {child.stdout.fileno(): b"", child.stderr.fileno(): b""}
    sizes = dict.fromkeys(buffers, 0)
    child.err, count = b"", 0  # type: ignore[attr-defined]
    with selectors.DefaultSelector() as selector:
        for fd in buffers:
            selector.register(fd, selectors.EVENT_READ)
        while selector.get_map():
            left = deadline_of(count) - time.monotonic()
            if left <= 0:
                raise SandboxError("no answer in time")
            for key, _ in selector.select(min(left, 1.0)):
                chunk = os.read(key.fd, 1 << 16)
                sizes[key.fd] += len(chunk)
                if sizes[key.fd] > cap:
                    raise SandboxError(f"more than {cap >> 20} MB on a pipe of the sandbox")
                if not chunk:
                    selector.unregister(key.fd)
                elif key.fd == child.stderr.fileno():
                    child.err += chunk  # type: ignore[attr-defined]
                else:
                    *lines, buffers[key.fd] = (buffers[key.fd] + chunk).split(b"\n")
                    for line in lines:
                        count += 1
                        yield line


class Sandbox:
    """The course's code, copied once so no run sees the repo, and the runs that use it."""

    def __init__(self, mode: str = "auto", limits: SandboxLimits = SandboxLimits(), python: str = sys.executable):
        self.mode, self.limits, self.python = choose_mode(mode), limits, python
        self.base = Path(tempfile.mkdtemp(prefix="course-grading-"))
        self.base.chmod(0o755)
        for name in ("course", "data"):  # what the checks need; solutions/ and notebooks/ stay out of reach
            shutil.copytree(ROOT / name, self.base / name, ignore=shutil.ignore_patterns("__pycache__"))
        # Compiled once here (checked-hash caches hold in a copy), not by every sandbox: it cannot write them.
        compileall.compile_dir(self.base / "course", quiet=1, workers=1,
                               invalidation_mode=py_compile.PycInvalidationMode.CHECKED_HASH)

    @property
    def label(self) -> str:
        return "bubblewrap sandbox" if self.mode == "bwrap" else "NOT SANDBOXED (--sandbox process)"

    def close(self) -> None:
        shutil.rmtree(self.base, ignore_errors=True)

    def __enter__(self) -> Sandbox:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def command(self, home: str) -> list[str]:
        python = [self.python, "-I", "-c", BOOT, str(self.base)]
        if self.mode == "process":
            return python
        args = ["bwrap", *namespaces(), "--dev", "/dev", "--proc", "/proc",
                "--size", str(self.limits.tmp_mb << 20), "--perms", "1777", "--tmpfs", "/tmp"]
        mounts = ["/usr", "/etc/alternatives", "/etc/ssl", "/etc/localtime", sys.prefix, sys.base_prefix,
                  str(Path(self.python).resolve().parent.parent), str(self.base)]
        for path in dict.fromkeys(os.path.realpath(m) for m in mounts):
            if os.path.exists(path):  # its parents readable by nobody (bwrap makes them 0700)
                parents = [str(p) for p in reversed(Path(path).parents) if str(p) not in ("/", "/tmp")]
                args += [*(a for p in parents for a in ("--perms", "0755", "--dir", p)), "--ro-bind", path, path]
        for link in ("/bin", "/lib", "/lib64", "/sbin"):  # usrmerge: the symlinks they are
            if os.path.islink(link):
                args += ["--symlink", os.readlink(link), link]
        return [*args, "--chdir", "/tmp", *drop(), *python]

    def run(self, exercises: list[dict]) -> list[dict]:
        """Check one learner's exercises ({id, module, source}) in one sandbox, in order; an answer each.
        An answer whose sandbox broke the protocol is {"void": why}; the exercises after it run again."""
        answers: list[dict] = []
        while len(answers) < len(exercises):
            answers += self.run_once(exercises[len(answers):])
        return answers

    def run_once(self, exercises: list[dict]) -> list[dict]:
        home = tempfile.mkdtemp(prefix="home-", dir=self.base) if self.mode == "process" else "/tmp/home"
        limits = asdict(self.limits)
        if os.geteuid() != 0:  # the code runs as the mentor's uid outside: RLIMIT_NPROC counts all its processes
            limits["processes"] += sum(1 for p in Path("/proc").glob("[0-9]*") if owned(p))
        job = {"exercises": exercises, "limits": limits, "home": home, "mode": self.mode}
        child = subprocess.Popen(self.command(home), env=learner_env(home, str(self.base)), cwd=self.base,
                                 stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                 start_new_session=True)
        assert child.stdin is not None
        try:
            child.stdin.write(json.dumps(job).encode())
            child.stdin.close()
        except BrokenPipeError:
            pass
        answers: list[dict] = []
        # The worker keeps the limit per exercise; the supervisor's is a margin later, for a worker that stalls.
        start, wall = time.monotonic(), self.limits.wall_seconds + min(10.0, self.limits.wall_seconds)
        seen = [start]
        why = ""
        try:
            for line in read_capped(child, lambda n: seen[-1] + (120 if n == 0 else wall)):
                seen.append(time.monotonic())
                answer = json.loads(line)
                if not answers and answer == {"ready": True} and len(seen) == 2:
                    continue
                if len(seen) == 2 or answer.get("index") != len(answers) or len(answers) >= len(exercises):
                    raise SandboxError("an answer out of order")
                answers.append(answer)
            code = child.wait(timeout=10)
            if code != 0:  # it died after its last answer: while that exercise's code could still run
                why, answers = f"the sandbox's worker ended with exit code {code}", answers[:len(exercises) - 1]
        except (SandboxError, ValueError, AttributeError, subprocess.TimeoutExpired) as e:
            why = str(e) if isinstance(e, SandboxError) else f"a malformed answer ({type(e).__name__})"
        finally:
            kill(child)
            if self.mode == "process":
                shutil.rmtree(home, ignore_errors=True)
        if why or len(answers) < len(exercises):
            if len(seen) < 2:  # never ready: the course did not import
                tail = child.err.decode("utf-8", "replace").strip().splitlines()[-1:]  # type: ignore[attr-defined]
                why = f"the sandbox's worker did not start ({why or 'no answer'}): " + (tail[0][:200] if tail else "")
            answers.append({"void": f"void: {why or 'the sandbox ended before this exercise had a verdict'}."})
        return answers


def owned(proc: Path) -> bool:
    try:
        return proc.stat().st_uid == os.geteuid()
    except OSError:
        return False


def kill(child: subprocess.Popen) -> None:
    try:
        os.killpg(child.pid, 9)
    except (ProcessLookupError, PermissionError, AttributeError):
        pass
    child.kill()
    child.wait()
