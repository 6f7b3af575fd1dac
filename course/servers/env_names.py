"""A one-tool MCP server that reports the names of the environment variables it can see (lesson 6).

    python -m course.servers.env_names

Lesson 6 starts it as a stdio child to show that the child does not inherit your
environment. It returns names only: values could be secrets.
"""

import os

from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations


def build(**options) -> MCPServer:
    """`options` go to `MCPServer` (e.g. lesson 5's `bearer_auth(token)`)."""
    server = MCPServer("env-names", log_level="WARNING", **options)

    @server.tool(annotations=ToolAnnotations(read_only_hint=True), structured_output=False)
    def environment_names() -> str:
        """The names of the environment variables this server process sees, sorted, one per line."""
        return "\n".join(sorted(os.environ))

    return server


server = build()

if __name__ == "__main__":
    server.run()
