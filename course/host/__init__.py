"""The MCP host of lesson 6: connect to servers, offer their tools to the model, run its calls safely.

    from course.host import McpHost, stdio, http

See `course/host/host.py` for the rules, `offering.py` for what the model sees and `calls.py` for
running its calls; `servers.py` for where a server is; `connection.py` for one client per server;
`validation.py` for checking arguments against a tool's schema;
`tool_search.py` for many tools (a `search_tools` meta-tool, definitions loaded on demand);
`errors.py` for what went wrong, `replies.py` for what the model reads about it and `notes.py`
for what you read; `convert.py` for tools and results; `course.processes` for what is still running.
Lesson 8 adds `context.py` (resources and prompts), `trace.py` (one request on the wire),
`pinning.py` (tool definitions that change), `screening.py` and `guards.py` (threats). Lesson 9
adds `tasks.py` (tools that run as MCP tasks).
"""

from course.errors import ServerError
from course.host.connection import Connection
from course.host.context import context_message
from course.host.convert import Outcome, result_text, to_openai_tool
from course.host.host import McpHost, Offered
from course.host.servers import Http, InMemory, Stdio, http, in_memory, stdio, stdio_command
from course.processes import child_processes

__all__ = ["Connection", "Http", "InMemory", "McpHost", "Offered", "Outcome", "ServerError", "Stdio",
           "child_processes", "context_message", "http", "in_memory", "result_text", "stdio", "stdio_command",
           "to_openai_tool"]
