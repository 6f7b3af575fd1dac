"""Replayable checks: every case a check makes up comes from a seed (course/exercises/seeds.py); the same code gets
the same verdict on every run; a failure says its seed, and check(id, seed=...) replays it."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from course.exercises import check, check_source, hints, load_all, seeds
from course.paths import ROOT
from exercise_checks import solution

EXERCISES = ROOT / "course" / "exercises"
UNSEEDED = {"random": None, "secrets": None, "uuid": {"uuid1", "uuid4"}, "os": {"urandom", "getrandom"},
            "numpy.random": None}


def unseeded_draws(path: Path) -> list[str]:
    """Where a file draws from a source no seed decides: random.Random() with no seed, the random module's own
    functions, secrets, uuid4, os.urandom, numpy's global generator."""
    found = []
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module in UNSEEDED:
            allowed = {"Random"} if node.module == "random" else set()
            names = UNSEEDED[node.module]
            found += [f"{path.name}:{node.lineno} from {node.module} import {a.name}" for a in node.names
                      if a.name not in allowed and (names is None or a.name in names)]
        if isinstance(node, ast.Import):
            found += [f"{path.name}:{node.lineno} import {a.name}" for a in node.names if a.name == "secrets"]
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            owner = ast.unparse(node.func.value)
            name = node.func.attr
            if owner == "random" and name in ("Random", "SystemRandom") and not (name == "Random" and node.args):
                found.append(f"{path.name}:{node.lineno} {ast.unparse(node)}")
            elif owner == "random" and name not in ("Random",):
                found.append(f"{path.name}:{node.lineno} {ast.unparse(node)} (the random module's global state)")
            elif (owner, name) in {("uuid", "uuid4"), ("uuid", "uuid1"), ("os", "urandom"), ("np.random", "rand"),
                                   ("numpy.random", "rand")} or owner == "secrets":
                found.append(f"{path.name}:{node.lineno} {ast.unparse(node)}")
    return found


def test_no_check_draws_from_a_source_no_seed_decides():
    files = sorted(EXERCISES.rglob("*.py"))
    assert len(files) > 20
    found = [hit for f in files for hit in unseeded_draws(f)]
    assert found == [], found


def test_the_scan_finds_each_unseeded_source(tmp_path):
    path = tmp_path / "bad.py"
    path.write_text("import random, secrets, uuid, os\nrandom.Random()\nrandom.choice([1])\nsecrets.token_hex()\n"
                    "uuid.uuid4()\nos.urandom(4)\nrandom.SystemRandom(3)\nrandom.Random(4)\n")
    assert [hit.split()[0] for hit in unseeded_draws(path)] == [f"bad.py:{n}" for n in range(1, 8)]  # not line 8


WRONG_LOOP = solution("l2-agent-loop").replace("        tool_steps += 1", "            tool_steps += 1")


def test_the_same_code_gets_the_same_verdict_on_every_run():
    for id, source in [("l2-agent-loop", WRONG_LOOP), ("l7-stream", "def collect(chunks, on_text):\n"
                                                                     "    return ''.join(c.choices[0].delta.content"
                                                                     " or '' for c in chunks if c.choices)\n")]:
        verdicts = [check_source(id, source) for _ in range(4)]
        assert not verdicts[0].passed and verdicts[0].seed is not None
        assert {(v.message, v.seed) for v in verdicts} == {(verdicts[0].message, verdicts[0].seed)}


def test_changed_code_draws_new_cases():
    a = seeds.of_code([compile_function("def f(x):\n    return x + 1\n")])
    b = seeds.of_code([compile_function("def f(x):\n    return x + 2\n")])
    again = seeds.of_code([compile_function("def f(x):\n    return x + 1\n", filename="<another cell>")])
    assert a != b and a == again


def compile_function(source: str, filename: str = "<cell>"):
    namespace: dict = {}
    exec(compile(source, filename, "exec"), namespace)
    return namespace["f"]


def test_a_failure_prints_its_seed_and_check_with_that_seed_replays_it(capsys):
    load_all()
    namespace: dict = {}
    exec(compile(load_all()["l2-agent-loop"].given + WRONG_LOOP, "<cell>", "exec"), namespace)
    check("l2-agent-loop", namespace)
    out = capsys.readouterr().out
    assert out.startswith("❌ l2-agent-loop: not yet.") and "seed=" in out, out
    seed = int(out.split("seed=")[1].split(")")[0])
    first = out.splitlines()[0]
    for _ in range(2):
        hints.KERNEL.reached.clear()
        check("l2-agent-loop", namespace, seed=seed)
        assert capsys.readouterr().out.splitlines()[0] == first


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_given_seed_decides_the_cases_whatever_the_code(seed):
    a = check_source("l2-agent-loop", WRONG_LOOP, seed=seed)
    b = check_source("l2-agent-loop", WRONG_LOOP + "\n# a comment changes nothing\nx = 1\n", seed=seed)
    assert a.seed == b.seed == seed and a.message == b.message


def test_a_stub_s_verdict_names_no_seed():
    verdict = check_source("l2-agent-loop", "def run_loop(*args):\n    raise NotImplementedError\n")
    assert not verdict.passed and verdict.seed is None
