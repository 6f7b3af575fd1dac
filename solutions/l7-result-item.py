# EXERCISE l7-result-item
def result_item(result):
    """The Responses API input item that gives the model one tool result."""
    text = result.text
    if result.is_error and not text.startswith("Error"):
        text = f"Error: {text}"
    return {"type": "function_call_output", "call_id": result.call_id, "output": text}
