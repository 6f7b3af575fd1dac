# EXERCISE l7-error-flag
from mcp import types

from course.adapters import ToolResult


def part_text(part):
    """One content part as the line the model gets."""
    if isinstance(part, types.TextContent):
        return part.text
    if isinstance(part, types.EmbeddedResource):
        resource = part.resource
        if isinstance(resource, types.TextResourceContents):
            return resource.text
        return f"[binary resource {resource.uri}]"
    if isinstance(part, types.ResourceLink):
        return f"[resource link: {part.uri}]"
    return f"[{part.type} omitted: {part.mime_type}]"  # image, audio


def from_mcp(call_id, result):
    """An MCP CallToolResult as a provider-neutral ToolResult: every part as text, and the server's error flag."""
    text = "\n".join(part_text(part) for part in result.content)
    return ToolResult(call_id, text, bool(result.is_error))
