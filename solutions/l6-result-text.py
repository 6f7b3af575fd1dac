# EXERCISE l6-result-text
import json

from mcp.types import TextContent


def result_to_text(result):
    """All of a result's content as text for the model; a failed call starts with "Error"."""
    parts = [part.text if isinstance(part, TextContent) else f"[{part.type} omitted]" for part in result.content]
    text = "\n".join(parts)
    if not text and result.structured_content is not None:
        text = json.dumps(result.structured_content)
    text = text or "(the tool returned nothing)"
    if result.is_error and not text.startswith("Error"):
        text = f"Error: {text}"
    return text
