"""`make bench` prints every figure with its goal and fails when one is missed (on fake measurements)."""

import subprocess
import sys

from bench.__main__ import discover, run
from bench._figures import Figure, above, at_least, at_most
from course.paths import ROOT


def fake(*figures):
    return {"fake": ("A fake benchmark.", lambda: list(figures))}


def test_the_runner_exits_non_zero_and_names_the_figure_when_a_goal_is_missed(capsys):
    status = run(fake(Figure("query p50", 12.5, "ms", at_most(10)), Figure("hit@3", 0.96, "", at_least(0.95))))
    out = capsys.readouterr().out
    assert status == 1
    assert "query p50" in out and "12.5 ms" in out and "goal <= 10 ms: MISSED" in out
    assert "goal >= 0.95: ok" in out
    assert "1 goal(s) missed:\n  fake: query p50 12.5 ms" in out


def test_the_runner_exits_zero_when_every_goal_is_met_and_prints_figures_without_a_goal_as_such(capsys):
    status = run(fake(Figure("overhead", 0.4, "ms", at_most(1)), Figure("peak memory", 612, "MiB")))
    out = capsys.readouterr().out
    assert status == 0 and "Every goal met." in out
    assert "goal <= 1 ms: ok" in out and "612.0 MiB   no goal" in out


def test_a_figure_on_the_limit_meets_at_most_and_at_least_but_not_above():
    assert not Figure("x", 1.1, "", at_most(1.1)).missed and not Figure("x", 0.95, "", at_least(0.95)).missed
    assert Figure("lead over lexical", 0.0, "", above(0)).missed


def test_a_benchmark_that_fails_counts_as_a_miss_and_the_others_still_run(capsys):
    def broken():
        raise RuntimeError("the server did not start")

    benchmarks = {"broken": ("Broken.", broken), **fake(Figure("ok figure", 1.0, "ms", at_most(2)))}
    assert run(benchmarks) == 1
    out = capsys.readouterr().out
    assert "FAILED: RuntimeError: the server did not start" in out and "ok figure" in out


def test_a_measurement_that_failed_is_a_miss_even_without_a_goal(capsys):
    assert run(fake(Figure("notebooks/03_document_search.ipynb", 8.0, "s", None, "fails under nbval"))) == 1
    assert "FAILED: fails under nbval" in capsys.readouterr().out


def test_figures_survive_the_trip_from_the_measuring_process():
    figure = Figure("re-index from the cache", 12.0, "ms", at_most(500))
    assert Figure.from_json(figure.as_json()) == figure


def test_python_m_bench_exits_with_status_1_when_a_named_benchmark_misses_its_goal():
    code = ("import runpy, sys, types\n"
            "from bench._figures import Figure, at_most\n"
            "fake = types.ModuleType('bench.fake', 'A fake benchmark.')\n"
            "fake.main = lambda: [Figure('overhead', 2.0, 'ms', at_most(1))]\n"
            "sys.modules['bench.fake'] = fake\n"
            "sys.argv = ['bench', 'fake']\n"
            "runpy.run_module('bench', run_name='__main__')\n")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 1, done.stderr
    assert "== fake: A fake benchmark." in done.stdout and "goal <= 1 ms: MISSED" in done.stdout


def test_every_benchmark_module_is_found_with_a_description_and_notebooks_run_last():
    found = discover([])
    assert list(found)[-1] == "notebooks" and {"search", "agent_loop", "scripted_model"} <= set(found)
    assert all(about for about, _ in found.values())


def test_the_suite_figure_is_the_junit_files_wall_time_with_its_slowest_items_and_a_missing_file_fails(tmp_path):
    from bench import suite

    xml = tmp_path / "make-test.xml"
    cases = "".join(f'<testcase classname="tests.test_x" name="test_{i}" time="{i}.5"/>' for i in range(12))
    xml.write_text(f'<testsuites><testsuite name="pytest" tests="12" time="200.0">{cases}</testsuite></testsuites>')
    total, *slowest = suite.figures(xml)
    assert (total.value, total.missed) == (200.0, True) and "12 items" in total.name
    assert [f.value for f in slowest] == [11.5, 10.5, 9.5, 8.5, 7.5, 6.5, 5.5, 4.5, 3.5, 2.5]
    assert "tests.test_x::test_11" in slowest[0].name and all(f.goal is None for f in slowest)
    xml.write_text('<testsuites><testsuite name="pytest" tests="1" time="95.0">'
                   '<testcase classname="a" name="b" time="1"/></testsuite></testsuites>')
    assert not suite.figures(xml)[0].missed
    (missing,) = suite.figures(tmp_path / "none.xml")
    assert missing.missed and "run `make test` first" in missing.verdict()


def test_the_suite_figure_of_a_run_that_failed_items_is_a_failure_and_it_names_skips_and_the_runs_start(tmp_path):
    from bench import suite

    xml = tmp_path / "make-test.xml"
    xml.write_text('<testsuites><testsuite name="pytest" tests="3" failures="1" errors="0" skipped="1" time="40.0" '
                   'timestamp="2026-12-02T15:46:09.5"><testcase classname="a" name="b" time="1"/></testsuite>'
                   '</testsuites>')
    total = suite.figures(xml)[0]
    assert total.missed and "1 item(s) failed" in total.verdict()  # 40 s, well under the goal, yet no pass
    assert "1 skipped" in total.name and "run 2026-12-02 15:46" in total.name
