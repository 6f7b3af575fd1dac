# EXERCISE l6-execute
import json

from mcp import MCPError
from mcp.types import REQUEST_TIMEOUT

from course.host import result_text


def make_execute(client, tools, approve, timeout):
    """Lesson 2's `execute(name, arguments)` for the allowlisted `tools` of one MCP client."""

    async def execute(name, arguments):
        tool = tools.get(name)
        if tool is None:
            return f"Error: there is no tool {name!r} here. Use one of: {', '.join(tools)}."
        try:
            args = json.loads(arguments or "{}")
        except json.JSONDecodeError:
            args = None
        if not isinstance(args, dict):
            return f"Error: the arguments for {name} are not one JSON object. Send an object and call again."
        # Only a tool that says it only reads runs at once; without the hint, MCP assumes it may write.
        read_only = tool.annotations is not None and tool.annotations.read_only_hint is True
        if not read_only and not await approve(name, args):
            return f"{name} was not run: the user rejected it. Do not retry without a new request."
        try:
            result = await client.call_tool(name, args, read_timeout_seconds=timeout)
        except MCPError as e:
            if e.code == REQUEST_TIMEOUT:  # the connection is still fine
                return f"Error: {name} did not answer within {timeout:g} s. Tell the user it is not available now."
            return f"Error: the server refused the call to {name}: {e.message}"
        return result_text(result)

    return execute
