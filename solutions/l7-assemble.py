# EXERCISE l7-assemble (nothing to write: your pieces are the exercise cells above;
# graded, this cell runs after them, and the next cell runs them together)
# ruff: noqa: E402, F811 - each piece is a cell, with its own imports


# the reference piece of l7-read-response
from course.adapters import ModelTurn, ToolCall, Usage


def read_response(response):
    """A Responses API response as the loop's ModelTurn: text, calls (quoted by call_id), why it stopped, tokens."""
    calls = tuple(ToolCall(item.call_id, item.name, item.arguments)
                  for item in response.output if item.type == "function_call")
    details = response.incomplete_details
    cut = response.status == "incomplete" and details is not None and details.reason == "max_output_tokens"
    stop = "length" if cut else "tool_calls" if calls else "done"
    usage = Usage(response.usage.input_tokens, response.usage.output_tokens) if response.usage else Usage()
    return ModelTurn(response.output_text or None, calls, stop, usage)


# the reference piece of l7-error-flag
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


# the reference piece of l7-stream
def collect(chunks, on_text):
    """Hand each piece of a streamed answer to on_text as it arrives; return the whole answer."""
    pieces = []
    for chunk in chunks:
        if not chunk.choices:  # the usage chunk comes last, with no choices
            continue
        piece = chunk.choices[0].delta.content
        if piece:
            on_text(piece)
            pieces.append(piece)
    return "".join(pieces)


# the reference piece of l7-success-rate
def success_rate(answers, questions):
    """The share of answers that cite a right section as 'document › section'."""
    if not questions:
        return 0
    right = 0
    for answer, q in zip(answers, questions, strict=True):
        sections = [q.section, *q.also]
        if any(f"{q.doc} › {s}" in (answer or "") for s in sections):
            right += 1
    return right / len(questions)
