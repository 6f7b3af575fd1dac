# EXERCISE l7-read-response
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
