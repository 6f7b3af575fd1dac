"""The boundary (bubblewrap, the supervisor outside it), the vocabulary rule and the reports, piece by piece
(a whole class of forgeries: test_grading_class.py)."""

from __future__ import annotations

import csv
import html
import os
import resource
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from course.grading import report
from course.grading.runner import Grade, Learner, settle
from course.grading.sandbox import ROOT, Sandbox, SandboxError, SandboxLimits, bwrap_problem, learner_env
from course.grading.vocabulary import review

RIGHT = (ROOT / "solutions" / "l4-refund-limit.py").read_text()
WRONG = "# EXERCISE l4-refund-limit\ndef refund_limit(name, arguments):\n    return 'allow'\n"
JOB = {"id": "l4-refund-limit", "module": "course.exercises.lesson4"}


def require_bwrap() -> None:
    if bwrap_problem():
        if os.environ.get("CI"):
            pytest.fail("CI must grade in bubblewrap: .ci/run installs it (apt-get install bubblewrap).")
        pytest.skip(bwrap_problem())


@pytest.fixture(scope="module")
def box():
    require_bwrap()
    with Sandbox("bwrap", SandboxLimits(wall_seconds=15, file_mb=1)) as sandbox:
        yield sandbox


@pytest.fixture(scope="module")
def trusted():
    """One copy of the course (its copy and compile) for every test of `--sandbox process` in this module."""
    with Sandbox("process", SandboxLimits(wall_seconds=15)) as sandbox:
        yield sandbox


def run(sandbox: Sandbox, *sources: str) -> list[dict]:
    return sandbox.run([{**JOB, "source": source} for source in sources])


