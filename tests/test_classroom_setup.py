"""`make setup`: the learner set for `make lab`, the developer set for `make test`, uv or pip, a wheelhouse.

scripts/setup.sh runs here against a stand-in venv whose `python` (and a stand-in `uv`) only
record how they were called, so these tests check the installer's choices without installing.
"""

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RECORDER = """#!/bin/sh
echo "$(basename "$0") $*" >> "{log}"
case "$*" in *"import torch"*) exit 0 ;; esac   # torch "is installed": no CPU-build step
exit 0
"""


def run_setup(tmp_path: Path, what: str, *, uv: bool = False, wheels: bool = False) -> list[str]:
    log = tmp_path / "calls.log"
    venv_bin = tmp_path / "venv" / "bin"
    tools = tmp_path / "tools"
    for folder in (venv_bin, tools):
        folder.mkdir(parents=True, exist_ok=True)
    (venv_bin / "python").write_text(RECORDER.format(log=log))
    (venv_bin / "python").chmod(0o755)
    if uv:
        (tools / "uv").write_text(RECORDER.format(log=log))
        (tools / "uv").chmod(0o755)
    wheelhouse = tmp_path / "wheelhouse"
    wheelhouse.mkdir(exist_ok=True)
    if wheels:
        (wheelhouse / "openai-3.51.0-py3-none-any.whl").write_bytes(b"")
    path = os.pathsep.join([str(tools), *(p for p in os.environ["PATH"].split(os.pathsep)
                                          if not (Path(p) / "uv").exists())])
    env = os.environ | {"PYTHON": sys.executable, "VENV": str(tmp_path / "venv"), "WHEELHOUSE": str(wheelhouse),
                        "INSTALLER": "auto", "PATH": path}
    done = subprocess.run([shutil.which("sh") or "sh", "scripts/setup.sh", what], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert re.search(r"ready: the \w+ set in .* in \d+ s", done.stdout), done.stdout  # says how long it took
    return [line for line in log.read_text().splitlines() if "install" in line]


def test_make_setup_installs_the_learner_set_without_test_tools(tmp_path):
    calls = run_setup(tmp_path, "lab")
    assert any(c.endswith("-e .") for c in calls) and not any("[dev]" in c for c in calls)


def test_the_developer_set_adds_the_dev_extra(tmp_path):
    assert any(c.endswith('-e .[dev]') for c in run_setup(tmp_path, "dev"))


def test_uv_installs_when_it_is_on_path_and_pip_otherwise(tmp_path):
    with_uv = run_setup(tmp_path / "a", "lab", uv=True)
    assert any(c.startswith("uv pip install") for c in with_uv)
    assert not any(c.startswith("python -m pip install") for c in with_uv)
    assert any(c.startswith("python -m pip install") for c in run_setup(tmp_path / "b", "lab"))


def test_a_wheelhouse_means_no_index_at_all(tmp_path):
    calls = run_setup(tmp_path, "lab", wheels=True)
    course = next(c for c in calls if c.endswith("-e ."))
    assert f"--no-index --find-links {tmp_path / 'wheelhouse'}" in course
    assert not run_setup(tmp_path / "empty", "lab", wheels=False)[0].count("--no-index")


def test_make_lab_needs_only_the_learner_set_and_make_test_the_developer_set():
    makefile = (ROOT / "Makefile").read_text()
    assert re.search(r"^lab: setup$", makefile, re.M) and re.search(r"^setup: \$\(READY\)$", makefile, re.M)
    assert re.search(r"^\$\(READY\):.*\n\t@\$\(SETUP\) lab$", makefile, re.M)
    # `make test` runs the static gate first; the gate needs the developer set.
    assert re.search(r"^test: lint ", makefile, re.M) and re.search(r"^lint: \$\(DEV\)$", makefile, re.M)
    assert re.search(r"^\t@\$\(SETUP\) dev$", makefile, re.M)


def test_the_wheelhouse_holds_the_locked_learner_set_for_every_supported_python(tmp_path):
    log, bin_ = tmp_path / "calls.log", tmp_path / "bin"
    bin_.mkdir()
    (bin_ / "python").write_text(RECORDER.format(log=log))
    (bin_ / "python").chmod(0o755)
    env = os.environ | {"PYTHON": str(bin_ / "python"), "WHEELHOUSE": str(tmp_path / "wheelhouse")}
    done = subprocess.run([shutil.which("sh") or "sh", "scripts/wheelhouse.sh"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    calls = [c for c in log.read_text().splitlines() if " download " in c]
    for version in ("3.11", "3.12", "3.13"):  # pyproject.toml's requires-python, every minor version
        assert any(f"--python-version {version} --no-deps -r " in c for c in calls), (version, calls)
    assert "Python 3.12:" in done.stdout and "Python 3.13:" in done.stdout
    pins = (ROOT / "binder" / "requirements.txt").read_text()  # what -r reads: every package at the lock's version
    assert "numpy==" in pins and "pydantic-core==" in pins


def test_a_wheelhouse_for_one_python_only_is_a_choice_the_teacher_makes(tmp_path):
    log, bin_ = tmp_path / "calls.log", tmp_path / "bin"
    bin_.mkdir()
    (bin_ / "python").write_text(RECORDER.format(log=log))
    (bin_ / "python").chmod(0o755)
    env = os.environ | {"PYTHON": str(bin_ / "python"), "WHEELHOUSE": str(tmp_path / "w"), "PYTHONS": "3.12"}
    subprocess.run([shutil.which("sh") or "sh", "scripts/wheelhouse.sh"], cwd=ROOT, env=env, check=True,
                   capture_output=True, timeout=60)
    calls = log.read_text()
    assert "--python-version 3.12" in calls and "--python-version 3.11" not in calls


def exercise_sections() -> dict[str, tuple[int, int]]:
    """exercise id -> (lesson, the section of its notebook it sits in), read from lessons 1-6."""
    import json

    found: dict[str, tuple[int, int]] = {}
    for notebook in sorted((ROOT / "notebooks").glob("0[1-6]_*.ipynb")):
        lesson, section = int(notebook.name[:2]), 0
        for cell in json.loads(notebook.read_text())["cells"]:
            text = "".join(cell["source"])
            if cell["cell_type"] == "markdown":
                section = ([int(m) for m in re.findall(r"^## (\d+)\.", text, re.M)] or [section])[-1]
            for named in re.findall(r"""EXERCISE (l\d-[a-z0-9-]+)|exercise\(["'](l\d-[a-z0-9-]+)""", text):
                found.setdefault(named[0] or named[1], (lesson, section))
    return found


def test_every_exercise_workshop_md_names_exists_and_a_paths_exercise_is_in_a_section_it_covers():
    sections = exercise_sections()
    text = (ROOT / "WORKSHOP.md").read_text()
    named = set(re.findall(r"`(l[1-6]-[a-z0-9-]+)`", text))
    assert named and named <= set(sections), f"WORKSHOP.md names exercises no lesson has: {named - set(sections)}"
    rows = re.findall(r"^\| \d+ \| (\d) · ([^|]*)\|([^\n]*)$", text.split("## Before the day")[0], re.M)
    assert len(rows) >= 10  # both paths' lesson rows
    for lesson, covered, rest in rows:
        listed = covered.split("(")[0]
        spans = [(int(a), int(b or a)) for a, b in re.findall(r"§(\d+)(?:–(\d+))?", listed)]
        for exercise in re.findall(r"`(l\d-[a-z0-9-]+)`", rest):
            where = sections[exercise]
            assert where[0] == int(lesson), f"{exercise} is not lesson {lesson}'s"
            assert listed.strip().startswith("all") or any(a <= where[1] <= b for a, b in spans), (
                f"{exercise} is in §{where[1]} of lesson {lesson}, which the row '{covered.strip()}' skips")
