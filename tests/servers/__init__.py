"""Small MCP servers the host tests connect to (in memory, or as a child process / HTTP server)."""
