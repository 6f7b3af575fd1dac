"""A stdio server that reports the environment it was started with (for the secret-leak test)."""

import os

from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations

server = MCPServer("env-report", log_level="WARNING")


@server.tool(annotations=ToolAnnotations(read_only_hint=True))
def environment() -> dict[str, str]:
    """Every environment variable this process can see, with its value."""
    return dict(os.environ)


if __name__ == "__main__":
    server.run()
