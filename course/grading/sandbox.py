"""Where a learner's code runs when it is graded: a child process group with an allowlisted
environment, a private temporary folder, a pristine copy of the course, and OS limits.

Two modes (README, "Grading a class"):
- `process`: works wherever Python does (Linux, macOS; Windows without the limits). It protects the
  mentor's environment (nothing outside `ALLOWED_ENV` reaches the learner), the course the checks
  load (a private copy per learner, verified afterwards), the repo's `course/` folder (changes are
  detected, undone and void the verdict), and the machine's time (CPU, memory, processes, file size,
  wall clock; the whole process group is killed, and on Linux detached descendants too). It does NOT
  stop the learner's code from reading or deleting other files the mentor's account may touch.
- `bwrap` (Debian's bubblewrap): additionally, the filesystem is read-only except the private
  folder, the mentor's home and the repo are not mounted at all, there is no network, and every
  process dies with the sandbox (its own PID namespace).
"""

from __future__ import annotations

import compileall
import hashlib
import json
import os
import py_compile
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
from dataclasses import asdict, dataclass
from functools import cache
from pathlib import Path

from course import offline
from course.errors import SandboxError
from course.grading.reaping import become_subreaper, end_children
from course.paths import WORK

ROOT = Path(__file__).resolve().parents[2]
# Only these reach the learner's code, whatever command started the grader; keys and tokens never do.
ALLOWED_ENV = ("PATH", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "SYSTEMROOT", "TERM")
FIXED_ENV = {**offline.SCRIPTED, **offline.LOCAL_MODELS, "PYTHONIOENCODING": "utf-8", "MPLBACKEND": "Agg"}
KEPT = WORK / "grading" / "changed-during-grading"  # what undo_repo_changes moved aside
COPIED = ("course", "data")  # what the checks need; solutions/ and notebooks/ stay out of reach
MARK = "COURSE_GRADING_SANDBOX"  # names the sandbox a stray process belongs to (the sweep looks for it)
BOOT = "import sys; sys.path.insert(0, sys.argv[1]); from course.grading.{0} import main; main()"


@dataclass(frozen=True)
class Limits:
    wall_seconds: float = 30.0  # per exercise: an endless loop becomes a verdict
    cpu_seconds: int = 60
    memory_mb: int = 4096  # address space; torch and the MCP SDK map a lot without using it
    processes: int = 64  # on top of what the account already runs (RLIMIT_NPROC counts per user)
    file_mb: int = 64  # any file the code writes, including what it prints
    output_chars: int = 4000  # what a report shows of the printed output


@cache
def bwrap_works() -> bool:
    exe = shutil.which("bwrap")
    if exe is None or not sys.platform.startswith("linux"):
        return False
    probe = [exe, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--unshare-all", "--die-with-parent",
             "true"]
    try:
        return subprocess.run(probe, capture_output=True, timeout=20).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def choose_mode(mode: str) -> str:
    if mode == "auto":
        return "bwrap" if bwrap_works() else "process"
    if mode == "bwrap" and not bwrap_works():
        raise SandboxError("--sandbox bwrap needs bubblewrap (Debian: `apt-get install bubblewrap`), and it "
                           "could not start here; use --sandbox process, or auto.")
    if mode not in ("bwrap", "process"):
        raise SandboxError(f"unknown sandbox {mode!r}: choose auto, bwrap or process.")
    return mode


def fingerprint(folder: Path, caches: bool = False) -> dict[str, str]:
    """{relative path: sha256} of the files under folder (compiled caches only if `caches`)."""
    found = {}
    for path in sorted(folder.rglob("*")):
        if path.is_file() and (caches or "__pycache__" not in path.parts):
            found[path.relative_to(folder).as_posix()] = hashlib.sha256(path.read_bytes()).hexdigest()
    return found


def learner_env(home: Path, course: Path, mark: str) -> dict[str, str]:
    env = {k: os.environ[k] for k in ALLOWED_ENV if k in os.environ}
    env.setdefault("PATH", os.defpath)
    env.update(FIXED_ENV, HOME=str(home), TMPDIR=str(home), PYTHONPATH=str(course), **{MARK: mark})
    return env


