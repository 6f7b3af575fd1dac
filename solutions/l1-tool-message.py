# EXERCISE l1-tool-message
import json


def tool_message(tool_call, tool):
    params = tool.params.model_validate(json.loads(tool_call.function.arguments))
    result = tool.fn(params)
    content = result if isinstance(result, str) else json.dumps(result)
    return {"role": "tool", "tool_call_id": tool_call.id, "content": content}
