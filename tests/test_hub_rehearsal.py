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
