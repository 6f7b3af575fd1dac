"""The set-up files agree with each other, so `make` and conda give the same environment."""

import re
import subprocess
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]


def test_environment_yml_lists_the_same_packages_as_pyproject():
    declared = set(PROJECT["dependencies"]) | set(PROJECT["optional-dependencies"]["dev"])
    conda = set(re.findall(r'^\s+- "([^"]+)"$', (ROOT / "environment.yml").read_text(), re.M)) - {"-e ."}
    assert conda == declared


def test_the_lock_pins_every_declared_package_exactly():
    lock = {line.split("==")[0].lower().replace("_", "-"): line.split("==")[1]
            for line in (ROOT / "requirements.lock").read_text().splitlines() if "==" in line}
    for spec in set(PROJECT["dependencies"]) | set(PROJECT["optional-dependencies"]["dev"]):
        name = re.split(r"[<>=!\[ ;]", spec, maxsplit=1)[0].lower().replace("_", "-")
        assert name in lock, f"{name} is not pinned in requirements.lock"
    assert lock["torch"] == "2.13.0", ("torch stays at 2.13.0: the CI machine has its CPU wheel; "
                                       "other versions pull a CUDA build")


def test_the_sdk_majors_are_the_ones_the_lessons_teach():
    deps = " ".join(PROJECT["dependencies"])
    assert "mcp>=2.3,<3" in deps and "openai>=3.51,<4" in deps and "ipykernel>=7.4" in deps


def test_ci_runs_make_test_and_the_readme_names_the_two_commands():
    assert "make test" in (ROOT / ".ci/run").read_text()
    readme = (ROOT / "README.md").read_text()
    assert readme.index("make lab") < readme.index("OPENAI_API_KEY") and "make test" in readme


def test_every_tool_contributing_md_runs_from_the_venv_is_installed_by_setup():
    declared = {re.split(r"[<>=!\[ ;]", spec, maxsplit=1)[0].lower()
                for spec in PROJECT["dependencies"] + PROJECT["optional-dependencies"]["dev"]}
    tools = set(re.findall(r"\.venv/bin/([\w-]+)", (ROOT / "CONTRIBUTING.md").read_text())) - {"python", "pip"}
    missing = sorted(tools - declared)
    assert tools and not missing, f"CONTRIBUTING.md runs {missing}, which `make setup` does not install"


def test_make_test_runs_the_static_gate_before_any_test():
    planned = subprocess.run(["make", "-n", "test"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    lines = planned.splitlines()
    ruff = next(i for i, line in enumerate(lines) if "ruff check" in line)
    mypy = next(i for i, line in enumerate(lines) if "mypy course" in line)
    tests = next(i for i, line in enumerate(lines) if "pytest tests" in line)
    assert ruff < tests and mypy < tests
    assert all(name in lines[ruff] for name in ("course", "tests", "bench", "tools", "solutions"))


def test_contributing_md_names_every_part_of_the_package_and_every_path_it_names_exists():
    text = (ROOT / "CONTRIBUTING.md").read_text()
    table = text[text.index("| path | what |"):text.index("## Notebooks")]
    named = re.findall(r"^\| `([^`]+)`(?:, `([^`]+)`)?", table, re.M)
    paths = [p for pair in named for p in pair if p]
    assert paths and all((ROOT / p.rstrip("/")).exists() for p in paths), [p for p in paths if not (ROOT / p).exists()]
    parts = [p for p in (ROOT / "course").iterdir() if p.name != "__pycache__" and p.name != "__init__.py"
             and (p.suffix == ".py" or (p / "__init__.py").exists())]
    missing = [p.name for p in parts if f"course/{p.name}" + ("/" if p.is_dir() else "") not in paths]
    assert not missing, f"CONTRIBUTING.md's layout table does not name {missing}"