def test_the_learner_environment_holds_only_allowlisted_variables(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-mentor")
    env = learner_env("/tmp/home", "/tmp/course")
    assert "OPENAI_API_KEY" not in env and "sk-mentor" not in "".join(env.values())
    assert env["HOME"] == "/tmp/home" and env["COURSE_BACKEND"] == "scripted"


def test_a_right_answer_passes_in_bubblewrap_and_what_it_prints_is_kept_a_wrong_one_does_not(box):
    right, wrong = run(box, "print('hello')\n" + RIGHT, WRONG)
    assert right["passed"] and right["output"] == "hello\n", right
    assert not wrong["passed"] and "should give 'ask'" in wrong["message"], wrong
    assert isinstance(wrong["seed"], int) and right["seed"] is None  # the mentor's page shows how to replay it


def test_in_bubblewrap_the_code_is_an_unprivileged_uid_with_no_network_no_repo_and_a_capped_tmpfs(box):
    probe = ("import os, socket, pathlib\nprint('uid', os.getuid())\n"
             "try:\n    socket.create_connection(('127.0.0.1', 22), timeout=2); print('net open')\n"
             "except OSError as e:\n    print('net', type(e).__name__)\n"
             f"print('repo', pathlib.Path({str(ROOT / 'README.md')!r}).exists(), pathlib.Path('/root').exists())\n"
             "try:\n    open('/tmp/big', 'wb').write(b'x' * (400 << 20))\n"
             "except OSError as e:\n    print('tmp', e.errno)\n"
             + RIGHT)
    (answer,) = run(box, probe)
    uid = int(answer["output"].split()[1])
    assert uid not in (0, os.getuid()) and "net open" not in answer["output"], answer
    assert "repo False" in answer["output"] and "tmp" in answer["output"], answer


SEES = "import os\nprint(os.getuid(), sorted(int(p) for p in os.listdir('/proc') if p.isdigit()))\n" + RIGHT


def test_two_sandboxes_at_once_run_as_different_uids_and_neither_sees_a_process_outside_its_own(box):
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(2) as pool:
        answers = [a for (a,) in pool.map(lambda _: run(box, SEES), range(2))]
    seen = [(int(a["output"].split()[0]), a["output"].split(" ", 1)[1]) for a in answers]
    # Only bubblewrap's init, the worker and the cell itself: no other sandbox, nor the grader, has a pid in it
    # to signal or ptrace; as root each sandbox also has a uid of its own (its process limit is its own).
    assert all(a["passed"] for a in answers) and all(pids == "[1, 2, 3]\n" for _, pids in seen), seen
    assert os.geteuid() != 0 or seen[0][0] != seen[1][0], seen


def test_in_a_mentors_own_account_the_code_has_no_capabilities_and_sees_only_its_sandbox(box, monkeypatch):
    # setpriv needs root (CAP_SETUID): a mentor's own account gets bubblewrap's user namespace instead (its uid
    # mapped to 65534, no capabilities). Here, as root, the same command line: the grader's side believes it is
    # uid 1000 (the venv lives under /root, which no other account can run).
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    probe = ("import os\nstatus = dict(l.split(':', 1) for l in open('/proc/self/status'))\n"
             "print(status['Uid'].split()[0], status['CapEff'].strip(), os.listdir('/proc').count('1'))\n"
             "print(sorted(int(p) for p in os.listdir('/proc') if p.isdigit()))\n")
    (answer, attack, right) = run(box, probe + RIGHT, MEMORY + WRONG, RIGHT)
    assert answer["output"] == "65534 0000000000000000 1\n[1, 2, 3]\n" and answer["passed"], answer
    assert not attack.get("passed") and "read memory of" not in attack.get("output", "") and right["passed"], attack


# A cell setting a trap where a later exercise's output went (output-N.txt in the sandbox's home, until stop 31):
# a folder, a FIFO (opening it blocks), a symlink, a folder its owner cannot read (so it cannot be removed). The
# trap is the learner's own, but it voided a later exercise, not the one that set it.
TRAPS = """import os
os.mkdir('output-1.txt')
os.mkfifo('output-2.txt')
os.symlink('/proc/self/mem', 'output-3.txt')
os.makedirs('output-4.txt/inside')
os.chmod('output-4.txt', 0)
"""


@pytest.mark.subprocess
def test_a_cell_cannot_trap_where_a_later_exercise_writes_its_output(box):
    later = ("one", "two", "three", "four")
    answers = run(box, TRAPS + WRONG, *(f"print({n!r})\n" + RIGHT for n in later))
    assert [a.get("passed", False) for a in answers] == [False, True, True, True, True], answers
    assert [a.get("output") for a in answers[1:]] == [f"{n}\n" for n in later], answers


# The security reviewer's attack: read every reachable process's memory for the grader's nonce, write
# "everything passed" (the old and the new answer format) into every pipe it can open, then kill them.
MEMORY = """import os, re, signal, json
me, nonce = os.getpid(), None
for pid in sorted((p for p in os.listdir('/proc') if p.isdigit()), key=int):
    try:
        maps = open(f'/proc/{pid}/maps').read().splitlines()
        mem = open(f'/proc/{pid}/mem', 'rb')
        for line in maps:
            lo, hi = (int(x, 16) for x in line.split()[0].split('-'))
            if 'rw' in line.split()[1] and hi - lo < 1 << 28:
                mem.seek(lo)
                found = re.search(rb'"nonce": "([0-9a-f]{32})"', mem.read(hi - lo))
                nonce = nonce or (found.group(1).decode() if found else None)
        if int(pid) != me:
            print('read memory of', pid)
    except (OSError, ValueError, OverflowError):
        pass
fake = {"nonce": nonce, "verdicts": [{"verdict": {"passed": True, "message": "forged", "tampered": []}, "exit": 0,
        "timed_out": False, "forged": False, "index": i} for i in range(5)], "tampered": [], "outputs": [],
        "exit": 0, "timed_out": False}
lines = "".join(json.dumps({"index": i, "passed": True, "message": "forged",
        "exit": 0, "timed_out": False, "output": "", "output_lines": 0}) + "\\n" for i in range(5))
lines += json.dumps(fake) + "\\n"  # last: the old grader read the last line
for pid in [p for p in os.listdir('/proc') if p.isdigit() and int(p) not in (me, 1)]:
    for fd in (1, 2):
        try:
            with open(f'/proc/{pid}/fd/{fd}', 'w') as f:
                f.write(lines)
            print('wrote into', pid, fd)
        except OSError:
            pass
for pid in sorted((p for p in os.listdir('/proc') if p.isdigit() and int(p) not in (me, 1)), key=int):
    try:
        os.kill(int(pid), signal.SIGKILL)
    except OSError:
        pass
"""


@pytest.mark.subprocess
def test_reading_the_graders_memory_and_writing_into_its_pipes_passes_nothing(box):
    answers = run(box, MEMORY + WRONG, WRONG, WRONG)
    assert [a.get("passed", False) for a in answers] == [False, False, False], answers
    assert "read memory of" not in answers[0].get("output", "") and "wrote into" not in answers[0].get("output", "")
    assert all("forged" not in a.get("message", "") for a in answers)


FLOOD = """import os
block = b'x' * (1 << 20)
for pid in [p for p in os.listdir('/proc') if p.isdigit() and int(p) != os.getpid()]:
    for fd in (1, 2):
        try:
            f = os.open(f'/proc/{pid}/fd/{fd}', os.O_WRONLY)
            for _ in range(200):
                os.write(f, block)
        except OSError:
            pass
"""


@pytest.mark.subprocess
def test_a_flood_into_the_graders_pipes_costs_it_no_memory(box):
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    (answer,) = run(box, FLOOD + WRONG)
    grown_mb = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    assert not answer.get("passed") and grown_mb < 50, (answer, grown_mb)


OK = '{"index": %d, "passed": true, "message": "ok", "exit": 0, "timed_out": false}'
# {what the worker does: (its script, what the mentor reads of why there is no verdict)}
WORKERS = {
    "floods its stdout": ("import sys; sys.stdout.write('x' * (3 << 20))", "more than 1 MB on its pipe"),
    "floods its stderr": ("import sys; print('{\"ready\": true}', flush=True); sys.stderr.write('x' * (3 << 20))",
                          "more than 1 MB on its pipe"),
    "answers out of order": (f"print('{{\"ready\": true}}'); print('{OK % 1}'); print('{OK % 0}')",
                             "it answered out of order"),
    "answers before it is ready": (f"print('{OK % 0}')", "it did not start"),
    "dies after its answers": (f"import os; print('{{\"ready\": true}}'); print('{OK % 0}', flush=True); os._exit(9)",
                               "its worker ended with exit code 9"),
    "answers garbage": ("print('{\"ready\": true}'); print('all passed')", "it sent a malformed answer"),
    "stalls": ("import time; print('{\"ready\": true}', flush=True); time.sleep(60)", "it gave no answer in time"),
}


@pytest.mark.parametrize("script, why", WORKERS.values(), ids=WORKERS.keys())
def test_a_worker_that_breaks_the_protocol_gives_a_void_verdict_not_a_pass(trusted, monkeypatch, script, why):
    # The supervisor waits the time limit and as much again for a worker's next answer: the stalling one is given
    # 0.5 s (1 s of waiting, not 4); the others answer at once and keep 2 s, so a busy machine is no stall.
    monkeypatch.setattr(trusted, "limits", replace(trusted.limits, wall_seconds=0.5 if "sleep" in script else 2))
    monkeypatch.setattr(trusted, "command", lambda home: [sys.executable, "-c", script])
    first = trusted.run_once([{**JOB, "source": RIGHT}])
    assert [list(a) for a in first] == [["void"]], first
    assert first[0]["void"].startswith("the grading sandbox stopped answering: ") and why in first[0]["void"], first


def test_auto_stops_with_the_install_command_where_bubblewrap_cannot_run(monkeypatch):
    from course.grading import sandbox

    monkeypatch.setattr(sandbox, "bwrap_problem", lambda: f"bubblewrap is not installed: {sandbox.INSTALL}.")
    for mode in ("auto", "bwrap"):
        with pytest.raises(SandboxError, match="apt-get install bubblewrap") as e:
            Sandbox(mode)
        assert "Nothing was graded" in str(e.value) and "--sandbox process" in str(e.value)


def test_the_command_line_stops_without_bubblewrap_and_grades_nothing(tmp_path):
    (tmp_path / "a.ipynb").write_text("{}")
    done = subprocess.run([sys.executable, "-m", "course.grading", str(tmp_path / "a.ipynb"), "--out",
                           str(tmp_path / "out")], capture_output=True, text=True, cwd=ROOT,
                          env={"PATH": "/nonexistent", "PYTHONPATH": str(ROOT), "HOME": str(tmp_path)})
    assert done.returncode == 2 and "apt-get install bubblewrap" in done.stdout, done.stdout + done.stderr
    assert not (tmp_path / "out").exists()


# -- the vocabulary rule -------------------------------------------------------------------------------
def test_every_reference_solution_is_inside_its_lessons_vocabulary():
    flagged = {p.name: review(p.read_text(), int(p.name[1])) for p in sorted((ROOT / "solutions").glob("l*.py"))}
    assert {k: v for k, v in flagged.items() if v} == {}


HONEST = {
    "a loop instead of `in`": "def only(allowed):\n    keep = list(allowed)\n    def rule(name, arguments):\n"
                              "        for a in keep:\n            if a == name:\n                return None\n"
                              "        return 'deny'\n    return rule\n",
    "a comprehension and sorted": "def only(allowed):\n    keep = frozenset(sorted(str(a) for a in allowed))\n"
                                  "    return lambda name, arguments: None if name in keep else 'deny'\n",
    "a dataclass and re": "import re\nfrom dataclasses import dataclass\n@dataclass\nclass Rule:\n    keep: set\n"
                          "    def __call__(self, name, arguments):\n        return None if re.fullmatch('|'.join("
                          "map(re.escape, self.keep)), name) else 'deny'\n",
}


# Honest stateful classes: `self` changed in any method, reached through an instance (issue 20: `self.n += 1`
# outside `__init__` was "review").
COUNT = "class Count:\n    def __init__(self):\n        self.n = 0\n    def add(self, k=1):\n        self.n += k\n" \
        "        return self.n\n"
HONEST |= {
    "a counter whose method changes self": COUNT + "c = Count()\nc.add()\nprint(c.add(2), type(c) is Count, "
                                           "isinstance(c, Count))\n",
    "a property setter and a classmethod": "class Budget:\n    def __init__(self, left):\n"
        "        self.remaining = left\n    @property\n    def left(self):\n        return self.remaining\n"
        "    @left.setter\n    def left(self, value):\n"
        "        self.remaining = max(0, value)\n    @classmethod\n    def empty(cls):\n        made = cls(0)\n"
        "        cls.made = True\n        return made\n    def spend(self, n):\n        self.left = self.left - n\n",
    "a subclass and super()": COUNT + "class Twice(Count):\n    def add(self, k=1):\n        super().add(k)\n"
                              "        self.last = k\n        return super().add(k)\n",
    "a dataclass that keeps a log": "from dataclasses import dataclass, field\n@dataclass\nclass Log:\n"
        "    seen: list = field(default_factory=list)\n    def keep(self, name: str) -> 'Log':\n"
        "        self.seen.append(name)\n        self.seen.sort()\n        return self\n"
        "def make() -> Log:\n    return Log().keep('a')\n",
    "its own list changed in place": "def only(allowed):\n    keep = list(allowed)\n    keep.sort()\n"
                                     "    return lambda name, arguments: None if name in keep else 'deny'\n",
}


@pytest.mark.parametrize("source", HONEST.values(), ids=HONEST.keys())
def test_honest_variants_stay_inside_the_vocabulary(source):
    assert review(source, 4) == []


@pytest.mark.parametrize("source, why", [
    ("import sys\nf = sys._ｇｅｔｆｒａｍｅ(1)\n", "non-ASCII identifier"),
    ("import sys\nm = sys .modules\n", "imports `sys`"),
    ("from course.exercises import registry\nregistry.REGISTRY\n", "the grader's own code"),
    ("import course.permissions\nx = course.exercises.registry\n", "reaches the module `course.exercises`"),
    ("x = object.__setattr__\n", "`__setattr__`"),
    ("import gc\n", "imports `gc`"),
    ("import math\nmath.isnan = lambda x: False\n", "changes `math`"),
    ("def f():\n    return (x for x in ()).gi_frame.f_back\n", "frame, code or traceback"),
    ("from course.permissions import refund_limit\n", "never imports it"),
    ("import math" + " " * 3000 + "; import os\n", "characters long"),
    # seen passing the rule before: form feeds and line separators end a line for str.splitlines, not for Python
    ("import math" + ("\x0c" + " " * 150) * 20 + "; x = 1\n", "characters long"),
    ("x = 1  # " + ("\u2028" + " " * 150) * 20 + "\n", "characters long"),
    ("e = eval('1' '+1')\n", "`eval`"),
    ("import asyncio\nasyncio.create_subprocess_shell('echo >&3', pass_fds=(3,))\n", "start a program"),
    ("class Always:\n    def __eq__(self, other):\n        return True\n", "`__eq__`"),
])
def test_a_cell_outside_the_vocabulary_is_flagged_with_the_reason_and_the_line(source, why):
    reasons = review(source, 4)
    assert any(why in r and r.startswith("line ") for r in reasons), reasons


# -- the reports ---------------------------------------------------------------------------------------
def learner(name: str, *results: Grade, **kw) -> Learner:
    return Learner(name, Path(f"{name}.ipynb"), 4, results=list(results), **kw)


def test_a_learner_page_shows_reasons_first_the_code_as_it_ran_and_never_run(tmp_path):
    code = "import math" + " " * 150 + "import os\nx = 'a\u200bb'  # ｘ\n"
    anna = learner("Anna", Grade("l4-guard", "review", "passed", code, reasons=["line 1: 161 characters long"]),
                   never_run=True)
    page = report.write([anna], tmp_path, copies=False)["Anna.ipynb"].read_text()
    assert page.index("line 1: 161 characters long") < page.index('<pre class="code">')
    assert "⏎ wrapped" in page and "U+200B" in page and "U+FF58" in page and "never run" in page
    assert "lesson 4" in page


def test_what_a_mentor_reads_has_no_escaped_quotes_and_says_what_to_do_when_there_is_no_verdict(tmp_path):
    (reason,) = review("s = \"it's {0.__class__}\".format(1)\n", 4)
    assert "`it's {0.__class__}`" in reason, reason  # as written: no repr, no \\'
    result = Grade("l4-guard", "not yet", "", "x", reasons=[reason])
    settle(result, {"void": "the grading sandbox stopped answering: its worker ended with exit code -9."},
           SandboxLimits())
    report.write([learner("Anna", result)], tmp_path, copies=False)
    text = html.unescape((tmp_path / "Anna.html").read_text())
    assert "\\'" not in text and "it's {0.__class__}" in text and "void" not in text.lower()
    assert result.status == "review" and "read it, then re-grade this learner or override" in text


def test_class_csv_merges_marks_the_missing_and_defuses_formulas(tmp_path):
    a = learner("=HYPERLINK(1)", Grade("l4-guard", "pass", "ok", "x"), Grade("l4-log", "review", "", "y"))
    b = learner("Ben", Grade("l4-guard", "not yet", "no", "x"), Grade("l4-log", "no cell", ""))
    report.write([a, b], tmp_path, roster=["Ben", "Cleo"], copies=False)
    report.write([learner("Ben", Grade("l4-guard", "pass", "ok", "x"), Grade("l4-log", "pass", "", "z"))],
                 tmp_path, copies=False)  # Ben alone, again
    with (tmp_path / "class.csv").open(newline="") as f:
        rows = {r["learner"]: r for r in csv.DictReader(f)}
    assert set(rows) == {"'=HYPERLINK(1)", "Ben", "Cleo"}
    assert rows["'=HYPERLINK(1)"]["l4-guard"] == "pass" and rows["'=HYPERLINK(1)"]["points"] == "1"
    assert rows["Ben"]["points"] == "2" and rows["Ben"]["max_points"] == "2" and rows["Ben"]["lesson"] == "4"
    assert rows["Cleo"]["status"] == "missing" and rows["Ben"]["graded_at"] and rows["Ben"]["sandbox"]


def test_a_mentors_override_and_comment_are_recorded_and_shown(tmp_path):
    from course.grading.cli import main

    report.write([learner("Anna", Grade("l4-guard", "review", "", "x", reasons=["line 1: `getattr`"]))], tmp_path,
                 copies=False)
    assert main(["--out", str(tmp_path), "--learner", "Anna", "--exercise", "l4-guard", "--by", "Mia",
                 "--override", "pass"]) == 2  # an override needs a reason
    assert main(["--out", str(tmp_path), "--learner", "Anna", "--exercise", "l4-guard", "--by", "Mia",
                 "--override", "pass", "--why", "getattr reads the approver's name", "--comment", "good"]) == 0
    page = html.unescape((tmp_path / "Anna.html").read_text())
    assert "Changed from review to pass by Mia: getattr reads the approver's name" in page
    assert "Mentor (Mia): good" in page
    assert "Anna,Anna.ipynb,4,graded,pass,1,1" in (tmp_path / "class.csv").read_text()


def test_process_mode_is_labelled_not_sandboxed_in_every_report(tmp_path, trusted):
    report.write([learner("Anna", Grade("l4-guard", "pass", "", "x"))], tmp_path, trusted.label, copies=False)
    for name in ("index.html", "Anna.html", "class.csv", "Anna.json"):
        assert "NOT SANDBOXED" in (tmp_path / name).read_text(), name


def test_copies_between_learners_and_of_the_solution_are_listed_in_pairs(tmp_path):
    guard = (ROOT / "solutions" / "l4-guard.py").read_text()
    own = "def guard(execute, policy, approver):\n    return execute\n" * 3
    class_ = [learner(n, Grade("l4-guard", "pass", "", c)) for n, c in (("Anna", guard), ("Ben", guard),
                                                                          ("Cleo", own), ("Dan", own), ("Eve", own))]
    pairs = report.similar(class_)
    # Anna and Ben both copied the solution: listed with it, not once more with each other.
    assert set(pairs) == {("Anna", "solutions/l4-guard.py"), ("Ben", "solutions/l4-guard.py"), ("Cleo", "Dan"),
                          ("Cleo", "Eve"), ("Dan", "Eve")}, pairs
    assert [ex for ex, _ in pairs["Cleo", "Dan"]] == ["l4-guard"]
    report.write(class_, tmp_path)
    index = html.unescape((tmp_path / "index.html").read_text())
    assert "Cleo ~ Dan: l4-guard 100 %" in index and "Anna ~ solutions/l4-guard.py: l4-guard 100 %" in index
    assert "Anna ~ Ben" not in index


def test_what_the_notebook_hands_out_in_a_cell_and_an_assemble_step_are_no_copy():
    # Before, two different bodies in l4-guard's handed-out lines were listed, and every learner's assemble
    # step (the pieces' cells again) made one more pair.
    stub = report.handed_out(4)["l4-guard"].replace("        raise NotImplementedError\n", "{}")
    mine = ["        arguments = json.loads(arguments_json)\n        return execute(name, arguments)\n",
            "        return await approver(name)\n"]  # 82 % alike before: the 11 lines everyone got
    class_ = [learner(n, Grade("l4-guard", "pass", "", stub.format(body)), Grade("l4-assemble", "pass", "", stub))
              for n, body in zip(("Anna", "Ben"), mine, strict=True)]
    assert report.similar(class_) == {}


def test_a_cell_copied_from_the_courses_own_implementation_is_listed_against_it():
    import inspect
    import textwrap

    from course import permissions

    copied = "# EXERCISE l4-policy\n" + textwrap.dedent(inspect.getsource(permissions.Policy.decide))
    pairs = report.similar([learner("Dan", Grade("l4-policy", "pass", "", copied))])
    assert list(pairs) == [("Dan", "course/permissions.py")], pairs


def test_process_mode_grades_trusted_work_and_ends_what_a_cell_left_running(trusted):
    leaves = "import subprocess\nsubprocess.Popen(['sleep', '4713'], start_new_session=True)\n" + RIGHT
    right, wrong = run(trusted, leaves, WRONG)
    assert right["passed"] and not wrong["passed"], (right, wrong)
    left = [p for p in Path("/proc").glob("[0-9]*/cmdline") if p.read_bytes().split(b"\0")[:2] == [b"sleep", b"4713"]]
    assert left == []


def test_the_rule_imports_nothing_to_judge_a_cell(monkeypatch):
    import importlib

    imported: list[str] = []
    real = importlib.import_module
    monkeypatch.setattr(importlib, "import_module", lambda name, *a: imported.append(name) or real(name, *a))
    reasons = review("import antigravity\nantigravity.fly\nimport json\njson.decoder\n", 4)
    assert any("imports `antigravity`" in r for r in reasons) and imported == []


@pytest.mark.parametrize("source", [
    "import course.permissions\nrefund_limit = course.permissions.refund_limit\n",
    "import course\nrefund_limit = course.permissions.refund_limit\n",
    "import course.permissions as p\nrefund_limit = p.refund_limit\n",
    "import course.permissions as p\nrefund_limit = (q := p).refund_limit\n",
    "import course.permissions as p\nrefund_limit = [p][0].refund_limit\n",
])
def test_the_courses_own_answer_reached_through_a_module_attribute_is_flagged(source):
    # Seen passing the rule before: only `from course.permissions import refund_limit` was caught.
    reasons = review(source, 4)
    assert any("course.permissions" in r and r.startswith("line 2") for r in reasons), reasons


def test_an_endless_loop_costs_its_own_exercise_the_time_limit_and_the_next_one_is_graded(box, monkeypatch):
    # 2 s: the loop waits it out; the right answer's check takes about 10 ms, a margin on a busy machine.
    monkeypatch.setattr(box, "limits", replace(box.limits, wall_seconds=2))
    loop, right = run(box, "while True:\n    pass\n", RIGHT)
    assert loop["timed_out"] and not loop["passed"] and right["passed"], (loop, right)


# -- variations found by review (issue 20's follow-up) -------------------------------------------------
PROC_FD = ("from course.paths import WORK\ndef refund_limit(name, arguments):\n    return None\n"
           "type(WORK)('/proc/self/fd/3').write_text(\"(True, 'fine')\\n\")\n"
           "class Done(BaseException):\n    pass\nraise Done\n")
SWAPPED = ("import os\ndef refund_limit(name, arguments):\n    return None\n"
           "os.write(3, b\"(True, 'ok')\\n\")\nos.dup2(1, 3)\n")


def test_a_verdict_written_through_proc_self_fd_then_a_base_exception_is_no_pass(box):
    answer, right = run(box, PROC_FD, RIGHT)
    assert not answer["passed"] and answer.get("forged"), answer
    assert right["passed"], right


def test_a_verdict_written_on_the_pipe_and_the_pipe_swapped_with_dup2_is_no_pass(box):
    answers = run(box, SWAPPED, SWAPPED.replace("os.dup2(1, 3)", "os.close(3)"), RIGHT)
    assert [a["passed"] for a in answers] == [False, False, True], answers
    assert all(a.get("forged") for a in answers[:2]), answers


@pytest.mark.parametrize("source, lesson, why", [
    ("os.write(3, b'(True, 1)')\nos.dup2(1, 3)\n", 6, "`os`"),  # bound by the notebook's setup, not imported
    ("p = Path('/proc/self/fd/3')\n", 6, "`Path`"),
    ("from pathlib import Path\n", 6, "imports `pathlib`"),
    ("import os\nos.execl('/bin/true', 'true')\n", 6, "start a program"),
    ("def f():\n    pass\ng = getattr(f, '_' * 2 + 'globals' + '_' * 2)\n", 4, "`getattr` with a computed name"),
    ("import string\ng = string.Formatter().get_field('0._' + '_globals__', (len,), {})\n", 4, "`get_field`"),
    ("import typing\ndef f() -> \"(__import__('os'), int)[1]\":\n    pass\ntyping.get_type_hints(f)\n", 4,
     "`get_type_hints`"),
    ("s = '{0.__class__}'.format(1)\n", 4, "`{0.__class__}`"),
    # seen passing the rule before: attributes named in a match pattern, modules passed on, setattr by name
    ("import uuid\nmatch uuid:\n    case object(os=o):\n        pass\n", 4, "`.os` reaches a system module"),
    ("match 1:\n    case object(_exit=e):\n        e(0)\n", 4, "`_exit`"),
    ("import math\nm = math\nm.isnan = len\n", 4, "passes the module `math` on"),
    ("import math\n(math,)[0].isnan = len\n", 4, "passes the module `math` on"),
    ("import math\ndef f(m):\n    m.isnan = len\nf(math)\n", 4, "passes the module `math` on"),
    ("import itertools\nm = itertools\n", 4, "passes the module `itertools` on"),  # built into the interpreter
    ("import math, functools\nfunctools.update_wrapper(math, len, ('isnan',), ())\n", 4, "`update_wrapper`"),
    ("import math, functools\nfunctools.wraps(len)(math)\n", 4, "`wraps`"),
    ("time.perf_counter = lambda: 0.0\n", 2, "changes `time`"),  # bound by the lesson's setup, not the cell
    ("agent.time.perf_counter = lambda: 0.0\n", 2, "changes `agent`"),
    # a module reached through another's attribute, then changed: any attribute but `self.x` in __init__ & co
    ("import statistics\nm = statistics.math\nm.isnan = len\n", 4, "changes `m`"),
    ("import statistics\nfor statistics.math.isnan in [len]:\n    pass\n", 4, "changes `statistics`"),
    ("import statistics\nclass R:\n    def s(self):\n        self.isnan = len\nR.s(statistics.math)\n", 4,
     "reached through its class"),
    ("class R:\n    def __init__(self, m):\n        self = m\n        self.isnan = len\n", 4, "changes `self.isnan`"),
    ("X = type('X', (), {'_' * 2 + 'eq' + '_' * 2: lambda s, o: True})\n", 4, "three arguments"),
    # lesson 9's `re.compile` is an attribute, not the builtin: seen passing in bubblewrap (os._exit(0) run this way)
    ("f = type(lambda: 0)(compile('import os', 'x', 'exec'), {})\n", 9, "`compile`: a builtin"),
    ("import uuid\no = getattr(uuid.UUID, 'os')\n", 4, "`.os` reaches a system module"),
    ("import uuid\no = getattr(uuid.UUID, '_exit')\n", 4, "`_exit`"),
    ("import typing\nc = typing.CodeType\n", 4, "`CodeType`"),  # a function made of bytes the rule never reads
    # lesson 4's solutions call getattr(x, "name"): seen passing in bubblewrap, getattr handed on with a built name
    ("(g,) = map(getattr, [len], ['_' * 2 + 'self' + '_' * 2])\n", 4, "`getattr` with a computed name"),
    ("g = getattr\nx = g(len, 'o' + 's')\n", 4, "`getattr` with a computed name"),
])
def test_routes_around_the_names_the_rule_reads_are_flagged_with_the_reason_and_the_line(source, lesson, why):
    reasons = review(source, lesson)
    assert any(why in r and r.startswith("line ") for r in reasons), reasons


def test_a_module_reached_through_another_is_reported_on_its_own_line():
    reasons = review("import course.permissions\n\nx = course.exercises.registry\nprint(x)\n", 4)
    assert any(r.startswith("line 3: reaches the module") for r in reasons), reasons


# The learner's half-line plus the check's own line, closed by a message the cell chose: one valid tuple.
SPLICED = ("from course.paths import WORK\ndef refund_limit(name, arguments):\n"
           "    raise ValueError(\"''\\')#\")\n"
           "type(WORK)('/proc/self/fd/3').write_text(\"(True, '''\")\n")


def test_a_half_line_the_checks_own_verdict_completes_is_no_pass(box):
    assert review(SPLICED, 4) == []  # nothing the rule can see: the pipe's framing must hold
    answer, right = run(box, SPLICED, RIGHT)
    assert not answer["passed"] and answer.get("forged"), answer
    assert right["passed"], right


@pytest.mark.parametrize("source", [
    "import dataclasses\nd = dataclasses\nm = d.sys.modules['course.exercises.lesson4']\nm.isinstance = len\n",
    "import dataclasses\nm = [dataclasses][0].sys.modules\n",
    "import asyncio\ne = (asyncio,)[0].base_events.os\n",
    # seen passing the rule before: system modules an allowed one imports, under names a lesson might use
    "import asyncio\ns = asyncio.runners.signal\n",
    "import asyncio\nt = asyncio.events.threading\n",
    "import dataclasses\nc = dataclasses.types\n",
    "import asyncio\nt = asyncio.coroutines.traceback\n",
    "import asyncio\nw = asyncio.tasks.weakref\n",
    "import re\nc = re.copyreg\n",
    "import asyncio\ni = asyncio.unix_events.io\n",
])
def test_a_system_module_reached_through_an_alias_of_an_allowed_one_is_flagged(source):
    reasons = review(source, 4)
    assert any("reaches a system module" in r and r.startswith("line ") for r in reasons), reasons


# -- the rule's gaps: a method that changes `self` reached through its class, a shared value changed by a
# method call, a decorator called on a class the setup gives (each gave [] before) ----------------------
R_INIT = "import statistics\nclass R:\n    def __init__(self):\n        self.isnan = len\n"
R_ADD = "import statistics\nclass R:\n    def add(self):\n        self.isnan = len\n"


@pytest.mark.parametrize("source, why", [
    (R_INIT + "R.__init__(statistics.math)\n", "`R.__init__`: a method that changes `self`, reached through its class"),
    (R_INIT.replace("__init__", "__call__") + "R.__call__(statistics.math)\n", "`R.__call__`"),
    (R_ADD + "R.add(statistics.math)\n", "`R.add`"),
    (R_ADD + "class S(R):\n    pass\nS.add(statistics.math)\n", "`S.add`"),
    (R_ADD + "C = R\nC.add(statistics.math)\n", "hands the class `R` on"),
    (R_ADD + "def f(c):\n    c.add(statistics.math)\nf(R)\n", "hands the class `R` on"),
    (R_ADD + "type(R()).add(statistics.math)\n", "`type(R())` as a value"),
    (R_ADD + "c = type(R())\nc.add(statistics.math)\n", "`type(R())` as a value"),
    (R_ADD + "getattr(R, 'add')(statistics.math)\n", "hands the class `R` on"),
    (R_ADD + "R.mro()[0].add(statistics.math)\n", "`R.mro`"),
    (R_ADD + "super(R, R).add(statistics.math)\n", "hands the class `R` on"),
    (R_ADD + "import functools\nfunctools.partial(R.add, statistics.math)()\n", "`R.add`"),
    (R_ADD.replace("    def add", "    @classmethod\n    def make(cls):\n        cls.add(statistics.math)\n"
                   "    def add"), "`cls.add`"),
    (R_ADD.replace("    def add", "    @staticmethod\n    def add") + "R().add(statistics.math)\n",
     "changes `self.isnan`"),  # a static method's first argument is whatever it is given
])
def test_a_method_that_changes_self_reached_through_its_class_is_flagged(source, why):
    reasons = review(source, 4)
    assert any(why in r and r.startswith("line ") for r in reasons), reasons


@pytest.mark.parametrize("source, lesson, why", [
    ("guards.REQUESTS.clear()\n", 8, "changes `guards` with `.clear(...)`"),
    ("r = guards.REQUESTS\nr.pop('issue_refund')\n", 8, "changes `r` with `.pop(...)`"),
    ("for r in [guards.REQUESTS]:\n    r.update({})\n", 8, "changes `r` with `.update(...)`"),
    ("dict.clear(guards.REQUESTS)\n", 8, "changes `guards` with `.clear(...)`"),
    ("(r := guards.REQUESTS)['issue_refund'] = None\n", 8, "changes `guards`"),
    ("r = guards.REQUESTS\ndel r['issue_refund']\n", 8, "changes `r`"),
    ("DEFAULT_INHERITED_ENV_VARS.append('OPENAI_API_KEY')\n", 6, "changes `DEFAULT_INHERITED_ENV_VARS`"),
    ("list.extend(DEFAULT_INHERITED_ENV_VARS, ['OPENAI_API_KEY'])\n", 6, "changes `DEFAULT_INHERITED_ENV_VARS`"),
    ("from heapq import heappush\nheappush(DEFAULT_INHERITED_ENV_VARS, 'X')\n", 6, "`heappush` changes its first"),
    ("import heapq\nh = heapq.heappush\n", 6, "`heappush` changes its first"),
    ("ToolAnnotations.model_fields.pop('title')\n", 5, "changes `ToolAnnotations`"),
    ("REPEAT_NOTE.append(1)\n", 2, "changes `REPEAT_NOTE`"),
])
def test_a_method_call_that_changes_what_the_setup_gives_is_flagged(source, lesson, why):
    reasons = review(source, lesson)
    assert any(why in r and r.startswith("line ") for r in reasons), reasons


@pytest.mark.parametrize("source, lesson", [
    ("from dataclasses import dataclass\ndataclass(Policy)\n", 4),
    ("import dataclasses\ndataclasses.dataclass(eq=False)(Limits)\n", 4),
    ("from dataclasses import dataclass\nd = dataclass(frozen=True)\nd(Limits)\n", 4),
    ("import functools\nfunctools.total_ordering(Limits)\n", 2),
    ("import functools\nlist(map(functools.total_ordering, [Limits]))\n", 2),
    ("import typing\ntyping.final(Policy)\n", 4),
    ("from functools import total_ordering as t\nt(ScriptedModel)\n", 2),
])
def test_a_decorator_called_on_a_class_the_setup_gives_is_flagged(source, lesson):
    reasons = review(source, lesson)
    assert any("not as a decorator of the cell's own class" in r and r.startswith("line 2") for r in reasons), reasons


def test_a_decorator_on_the_cells_own_class_stays_inside_the_vocabulary():
    source = ("import functools\nfrom dataclasses import dataclass\n@functools.total_ordering\n"
              "@dataclass(frozen=True)\nclass Price:\n    cents: int\n    def __lt__(self, other):\n"
              "        return self.cents < other.cents\nclass Raw:\n    pass\nRaw = dataclass(Raw)\n")
    reasons = review(source, 4)
    assert not [r for r in reasons if "decorator" in r] and any("`__lt__`" in r for r in reasons), reasons


def test_an_assemble_step_names_a_piece_under_review_once_and_still_reads_the_pieces_with_its_own_cell():
    from course.exercises import load_all
    from course.grading.runner import prepare

    load_all()
    anna = Learner("Anna", Path("Anna.ipynb"), 4)
    piece = "class R:\n    def add(self):\n        self.isnan = len\n"  # inside the vocabulary on its own
    prepare(anna, {"l4-refund-limit": ["import sys\n"], "l4-policy": [piece],
                   "l4-assemble": ["# EXERCISE l4-assemble\nimport statistics\nR.add(statistics.math)\n"]}, 4)
    step = {r.id: r for r in anna.results}["l4-assemble"]
    assert step.reasons[0] == "runs the cell of l4-refund-limit first, which is under review (see there)"
    assert not any("`sys`" in r for r in step.reasons), step.reasons  # said once, on l4-refund-limit's page
    (call,) = [r for r in step.reasons if "`R.add`" in r]  # the piece's class, the step's call: read together
    assert step.code.split("\n")[int(call.split(":")[0].removeprefix("line ")) - 1] == "R.add(statistics.math)"
