"""`make doctor`: each check's judgement, and the verdict a teacher reads before a workshop."""

import socket
import sys
from pathlib import Path

from course import doctor
from course.doctor import (
    Check,
    check_disk,
    check_kernel,
    check_node,
    check_npm,
    check_port,
    check_proxy,
    check_python,
    check_state,
    hub,
    verdict,
)

ROOT = Path(__file__).resolve().parents[1]


def test_one_failed_check_makes_the_machine_not_ready_and_names_it():
    checks = [Check("python", "ok", ""), Check("kernel", "fail", "missing"), Check("port 8000", "warn", "")]
    ready, line = verdict(checks)
    assert not ready and line.startswith("NOT READY") and "kernel" in line and "port" not in line


def test_warnings_alone_leave_the_machine_ready_but_are_pointed_out():
    assert verdict([Check("python", "ok", ""), Check("port 8888", "warn", "busy")]) == \
        (True, "READY (1 warning(s) above: read them): `make lab` opens lesson 1.")
    assert verdict([Check("python", "ok", "")])[1] == "READY: `make lab` opens lesson 1."


def test_python_outside_3_11_to_3_13_fails_with_what_to_install():
    assert check_python((3, 12), "x").status == "ok" and check_python((3, 11), "x").status == "ok"
    for version in [(3, 10), (3, 14), None]:
        c = check_python(version, "x")
        assert c.status == "fail" and "3.1" in c.fix


def test_disk_space_needed_depends_on_whether_the_venv_is_there(tmp_path):
    one_gb = 2**30
    assert check_disk(one_gb, venv_exists=False, folder=tmp_path).status == "fail"
    assert check_disk(one_gb, venv_exists=True, folder=tmp_path).status == "ok"
    assert check_disk(10 * one_gb, venv_exists=False, folder=tmp_path).status == "ok"


def test_a_state_folder_that_cannot_be_written_fails_with_the_variable_to_set(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    c = check_state(blocker / "state")
    assert c.status == "fail" and "COURSE_WORK" in c.fix
    assert check_state(tmp_path / "state").status == "ok"


def test_the_kernel_check_wants_the_course_kernel_not_just_any():
    assert check_kernel(None).status == "fail"
    assert check_kernel({"python3": "/x"}).status == "fail"
    assert check_kernel({"course": "/venv/share/jupyter/kernels/course"}).status == "ok"


def test_a_port_in_use_is_a_warning_and_a_free_one_is_ok():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        assert check_port(port, "JupyterLab").status == "warn"
    assert check_port(port, "JupyterLab").status == "ok"


def test_without_a_venv_the_doctor_says_not_ready_and_exits_1(tmp_path, capsys):
    assert doctor.main(["--venv", str(tmp_path / "no-venv"), "--ports", "", "--skip-model"]) == 1
    out = capsys.readouterr().out
    assert "NOT READY" in out and "run `make setup`" in out


# -- what `make hub` needs: Node.js 20+, npm, configurable-http-proxy --------------------------------
def test_node_missing_or_older_than_20_fails_for_a_hub_with_the_command_that_installs_it():
    for path, version in [(None, None), ("/usr/bin/node", "v18.19.1"), ("/usr/bin/node", None)]:
        c = check_node(path, version, required=True)
        assert c.status == "fail" and "deb.nodesource.com/setup_22.x" in c.fix and "brew install node" in c.fix
    assert "too old" in check_node("/usr/bin/node", "v18.19.1", required=True).detail
    assert check_node("/usr/bin/node", "v20.20.2", required=True).status == "ok"
    assert check_node("/usr/bin/node", "v22.1.0", required=False).status == "ok"


def test_without_hub_the_hub_tools_missing_are_warnings_so_a_laptop_stays_ready():
    assert check_node(None, None, required=False).status == "warn"
    assert check_npm(None, None, proxy_found=False, required=False).status == "warn"
    assert check_proxy(None, None, required=False).status == "warn"


def test_npm_is_needed_only_while_configurable_http_proxy_is_not_installed():
    missing = check_npm(None, None, proxy_found=False, required=True)
    assert missing.status == "fail" and "sudo apt-get install npm" in missing.fix
    assert check_npm(None, None, proxy_found=True, required=True).status == "ok"
    assert check_npm("/usr/bin/npm", "11.19.1", proxy_found=False, required=True).status == "ok"


def test_a_missing_proxy_gets_the_very_command_make_hub_runs():
    c = check_proxy(None, None, required=True)
    assert c.status == "fail" and "`npm install --prefix .cache/chp configurable-http-proxy@5`" in c.fix
    makefile = (ROOT / "Makefile").read_text()
    assert "npm install --silent --prefix .cache/chp configurable-http-proxy@5" in makefile
    assert check_proxy("/x/configurable-http-proxy", None, required=True).status == "fail"  # there, but node is not
    assert check_proxy("/x/configurable-http-proxy", "5.3.0", required=True).status == "ok"


def fake_tools(folder: Path, **versions: str) -> None:
    """Programs on a PATH of their own that print a version, as node and npm do."""
    folder.mkdir()
    for name, version in versions.items():
        program = folder / name
        program.write_text(f"#!/bin/sh\necho {version}\n")
        program.chmod(0o755)


def test_the_probes_find_an_old_node_no_npm_and_no_proxy_on_this_path(tmp_path, monkeypatch):
    fake_tools(tmp_path / "bin", node="v18.19.1")
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))
    monkeypatch.setattr(hub, "LOCAL_PROXY", tmp_path / "no-chp" / "configurable-http-proxy")
    node, npm, proxy = hub.hub_checks(required=True)
    assert node.status == "fail" and "v18.19.1" in node.detail and "too old" in node.detail
    assert npm.status == "fail" and proxy.status == "fail"
    fake_tools(tmp_path / "bin2", node="v20.20.2", npm="11.19.1", **{"configurable-http-proxy": "5.3.0"})
    monkeypatch.setenv("PATH", str(tmp_path / "bin2"))
    assert [c.status for c in hub.hub_checks(required=True)] == ["ok", "ok", "ok"]


