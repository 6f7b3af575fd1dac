"""A stdio server whose `crash` tool kills the whole process in the middle of a call.

Before it dies it writes a traceback to stderr that quotes a database connection string
with its password, the way a real crash often does: the model must never read it.
"""

import os
import sys

from mcp.server.mcpserver import MCPServer

DSN = "postgresql://shop:s3cret-Pa55@db.internal:5432/orders"
server = MCPServer("crashing", log_level="WARNING")


@server.tool()
def ok() -> str:
    """Answers normally."""
    return "fine"


@server.tool()
def crash() -> str:
    """Exits the process without answering (a segfault, an OOM kill...)."""
    print("Traceback (most recent call last):\n  File \"db.py\", line 12, in connect\n"
          f"sqlalchemy.exc.OperationalError: could not connect to server: {DSN}", file=sys.stderr, flush=True)
    os._exit(3)


if __name__ == "__main__":
    server.run()
