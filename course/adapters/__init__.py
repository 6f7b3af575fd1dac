"""The model half behind a small adapter (lesson 7): the same loop on Chat Completions or the Responses API.

    adapter = ResponsesAdapter(client, model)      # or ChatCompletionsAdapter(client, model)
    result = await run(adapter, question, host.tools(), host_execute(host))

`turn` holds the provider-neutral `ToolCall` / `ToolResult` / `ModelTurn`; `chat` and
`responses` the two adapters; `loop` the agent loop over any adapter.
"""

from course.adapters.chat import ChatCompletionsAdapter
from course.adapters.loop import Run, host_execute, run
from course.adapters.responses import ResponsesAdapter, flat_tool, read_response, result_item
from course.adapters.turn import ModelTurn, ToolCall, ToolResult, Usage

__all__ = ["ChatCompletionsAdapter", "ModelTurn", "ResponsesAdapter", "Run", "ToolCall", "ToolResult", "Usage",
           "flat_tool", "host_execute", "read_response", "result_item", "run"]
