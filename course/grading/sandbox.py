"""Where a learner's code runs when it is graded: the one boundary grading trusts (README, "Grading a class").

`bwrap`: bubblewrap, with the supervisor (this process) outside it. As root, each sandbox's code runs as
a uid of its own (UIDS), so the process limit is per sandbox; as a mentor's own account, as the
mentor's uid mapped to 65534 in a user namespace, with no capabilities. Own PID, network, IPC and mount
namespaces; a read-only filesystem with a copy of the course (not the repo, the home, `solutions/` or
`notebooks/`), and a private tmpfs of `tmp_mb` as the only writable place. The supervisor reads every
pipe with a cap; a flood, an answer out of order or a worker that dies is an exercise with no verdict.
`process` (trusted work only, "NOT SANDBOXED" in every report): the same limits, the mentor's account.
"""

from __future__ import annotations

import compileall
import itertools
import json
import os
import py_compile
import select
import shutil
import subprocess
import sys
import tempfile
from dataclasses import asdict, dataclass
from functools import cache
from pathlib import Path

from course import offline
from course.errors import SandboxError

ROOT = Path(__file__).resolve().parents[2]
ALLOWED_ENV = ("PATH", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "SYSTEMROOT", "TERM")  # keys and tokens never pass
FIXED_ENV = {**offline.SCRIPTED, **offline.LOCAL_MODELS, "PYTHONIOENCODING": "utf-8", "MPLBACKEND": "Agg",
             "PYTHONDONTWRITEBYTECODE": "1"}
PIPE_CAP = 1 << 20  # what the supervisor reads of one pipe; more is no verdict, not memory
BOOT = "import sys; sys.path.insert(0, sys.argv[1]); from course.grading.worker import main; main()"
INSTALL = "`apt-get install bubblewrap` (Debian/Ubuntu; `dnf install bubblewrap` on Fedora)"
# As root: a uid no account has, one per sandbox run (this process's pid keeps two graders apart).
UIDS = itertools.count(2_000_000_000 + (os.getpid() % (1 << 22)) * 512)


@dataclass(frozen=True)
class SandboxLimits:
    wall_seconds: float = 30.0  # per exercise: an endless loop becomes a verdict
    cpu_seconds: int = 60  # per process
    memory_mb: int = 4096  # address space per process; torch and the MCP SDK map a lot without using it
    processes: int = 256  # processes and threads of the sandbox's uid (as root: of this sandbox alone)
    file_mb: int = 64  # per file, including what the code prints
    tmp_mb: int = 256  # the private tmpfs: everything the sandbox writes, together
    output_chars: int = 4000  # what a report shows of the printed output


def namespaces() -> list[str]:
    common = ["bwrap", "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts", "--die-with-parent",
              "--new-session"]
    if os.geteuid() != 0:  # setpriv needs root: an unprivileged uid in a user namespace of its own
        return [*common, "--unshare-user", "--disable-userns", "--uid", "65534", "--gid", "65534", "--cap-drop", "ALL"]
    return common


def drop(uid: int) -> list[str]:
    return ["setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups", "--inh-caps=-all",
            "--bounding-set=-all", "--no-new-privs"] if os.geteuid() == 0 else []


@cache
def bwrap_problem() -> str:
    """Why bubblewrap cannot grade here, or "" when it can."""
    if not sys.platform.startswith("linux") or shutil.which("bwrap") is None:
        return f"bubblewrap is not installed: {INSTALL}."
    try:
        done = subprocess.run([*namespaces(), "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
                               *drop(65534), "true"], capture_output=True, timeout=20)
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"bubblewrap could not start: {e}"
    return "" if done.returncode == 0 else f"bubblewrap could not start: {done.stderr.decode()[:200].strip()}"


def learner_env(home: str, course: str) -> dict[str, str]:
    env = {k: os.environ[k] for k in ALLOWED_ENV if k in os.environ}
    env.setdefault("PATH", os.defpath)
    return {**env, **FIXED_ENV, "HOME": home, "TMPDIR": home, "PYTHONPATH": course}


def read_capped(child: subprocess.Popen, first: float, each: float, cap: int = PIPE_CAP):
    """Yield the lines of the child's stdout (its stderr too), the first within `first` seconds, each next
    within `each`. Raises SandboxError on a flood or a stall."""
    assert child.stdout is not None
    fd, buffer, size, wait = child.stdout.fileno(), b"", 0, first
    while True:
        if not select.select([fd], [], [], wait)[0]:
            raise SandboxError("it gave no answer in time")
        chunk = os.read(fd, 1 << 16)
        size += len(chunk)
        if size > cap:
            raise SandboxError(f"it wrote more than {cap >> 20} MB on its pipe to the grader")
        if not chunk:
            return
        *lines, buffer = (buffer + chunk).split(b"\n")
        wait = each if lines else wait
        yield from lines


