"""What lesson 2's notebook has imported before each exercise cell: a check runs it before the learner's cell."""


# tests/test_exercises_lessons.py compares each one with the notebook's cells before the exercise.
GIVEN_LIMIT = """
from course.backend import connect
from course.exercises import check, hint
from course.orders import shop_toolbox
from course.stories.lesson2 import latest_order
from course.agent import Limits, run_agent
from course.scripted import ScriptedModel
from course.stories.lesson2 import restless
from course import agent, show
"""
GIVEN_LOOP = GIVEN_LIMIT + """
import time
from course.agent import limit_reached, prompt_estimate
"""
GIVEN_KEY = GIVEN_LOOP + """
import json
"""
GIVEN_SKIP = GIVEN_KEY + """
from course.agent import REPEAT_NOTE, call_key
"""
GIVEN_FINISH = GIVEN_SKIP + """
from course.stories.lesson2 import stubborn, thorough
from course.scripted import Fail
from course.agent import FINISH_NOTE
"""
