"""What lesson 6's notebook has imported before each exercise cell: a check runs it before the learner's cell."""

# What the notebook has imported by each exercise cell (tests/test_exercises_lessons.py compares them).
GIVEN_LIST = """
from course.backend import connect
from course.stories.lesson6 import refund_desk
import tempfile
from pathlib import Path
from course.host import McpHost, http, in_memory, stdio
import os
from mcp.client.stdio import DEFAULT_INHERITED_ENV_VARS
from mcp import Client
from course.servers.docs import build_server
"""
GIVEN_CONVERT = GIVEN_LIST + """
from course.exercises import check, hint
from course.approval import choose_approver
"""
GIVEN_RESULT = GIVEN_CONVERT + """
from course import show
"""
GIVEN_EXECUTE = GIVEN_RESULT + """
import mcp.types as types
from course.host import result_text
"""
GIVEN_AGENT = GIVEN_EXECUTE + """
import json
"""
