"""`make class-rehearsal` on a real JupyterHub (as root): simulated learners log in, each gets a server as their
own system user, and runs lesson 6's calls in a kernel there against the class server; the accounts go afterwards.
"""

import pwd

import pytest

from course.classroom import rehearsal_hub
from course.classroom.rehearsal import main as rehearsal
from tests.test_browser import unavailable

pytestmark = [pytest.mark.subprocess, pytest.mark.slow]


@pytest.mark.timeout(600)
def test_two_simulated_learners_log_in_to_the_hub_and_run_lesson_6_as_their_own_users(capsys):
    why_not = rehearsal_hub.possible()
    if why_not:
        unavailable(f"no hub rehearsal here: {why_not}")
    before = {p.pw_name for p in pwd.getpwall()}
    assert rehearsal(["--learners", "2", "--embedder", "lexical", "--to", "hub"]) == 0
    out = capsys.readouterr().out
    assert "2 simulated learners logged in to a real JupyterHub" in out and "errors          0" in out
    for shown in ("log-in → server", "lesson's calls", "per learner", "class server"):
        assert shown in out, shown
    assert {p.pw_name for p in pwd.getpwall()} <= before, "the rehearsal's accounts are removed"


def test_asking_for_the_hub_where_none_can_run_says_why(monkeypatch, capsys):
    monkeypatch.setattr(rehearsal_hub, "possible", lambda: "not root (the hub creates a system user per learner)")
    with pytest.raises(SystemExit):
        rehearsal(["--learners", "2", "--to", "hub"])
    assert "no hub rehearsal here: not root" in capsys.readouterr().err


def test_an_account_whose_process_outlived_the_hub_is_still_removed(tmp_path):
    # The CI failure of stop 28: `userdel` refuses (exit 8) while any process of the user runs, and a learner's kernel
    # can outlive the hub by a moment. The variation here: a process that ignores SIGTERM, left running on purpose.
    import os
    import secrets
    import shutil
    import subprocess

    if os.geteuid() != 0 or shutil.which("useradd") is None:
        unavailable("removing accounts needs root and useradd")
    from course.classroom.hub import useradd

    name = f"rm{secrets.token_hex(3)}"
    tmp_path.chmod(0o755)
    subprocess.run([*useradd(tmp_path), name], check=True, capture_output=True)
    uid = pwd.getpwnam(name).pw_uid
    stubborn = subprocess.Popen(["sh", "-c", "trap '' TERM; sleep 120"], user=uid)
    try:
        assert rehearsal_hub.remove_account(name) == ""
        assert name not in {p.pw_name for p in pwd.getpwall()}
        assert stubborn.wait(10) is not None  # ended, not left running as a uid nobody has
    finally:
        if stubborn.poll() is None:
            stubborn.kill()
        subprocess.run(["userdel", "--remove", name], capture_output=True, check=False)
