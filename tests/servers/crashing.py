"""A stdio server whose `crash` tool kills the whole process in the middle of a call."""

import os

from mcp.server.mcpserver import MCPServer

server = MCPServer("crashing", log_level="WARNING")


@server.tool()
def ok() -> str:
    """Answers normally."""
    return "fine"


@server.tool()
def crash() -> str:
    """Exits the process without answering (a segfault, an OOM kill...)."""
    os._exit(3)


if __name__ == "__main__":
    server.run()
