"""A server whose tool list grows while it runs: `unlock` adds `bonus` and says so.

It announces the change both ways the protocol has: on a `subscriptions/listen` stream
(2026-07-28) and as a `notifications/tools/list_changed` message (older connections).
`whoami` answers with the name and version the client introduced itself with.
"""

from mcp.server.mcpserver import Context, MCPServer
from mcp.types import ToolAnnotations

READ_ONLY = ToolAnnotations(read_only_hint=True)


def build() -> MCPServer:
    server = MCPServer("growing", log_level="WARNING")

    def bonus() -> str:
        """A tool that exists only after unlock."""
        return "bonus!"

    @server.tool(annotations=READ_ONLY)
    async def unlock(ctx: Context) -> str:
        """Adds the bonus tool."""
        server.add_tool(bonus, annotations=READ_ONLY)
        await ctx.notify_tools_changed()  # 2026-07-28: to listen streams
        await ctx.request_context.session.send_tool_list_changed()  # handshake era: as a notification
        return "unlocked"

    @server.tool(annotations=READ_ONLY)
    def whoami(ctx: Context) -> str:
        """The client's name and version, as it introduced itself."""
        params = ctx.request_context.session.client_params
        info = params.client_info if params else None
        return f"{info.name} {info.version}" if info else "unknown"

    return server


if __name__ == "__main__":
    build().run()
