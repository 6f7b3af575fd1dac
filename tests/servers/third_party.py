"""A low-level server that behaves the way some third-party servers do (not the way MCPServer does).

- `convert` (read) and `book` (write) answer bad arguments with a JSON-RPC error -32602
  (invalid params), as `mcp-server-time` does, instead of an `is_error` result;
- `explode` answers with -32603 (internal error), whose message quotes a connection string;
- `render` can only run as an MCP task (`execution.taskSupport: "required"`);
- `dump` returns `size` characters (a result far too big for a model's context).
"""

from __future__ import annotations

import mcp.types as types
from mcp import MCPError
from mcp.server import Server

READ_ONLY = types.ToolAnnotations(read_only_hint=True)
DSN = "postgresql://shop:s3cret-Pa55@db.internal:5432/orders"  # what must never reach a model


def _schema(**properties: dict) -> dict:
    return {"type": "object", "properties": properties, "required": list(properties)}


TOOLS = [
    types.Tool(name="convert", description="Convert a time to a time zone.", annotations=READ_ONLY,
               input_schema=_schema(timezone={"type": "string"})),
    types.Tool(name="book", description="Book a slot (a write: no annotations).",
               input_schema=_schema(slot={"type": "string"})),
    types.Tool(name="explode", description="Fails inside the server.", annotations=READ_ONLY,
               input_schema=_schema()),
    types.Tool(name="render", description="Renders a long report (as a task).", annotations=READ_ONLY,
               input_schema=_schema(), execution=types.ToolExecution(task_support="required")),
    types.Tool(name="dump", description="Returns `size` characters.", annotations=READ_ONLY,
               input_schema=_schema(size={"type": "integer"})),
]


def build(calls: list | None = None) -> Server:
    calls = calls if calls is not None else []

    async def on_list_tools(ctx, params) -> types.ListToolsResult:
        return types.ListToolsResult(tools=TOOLS)

    async def on_call_tool(ctx, params: types.CallToolRequestParams) -> types.CallToolResult:
        arguments = params.arguments or {}
        calls.append((params.name, arguments))
        if params.name == "convert":
            if arguments.get("timezone") not in ("UTC", "Europe/Oslo"):
                raise MCPError(code=types.INVALID_PARAMS, message=f"Invalid timezone: {arguments.get('timezone')!r}")
            return _text(f"12:00 in {arguments['timezone']}")
        if params.name == "book":
            if arguments.get("slot") != "09:00":
                raise MCPError(code=types.INVALID_PARAMS, message=f"No free slot at {arguments.get('slot')!r}")
            return _text("booked")
        if params.name == "explode":
            raise MCPError(code=types.INTERNAL_ERROR, message=f"could not connect to {DSN}")
        if params.name == "dump":
            return _text("x" * int(arguments.get("size", 0)))
        raise MCPError(code=types.INVALID_PARAMS, message=f"Unknown tool: {params.name}")

    return Server("third-party", on_list_tools=on_list_tools, on_call_tool=on_call_tool)


def _text(text: str) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)])
