"""A stdio server with a classic bug: it prints a banner to stdout, the channel JSON-RPC uses."""

import sys

from mcp.server.mcpserver import MCPServer

print("Starting the printer server, version 1.0 ...", flush=True)  # the bug: stdout is the protocol channel

server = MCPServer("printer", log_level="WARNING")


@server.tool()
def echo(text: str) -> str:
    """Echo the text back."""
    return text


if __name__ == "__main__":
    sys.stdout.flush()
    server.run()
