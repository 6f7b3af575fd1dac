# EXERCISE l1-bad-calls
import json

from pydantic import ValidationError

from course.tools import ToolFailure


def execute(tools, name, arguments):
    tool = tools.get(name)
    if tool is None:
        return f"Error: there is no tool named {name!r}. Available tools: {', '.join(tools)}."
    try:
        raw = json.loads(arguments)
    except json.JSONDecodeError as e:
        return f"Error: the arguments for {name} are not valid JSON ({e.msg}). Send one JSON object."
    if not isinstance(raw, dict):
        return f"Error: the arguments for {name} must be one JSON object, not {type(raw).__name__}."
    try:
        params = tool.params.model_validate(raw)
    except ValidationError as e:
        problems = [f"{'.'.join(map(str, err['loc']))}: {err['msg']}" for err in e.errors()]
        return f"Error: invalid arguments for {name}: {'; '.join(problems)}. Fix them and call again."
    try:
        result = tool.fn(params)
    except ToolFailure as e:
        return f"Error: {e}"
    return result if isinstance(result, str) else json.dumps(result)