def test_make_doctor_hub_turns_a_missing_node_into_not_ready(tmp_path, monkeypatch, capsys):
    fake_tools(tmp_path / "bin")
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))
    monkeypatch.setattr(hub, "LOCAL_PROXY", tmp_path / "no-chp" / "configurable-http-proxy")
    venv = Path(sys.executable).parent.parent  # the course's venv, which has the kernel
    assert doctor.main(["--venv", str(venv), "--ports", "", "--skip-model"]) == 0
    assert "READY (4 warning(s)" in capsys.readouterr().out  # node, npm, proxy and the skipped model
    assert doctor.main(["--venv", str(venv), "--ports", "", "--skip-model", "--hub"]) == 1
    out = capsys.readouterr().out
    assert "NOT READY" in out and "node (for make hub)" in out and "deb.nodesource.com" in out


GIB = 2**30


def test_a_machine_short_of_the_tables_memory_for_its_room_fails_and_short_of_cores_warns():
    from course.doctor import check_room, room

    need_gb, need_cores = room(20, "2h")
    memory, cores = check_room(20, "2h", (need_gb + 1) * GIB, need_cores)
    assert (memory.status, cores.status) == ("ok", "ok")
    memory, cores = check_room(20, "2h", (need_gb - 4) * GIB, need_cores - 1)
    assert memory.status == "fail" and f"the table says {need_gb} GB" in memory.detail and "k8s/" in memory.fix
    assert cores.status == "warn" and f"the table says {need_cores}" in cores.detail
    assert check_room(20, "2h", None, need_cores)[0].status == "warn"  # memory unknown: look, but not a failure


def test_the_half_day_needs_more_than_the_two_hour_path_and_more_learners_more_of_both():
    from course.doctor import room

    for n in (10, 20, 30):
        assert room(n, "half-day")[0] > room(n, "2h")[0] and room(n, "half-day")[1] >= room(n, "2h")[1]
    assert room(10, "2h") < room(20, "2h") < room(30, "2h")


def test_workshop_md_shows_the_table_make_doctor_checks_against():
    from course.doctor import sizing

    assert sizing.table() in (ROOT / "WORKSHOP.md").read_text(), "WORKSHOP.md's table: paste sizing.table()"


def test_make_doctor_learners_checks_the_faked_machine_against_the_table(tmp_path, monkeypatch, capsys):
    from course.doctor import cli, room

    venv = Path(sys.executable).parent.parent
    monkeypatch.setattr(cli, "hub_checks", lambda required: [])
    need_gb, need_cores = room(30, "half-day")
    monkeypatch.setattr(cli, "machine_memory", lambda: 16 * GIB)
    monkeypatch.setattr(cli, "machine_cores", lambda: 2)
    assert doctor.main(["--venv", str(venv), "--ports", "", "--skip-model", "--learners", "30"]) == 1
    out = capsys.readouterr().out
    assert "memory (30 learners, half day)" in out and f"{need_gb} GB" in out and "NOT READY" in out
    monkeypatch.setattr(cli, "machine_memory", lambda: (need_gb + 2) * GIB)
    monkeypatch.setattr(cli, "machine_cores", lambda: need_cores)
    assert doctor.main(["--venv", str(venv), "--ports", "", "--skip-model", "--learners", "30"]) == 0
    assert doctor.main(["--venv", str(venv), "--ports", "", "--skip-model"]) == 0
    assert "learners" not in capsys.readouterr().out.split("READY")[-1]


def test_memory_is_read_from_proc_meminfo(tmp_path):
    from course.doctor.sizing import machine_memory

    (tmp_path / "meminfo").write_text("MemTotal:       16314592 kB\nMemFree:         1000 kB\n")
    assert machine_memory(tmp_path / "meminfo") == 16314592 * 1024
    assert machine_memory(tmp_path / "missing") is None


def test_short_of_memory_the_doctor_says_how_many_learners_fit_and_offers_only_a_shorter_path_not_taken():
    from course.doctor import check_room, room

    memory = int(23.5 * GIB)  # this machine: 30 learners fit neither path
    two_hours, half_day = check_room(30, "2h", memory, 2)[0], check_room(30, "half-day", memory, 2)[0]
    assert two_hours.status == half_day.status == "fail"
    assert "2-hour path" not in two_hours.fix and "shut down" in two_hours.fix  # already on it: no such advice
    assert f"the 2-hour path ({room(30, '2h')[0]} GB)" in half_day.fix
    for path, check in (("2h", two_hours), ("half-day", half_day)):
        fits = int(check.fix.split("at most ")[1].split()[0])
        assert room(fits, path)[0] * 0.95 <= 23.5 < room(fits + 1, path)[0] * 0.95  # the most that fit, not fewer
