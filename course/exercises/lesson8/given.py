"""What lesson 8's notebook has imported before each exercise cell: a check runs it before the learner's cell.

Each exercise sits where the lesson builds that piece, so each has its own setup, and each one
holds the one before it.
"""


# tests/test_exercises_lessons.py compares each one with the notebook's cells before the exercise.
GIVEN_RESOURCES = """
from course.backend import connect
from course.stories.lesson8 import desk, gullible
from course import show
from course.servers import policy_resources
import tempfile
from pathlib import Path
from course.host import McpHost, context_message, in_memory
from course.servers.docs import build_server
import sqlite3
from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations
from course.agent import arun_agent
from mcp import MCPError
from mcp.types import INVALID_PARAMS
from course.exercises import check, hint
"""
GIVEN_TENANTS = GIVEN_RESOURCES + """
from course.errors import ServerError
from course.host.trace import Trace, sequence_diagram
from course.scripted import ScriptedModel
from IPython.display import Markdown, display
from course.architecture.local_http import ACCEPT, initialize, mcp_client, modern, modern_headers, served, summary
from course.classroom import workspaces
"""
GIVEN_INJECTION = GIVEN_TENANTS + """
from course.architecture.gateway import Backend, Gateway, Tenant
from course.approval import ScriptedApprover
from course.architecture.attacks import EVIL_PAGE, PoisonedWeb, poisoned_docs, rug_pull_server, weather_server
from course.store import ShopStore
"""
GIVEN_TOOLS = GIVEN_INJECTION + """
from course.host import guards
from course.host.guards import UntrustedInput
from course.servers import webapi
from course.architecture.attacks import relay_server
from course.architecture.attacks import REWORDED_DESCRIPTION
from course.host.screening import flags
"""
