# EXERCISE l7-error-flag
from course.adapters import ToolResult


def from_mcp(call_id, result):
    """An MCP CallToolResult as a provider-neutral ToolResult, keeping the server's error flag."""
    text = "\n".join(part.text for part in result.content if part.type == "text")
    return ToolResult(call_id, text, bool(result.is_error))
