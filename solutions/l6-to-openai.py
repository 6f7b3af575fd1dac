# EXERCISE l6-to-openai
def to_openai(tool):
    """The Chat Completions definition of an MCP tool; the input schema passes through untouched."""
    return {"type": "function",
            "function": {"name": tool.name, "description": tool.description or "", "parameters": tool.input_schema}}
