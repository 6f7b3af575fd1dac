"""What lesson 4's notebook has imported before each exercise cell: a check runs it before the learner's cell."""

# What the notebook has imported before each exercise cell (tests/test_exercises_lessons.py compares them).
GIVEN_RULE = """
from course.backend import connect
from course.exercises import check, hint
from course.stories.lesson4 import support_desk
from course import show
from course.paths import WORK
from course.store import ShopStore
from course.store import write_atomically
from course.tools import Toolbox
"""
GIVEN_POLICY = GIVEN_RULE
GIVEN_GUARD = GIVEN_POLICY + """
from course.permissions import Policy
from course.orders import find_orders, get_order_status
from course.approval import WidgetApprover
from course.approval import choose_approver
"""
GIVEN_LOG = GIVEN_GUARD + """
from course.approval import Guarded, guarded
from course.agent import Limits, arun_agent
from course.permissions import DecisionLog
"""
GIVEN_ALLOWLIST = GIVEN_LOG + """
import json
from course.agent import prompt_estimate
from course.approval import ScriptedApprover
from course.scripted import ScriptedModel, call, raw_call
"""
