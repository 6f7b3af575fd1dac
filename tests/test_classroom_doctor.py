"""`make doctor`: each check's judgement, and the verdict a teacher reads before a workshop."""

import socket

from course import doctor
from course.doctor import Check, check_disk, check_kernel, check_port, check_python, check_state, verdict


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