class Sandbox:
    """A pristine copy of the course, taken once before any learner code runs, and the runs that use it."""

    def __init__(self, mode: str = "auto", limits: Limits = Limits(), python: str = sys.executable,
                 reap_orphans: bool = False):
        self.mode, self.limits, self.python = choose_mode(mode), limits, python
        # The command line's process has no children but the supervisors: as their subreaper it kills what a
        # learner left running after killing its supervisor (a process sandbox's escape; bubblewrap's PID
        # namespace ends those itself). Not for a process with children of its own, like a test runner.
        self.reap_orphans, self.supervisors = reap_orphans, set[int]()
        if reap_orphans:
            become_subreaper()
        self.base = Path(tempfile.mkdtemp(prefix="course-grading-"))
        self.pristine = self.base / "pristine"
        for name in COPIED:
            shutil.copytree(ROOT / name, self.pristine / name, ignore=shutil.ignore_patterns("__pycache__"))
        # Compiled once here, so that each run does not compile the course again (runs copy or mount this).
        # Checked-hash caches: valid in a copy whatever its files' times, so no run writes one.
        compileall.compile_dir(self.pristine / "course", quiet=1, workers=1,
                               invalidation_mode=py_compile.PycInvalidationMode.CHECKED_HASH)
        # The process sandbox's learner code runs with the mentor's account and could rewrite self.pristine
        # (a planted .pyc would forge every later verdict): each run's copy, and what is put back into the
        # repo, come from these bytes in memory, and the caches are verified as well as the sources.
        self.snapshot = {rel: (self.pristine / rel).read_bytes() for rel in fingerprint(self.pristine, caches=True)}
        self.manifest = {rel: hashlib.sha256(data).hexdigest() for rel, data in self.snapshot.items()}
        self.repo_course = fingerprint(ROOT / "course", caches=True)
        if self.mode == "process":  # only bubblewrap mounts it (read-only); here it would be a target
            shutil.rmtree(self.pristine)
        # With -j N, a change to the repo's course/ is seen by whichever run ends first, not by the one that
        # made it: every run that overlapped such a finding runs again alone, where the finding is its own.
        self.state, self.solo_turn = threading.Condition(), threading.Lock()
        self.active = self.starts = self.findings = 0
        self.solo = False
        self.said: set[str] = set()  # repo files named on screen as changed

    def close(self) -> None:
        shutil.rmtree(self.base, ignore_errors=True)

    def __enter__(self) -> Sandbox:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def run(self, exercises: list[dict]) -> dict:
        """Run the supervisor (course/grading/supervisor.py) on one learner's exercises ({id, module,
        source} each, checked in this order in one worker); its result, plus what the sandbox saw."""
        job = {"exercises": exercises}
        with self.state:
            self.state.wait_for(lambda: not self.solo)
            self.active += 1
            self.starts += 1
            alone, starts, findings = self.active == 1, self.starts, self.findings
        try:
            result = self.run_once(job)
        finally:
            with self.state:
                self.active -= 1
                alone = alone and self.starts == starts
                ambiguous = self.findings != findings and not alone
                self.state.notify_all()
        if not ambiguous:
            return result
        with self.solo_turn:
            with self.state:
                self.solo = True
                self.state.wait_for(lambda: self.active == 0)
            try:
                return self.run_once(job)
            finally:
                with self.state:
                    self.solo = False
                    self.state.notify_all()

    def run_once(self, job: dict) -> dict:
        private = Path(tempfile.mkdtemp(prefix="run-", dir=self.base))
        home = private / "home"
        home.mkdir()
        if self.mode == "process":  # a copy per run: what one learner writes there, no other learner sees
            course = private / "course-copy"
            for rel, data in self.snapshot.items():
                (course / rel).parent.mkdir(parents=True, exist_ok=True)
                (course / rel).write_bytes(data)
        else:
            course = self.pristine
        mark = secrets.token_hex(8)
        job = {**job, "nonce": secrets.token_hex(16), "limits": asdict(self.limits), "python": self.python,
               "course": str(course), "private": str(private)}
        command = [self.python, "-I", "-c", BOOT.format("supervisor"), str(course)]
        if self.mode == "bwrap":
            command = self.bwrap(private) + command
        env = learner_env(home, course, mark)
        result = self.supervise(command, env, home, job)
        result["tampered"] = [*(result.get("tampered") or []), *self.verify(course)]  # verify always: it restores
        if any(name.startswith("repo course/") for name in result["tampered"]):
            with self.state:
                self.findings += 1
        shutil.rmtree(private, ignore_errors=True)
        return result

    def supervise(self, command: list[str], env: dict, cwd: Path, job: dict) -> dict:
        # The supervisor enforces the limit per exercise; this is if it cannot.
        backstop = self.limits.wall_seconds * len(job["exercises"]) + 20
        with self.state:  # no reaping between the start and the registration
            child = subprocess.Popen(command, env=env, cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, start_new_session=True)
            self.supervisors.add(child.pid)
        try:
            out, err = child.communicate(json.dumps(job).encode(), timeout=backstop)
        except subprocess.TimeoutExpired:
            kill_group(child.pid)
            child.kill()  # where there are no process groups
            out, err = child.communicate()
        finally:
            kill_group(child.pid)
            sweep(env[MARK])
            with self.state:
                self.supervisors.discard(child.pid)
                if self.reap_orphans:
                    end_children(keep=frozenset(self.supervisors))
        try:
            result = json.loads(out.decode("utf-8", "replace").strip().splitlines()[-1])
        except (ValueError, IndexError):
            tail = err.decode("utf-8", "replace").strip().splitlines()[-1:] or [f"exit code {child.returncode}"]
            return {"verdicts": [], "timed_out": False, "outputs": [], "problem": tail[0][:300]}
        if result.get("nonce") != job["nonce"]:
            return {"verdicts": [], "timed_out": False, "outputs": [], "tampered": ["the supervisor's answer"]}
        return result

    def verify(self, course: Path) -> list[str]:
        """What changed in the course the checks loaded, or in the repo's course/ (undone here)."""
        changed = sorted(set(fingerprint(course, caches=True).items()) ^ set(self.manifest.items()))
        names = {name for name, _ in changed}
        if self.mode == "process":  # bubblewrap does not mount the repo: a change there is someone else's
            names |= {"repo course/" + rel for rel in self.undo_repo_changes()}
        return sorted(names)

    def undo_repo_changes(self) -> list[str]:
        """Put the repo's course/ back as grading found it. What was changed is moved aside, not deleted:
        it may be a learner's attack, or a file someone edited while the class was graded."""
        repo = ROOT / "course"
        now = fingerprint(repo, caches=True)
        undone = []
        for rel in sorted(set(now) | set(self.repo_course)) if now != self.repo_course else []:
            if now.get(rel) == self.repo_course.get(rel):
                continue
            if "__pycache__" in rel.split("/"):
                # A cache: the grader's own imports may write one, so it voids nothing; deleted, it is
                # compiled again from the source, so a planted one never runs.
                (repo / rel).unlink(missing_ok=True)
                continue
            undone.append(rel)
            if (repo / rel).exists():
                kept = KEPT / rel
                kept.parent.mkdir(parents=True, exist_ok=True)
                shutil.move(repo / rel, kept)
                if rel not in self.said:  # a learner's re-runs make the same change again: say it once
                    self.said.add(rel)
                    sys.stdout.flush()
                    print(f"grading: course/{rel} changed while grading ran; put back, the changed file is "
                          f"kept as {kept}", file=sys.stderr, flush=True)
            original = self.snapshot.get("course/" + rel)
            if original is not None:
                (repo / rel).parent.mkdir(parents=True, exist_ok=True)
                (repo / rel).write_bytes(original)
        return undone

    def bwrap(self, private: Path) -> list[str]:
        """Read-only system and Python, the pristine course read-only, the private folder writable; no network."""
        args = ["bwrap", "--unshare-all", "--die-with-parent", "--new-session", "--dev", "/dev", "--proc", "/proc",
                "--tmpfs", "/tmp"]
        if os.geteuid() == 0:
            args += ["--cap-drop", "ALL"]  # root inside could otherwise raise the limits again
        mounts = ["/usr", "/bin", "/lib", "/lib64", "/sbin", "/etc/alternatives", "/etc/ssl", "/etc/localtime",
                  sys.prefix, sys.base_prefix, str(Path(self.python).resolve().parent.parent)]
        for path in dict.fromkeys(os.path.realpath(m) for m in mounts):
            if os.path.exists(path):
                args += ["--ro-bind", path, path]
        for link in ("/bin", "/lib", "/lib64", "/sbin"):  # usrmerge: keep them as the symlinks they are
            if os.path.islink(link):
                args += ["--symlink", os.readlink(link), link]
        args += ["--ro-bind", str(self.pristine), str(self.pristine), "--bind", str(private), str(private)]
        return args


def kill_group(pgid: int) -> None:
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError, AttributeError):  # gone already; or no process groups
        pass


def sweep(mark: str) -> None:
    """Kill any process still carrying this sandbox's mark (a learner's detached background process)."""
    if not sys.platform.startswith("linux"):
        return
    needle = f"{MARK}={mark}".encode()
    for environ in Path("/proc").glob("[0-9]*/environ"):
        try:
            if needle in environ.read_bytes().split(b"\0"):
                os.kill(int(environ.parent.name), signal.SIGKILL)
        except (OSError, ValueError):
            continue
