"""A stdio server whose `garble` tool writes bytes that are not UTF-8 to stdout, the protocol channel."""

import os

from mcp.server.mcpserver import MCPServer

# The SDK points fd 1 at stderr while it serves (stray prints miss the wire); a copy taken
# first still reaches the client, the way a non-Python server's stray output would.
WIRE = os.dup(1)
server = MCPServer("bad-bytes", log_level="WARNING")


@server.tool()
def garble() -> str:
    """Writes a line of invalid UTF-8 to stdout, then answers normally."""
    os.write(WIRE, b"\xff\xfe not utf-8 \xc3\x28\n")
    return "garbled"


@server.tool()
def ok() -> str:
    """Answers normally."""
    return "fine"


if __name__ == "__main__":
    server.run()