class Sandbox:
    """The course's code, copied once so no run sees the repo, and the runs that use it."""

    def __init__(self, mode: str = "auto", limits: SandboxLimits = SandboxLimits(), python: str = sys.executable):
        if mode not in ("auto", "bwrap", "process"):
            raise SandboxError(f"unknown sandbox {mode!r}: choose auto, bwrap or process.")
        if mode != "process" and bwrap_problem():
            raise SandboxError(f"grading needs bubblewrap and {bwrap_problem()} Nothing was graded. For trusted "
                               "work only, `--sandbox process` grades without a sandbox (every report then says so).")
        self.mode, self.limits, self.python = "process" if mode == "process" else "bwrap", limits, python
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

    def __enter__(self) -> Sandbox:
        return self

    def __exit__(self, *exc) -> None:
        shutil.rmtree(self.base, ignore_errors=True)

    def command(self, home: str) -> list[str]:
        python = [self.python, "-I", "-c", BOOT, str(self.base)]
        if self.mode == "process":
            return python
        uid = next(UIDS)
        args = [*namespaces(), "--dev", "/dev", "--proc", "/proc", "--size", str(self.limits.tmp_mb << 20),
                "--perms", "1777", "--tmpfs", "/tmp"]
        mounts = ["/usr", "/etc/alternatives", "/etc/ssl", "/etc/localtime", sys.prefix, sys.base_prefix,
                  str(Path(self.python).resolve().parent.parent), str(self.base)]
        for path in dict.fromkeys(os.path.realpath(m) for m in mounts):
            if os.path.exists(path):  # its parents readable by the sandbox's uid (bwrap makes them 0700)
                parents = [str(p) for p in reversed(Path(path).parents) if str(p) not in ("/", "/tmp")]
                args += [*(a for p in parents for a in ("--perms", "0755", "--dir", p)), "--ro-bind", path, path]
        for link in ("/bin", "/lib", "/lib64", "/sbin"):  # usrmerge: the symlinks they are
            if os.path.islink(link):
                args += ["--symlink", os.readlink(link), link]
        return [*args, "--chdir", "/tmp", *drop(uid), *python]

    def run(self, exercises: list[dict]) -> list[dict]:
        """Check one learner's exercises ({id, module, source}, and for a check that takes earlier lessons' cells:
        sources, notebooks, and the modules of their checks) in order, an answer each; an answer whose
        sandbox broke the protocol is {"void": why}, and the exercises after it run in a fresh sandbox."""
        answers: list[dict] = []
        while len(answers) < len(exercises):
            answers += self.run_once(exercises[len(answers):])
        return answers

    def run_once(self, exercises: list[dict]) -> list[dict]:
        home = tempfile.mkdtemp(prefix="home-", dir=self.base) if self.mode == "process" else "/tmp/home"
        limits = asdict(self.limits)
        if os.geteuid() != 0:  # the code runs as the mentor's uid outside: RLIMIT_NPROC counts all its processes
            limits["processes"] += sum(1 for p in Path("/proc").glob("[0-9]*") if owned(p))
        child = subprocess.Popen(self.command(home), env=learner_env(home, str(self.base)), cwd=self.base,
                                 stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                 start_new_session=True)
        assert child.stdin is not None
        try:
            child.stdin.write(json.dumps({"exercises": exercises, "limits": limits, "home": home,
                                          "mode": self.mode}).encode())
            child.stdin.close()
        except BrokenPipeError:
            pass
        # The worker keeps the limit per exercise; the supervisor's is a margin later, for a worker that stalls.
        answers: list[dict] = []
        ready, why, text = False, "", ""
        try:
            for line in read_capped(child, 120, self.limits.wall_seconds + min(10.0, self.limits.wall_seconds)):
                if not ready:  # before it is ready: the course's import, its traceback if it fails
                    ready, text = line == b'{"ready": true}', line.decode("utf-8", "replace")[:200] or text
                    continue
                answer = json.loads(line)
                if answer.get("index") != len(answers) or len(answers) >= len(exercises):
                    raise SandboxError("it answered out of order")
                answers.append(answer)
            code = child.wait(timeout=10)
            if code != 0:  # it died after its last answer: while that exercise's code could still run
                why, answers = f"its worker ended with exit code {code}", answers[:len(exercises) - 1]
        except (SandboxError, ValueError, AttributeError, subprocess.TimeoutExpired) as e:
            why = str(e) if isinstance(e, SandboxError) else f"it sent a malformed answer ({type(e).__name__})"
        finally:
            kill(child)
            if child.stdout is not None:  # what a stalled or killed worker left unread: the pipe is ours to close
                child.stdout.close()
            if self.mode == "process":
                shutil.rmtree(home, ignore_errors=True)
        if why or len(answers) < len(exercises):
            why = why or "it ended early" if ready else f"it did not start ({why or 'no answer'}): {text}"
            answers.append({"void": f"the grading sandbox stopped answering: {why}."})
        return answers


def owned(proc: Path) -> bool:
    try:
        return proc.stat().st_uid == os.geteuid()
    except OSError:
        return False


def kill(child: subprocess.Popen) -> None:
    try:
        os.killpg(child.pid, 9)
    except (ProcessLookupError, PermissionError):
        pass
    child.kill()
    child.wait()
