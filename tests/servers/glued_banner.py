"""A stdio server that prints a banner without a newline: its first MCP reply is glued to it."""

from mcp.server.mcpserver import MCPServer

print("Loading models... ", end="", flush=True)  # the bug: no newline, on the protocol channel

server = MCPServer("glued", log_level="WARNING")


@server.tool()
def echo(text: str) -> str:
    """Echo the text back."""
    return text


if __name__ == "__main__":
    server.run()
