"""A low-level server that lists its tools in pages (MCPServer never paginates)."""

from __future__ import annotations

import mcp.types as types
from mcp.server import Server


def build(n_tools: int = 7, page_size: int = 3, *, list_calls: list | None = None) -> Server:
    tools = [types.Tool(name=f"tool_{i}", description=f"Tool number {i}.",
                        input_schema={"type": "object", "properties": {"x": {"type": "integer"}}},
                        annotations=types.ToolAnnotations(read_only_hint=True))
             for i in range(n_tools)]

    async def on_list_tools(ctx, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        start = int(params.cursor) if params and params.cursor else 0
        if list_calls is not None:
            list_calls.append(params.cursor if params else None)
        end = start + page_size
        return types.ListToolsResult(tools=tools[start:end], next_cursor=str(end) if end < len(tools) else None)

    async def on_call_tool(ctx, params: types.CallToolRequestParams) -> types.CallToolResult:
        x = (params.arguments or {}).get("x")
        return types.CallToolResult(content=[types.TextContent(type="text", text=f"{params.name}({x})")])

    return Server("paginated", on_list_tools=on_list_tools, on_call_tool=on_call_tool)
