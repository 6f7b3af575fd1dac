"""What lesson 1's notebook has imported before each exercise cell: a check runs it before the learner's cell."""


# tests/test_exercises_lessons.py compares each one with the notebook's cells before the exercise.
GIVEN_DEFINITION = """
from course.backend import connect
from course.exercises import check, hint
from course.stories.lesson1 import order_status
from course import show
from course.orders import OrderLookup, get_order_status
"""
GIVEN_PARAMS = GIVEN_DEFINITION + """
from typing import Annotated
from pydantic import BaseModel, ConfigDict, Field
from course.tools import tool
"""
GIVEN_MESSAGE = GIVEN_PARAMS + """
import json
"""
GIVEN_ROUND_TRIP = GIVEN_MESSAGE + """
from course.tools import Toolbox
import openai
from course.scripted import ScriptedModel
from course.orders import shop_toolbox
"""
GIVEN_BAD_CALLS = GIVEN_ROUND_TRIP
