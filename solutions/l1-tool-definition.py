# EXERCISE l1-tool-definition
def tool_definition(name, description, params):
    return {
        "type": "function",
        "function": {"name": name, "description": description, "parameters": params.model_json_schema()},
    }
