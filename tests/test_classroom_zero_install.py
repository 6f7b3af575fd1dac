"""Zero-install: Binder (binder/) and a dev container (.devcontainer/) give learners the same course.

repo2docker reads binder/ before environment.yml, so binder/ decides what Binder installs. These
tests keep its files in step with pyproject.toml; `repo2docker --no-build --debug .` showed the
Dockerfile it would build from them (WORKSHOP.md says what could not be run here).
"""

import json
import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
LOCK = dict(line.split("==", 1) for line in (ROOT / "requirements.lock").read_text().splitlines() if "==" in line)


def name(spec: str) -> str:
    return re.split(r"[<>=!\[ ;]", spec, maxsplit=1)[0].lower().replace("_", "-")


def binder_requirements() -> list[str]:
    lines = (ROOT / "binder" / "requirements.txt").read_text().splitlines()
    return [line.strip() for line in lines if line.strip() and not line.startswith(("#", "-"))]


def test_binder_requirements_are_the_learner_set_pinned_by_the_lock_as_tools_pins_writes_them():
    from tools.pins import binder_text

    assert (ROOT / "binder" / "requirements.txt").read_text() == binder_text(), \
        "binder/requirements.txt is stale: run `.venv/bin/python -m tools.pins`"


def test_binder_pins_every_learner_dependency_at_the_locks_version_and_no_test_or_hub_tool():
    binder = {name(s): s for s in binder_requirements()}
    for dependency in PROJECT["dependencies"]:
        pin = binder[name(dependency)]
        assert pin.split("==")[1].removesuffix("+cpu") == LOCK[next(k for k in LOCK if name(k) == name(dependency))]
    ranges = [s for s in binder.values() if "==" not in s]
    assert ranges == ["setuptools>=77.0.3"], "only what the lock leaves out (pip freeze omits setuptools) is a range"
    for tool in ("pytest", "nbval", "ruff", "mypy", "playwright", "jupyterhub", "import-linter", "copydetect"):
        assert tool not in binder, "no test or hub tools on Binder"


def test_the_learner_set_needs_nothing_more_on_python_3_12_or_3_13_than_on_3_11():
    from tools.pins import learner_set

    assert set(learner_set(("3.12",))) <= set(learner_set(("3.11",)))
    assert set(learner_set(("3.13",))) <= set(learner_set(("3.11",)))


def test_binder_takes_the_cpu_build_of_the_locked_torch():
    torch = [s for s in binder_requirements() if name(s) == "torch"]
    assert torch == [f"torch=={LOCK['torch']}+cpu"]
    requirements = (ROOT / "binder" / "requirements.txt").read_text()
    assert "--extra-index-url https://download.pytorch.org/whl/cpu" in requirements


def test_binder_python_is_one_the_course_supports():
    version = (ROOT / "binder" / "runtime.txt").read_text().strip()
    assert re.fullmatch(r"python-3\.1[1-3]", version) and PROJECT["requires-python"] == ">=3.11,<3.14"


def test_binder_post_build_installs_the_course_and_registers_the_kernel_the_notebooks_ask_for():
    post = ROOT / "binder" / "postBuild"
    text = post.read_text()
    assert post.stat().st_mode & 0o111, "repo2docker runs postBuild: it must be executable"
    assert "pip install --no-cache-dir --no-deps -e ." in text
    assert re.search(r"ipykernel install .*--name course\b", text)
    for nb in sorted((ROOT / "notebooks").glob("0*.ipynb")):
        assert json.loads(nb.read_text())["metadata"]["kernelspec"]["name"] == "course", nb.name


def test_the_dev_container_sets_up_the_learner_set_on_a_supported_python():
    config = json.loads((ROOT / ".devcontainer" / "devcontainer.json").read_text())
    assert config["postCreateCommand"] == "make setup"
    assert re.search(r"python:\d+-3\.1[1-3]-", config["image"])
    assert 8888 in config["forwardPorts"]
