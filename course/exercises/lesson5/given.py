"""What lesson 5's notebook has imported before each exercise cell: a check runs it before the learner's cell."""


# The imports the notebook has run by each exercise cell (tests/test_exercises_lessons.py checks that), so a
# learner's cell that leans on them is graded as it ran. The first two exercises come before ToolError.
TOOL_GIVEN = """
from typing import Annotated, Any
from pydantic import Field
from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations
"""
GIVEN = TOOL_GIVEN + "from mcp.server.mcpserver.exceptions import ToolError\n"
