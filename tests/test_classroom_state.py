"""Per-learner state: users of one install never share a store, a cache or a log (course/paths.py)."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from course import paths

ROOT = Path(__file__).resolve().parents[1]


def test_course_work_overrides_every_other_place():
    env = {"COURSE_WORK": "/srv/class/anna", "XDG_STATE_HOME": "/state", "HOME": "/home/anna"}
    assert paths.work_dir(env) == Path("/srv/class/anna")


def test_the_default_is_in_the_users_state_folder_so_two_homes_get_two_places():
    assert paths.work_dir({"HOME": "/home/anna"}) == Path("/home/anna/.local/state/llm-mcp-course")
    assert paths.work_dir({"HOME": "/home/ben"}) == Path("/home/ben/.local/state/llm-mcp-course")
    assert paths.work_dir({"HOME": "/home/anna", "XDG_STATE_HOME": "/var/anna"}) == Path("/var/anna/llm-mcp-course")


def test_a_relative_xdg_state_home_is_ignored_as_the_spec_says():
    assert paths.work_dir({"HOME": "/home/anna", "XDG_STATE_HOME": "state"}) == \
        Path("/home/anna/.local/state/llm-mcp-course")


def test_the_test_session_never_writes_into_the_developers_home():
    assert os.environ["COURSE_WORK"] and not paths.WORK.is_relative_to(Path.home() / ".local")
    assert not paths.WORK.is_relative_to(ROOT), "state must not live inside the install"


# Lesson 4's path through the store: reset, the scripted story with an approver that says yes
# (refund A1002, cancel A1003), then what the store holds. Run twice, as a learner re-running the lesson.
LESSON4 = """
import asyncio, json, sys
from course.agent import Limits, arun_agent
from course.backend import MODEL
from course.approval import ScriptedApprover, guarded
from course.paths import WORK
from course.permissions import Policy
from course.scripted import ScriptedModel
from course.orders import get_order_status
from course.store import ShopStore
from course.stories.lesson4 import support_desk
from course.tools import Toolbox

QUESTION = ("My mugs from order A1002 arrived broken, please refund them. "
            "Please also cancel order A1003, I ordered it twice by mistake.")

async def lesson4():
    store = ShopStore(WORK / "lesson4" / "shop.json")
    store.reset()
    toolbox = Toolbox(get_order_status, *store.read_tools(), *store.write_tools())
    policy = Policy.for_tools(toolbox.tools.values())
    result = await arun_agent(ScriptedModel(support_desk).async_client(), MODEL, QUESTION,
                              tools=toolbox.definitions(),
                              execute=guarded(toolbox.execute, policy=policy, approver=ScriptedApprover([True, True])),
                              limits=Limits(max_steps=4))
    return store, result

for _ in range(int(sys.argv[1])):
    store, result = asyncio.run(lesson4())
print(json.dumps({"work": str(WORK), "store": str(store.path), "answer": result.answer,
                  "refunds": [r["refund_id"] for r in store.refunds()], "A1003": store.order("A1003")["status"]}))
"""


@pytest.mark.subprocess
def test_three_users_running_lesson_4_at_once_on_one_install_keep_their_own_shop(tmp_path):
    homes = [tmp_path / name for name in ("anna", "ben", "chen")]
    procs = []
    for home in homes:
        home.mkdir()
        env = {k: v for k, v in os.environ.items() if k not in ("COURSE_WORK", "XDG_STATE_HOME")}
        env |= {"HOME": str(home), "PYTHONPATH": str(ROOT)}
        procs.append(subprocess.Popen([sys.executable, "-c", LESSON4, "3"], env=env, cwd=home,
                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
    outcomes = []
    for proc in procs:
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err[-2000:]
        outcomes.append(json.loads(out.splitlines()[-1]))
    for home, outcome in zip(homes, outcomes, strict=True):
        assert Path(outcome["work"]) == home / ".local" / "state" / "llm-mcp-course"
        assert Path(outcome["store"]).is_file()
        # Each user's third run starts from their own reset: one refund, one cancellation, both done.
        assert outcome["refunds"] == ["R-0001"] and outcome["A1003"] == "cancelled"
        assert "refunded 32.50 EUR for order A1002" in outcome["answer"]
    assert len({o["store"] for o in outcomes}) == 3
