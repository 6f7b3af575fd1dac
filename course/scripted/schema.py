"""Every request and answer the scripted model exchanges, checked against OpenAI's published schema (lesson 7).

The schemas are the part of OpenAI's OpenAPI spec (github.com/openai/openai-openapi, MIT)
that the two endpoints use, vendored in `openapi/subset.json` (see `openapi/extract.py`).
Why the spec and not the SDK's types: the SDK's models are lenient on purpose (every
optional field also accepts null, unknown keys pass), so `ChatCompletion.model_validate(...,
strict=True)` accepts `tool_calls: null` on a text answer, which the spec does not allow.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

import fastjsonschema

SUBSET = Path(__file__).parent / "openapi" / "subset.json"
SCHEMAS = {  # (endpoint, what) -> schema name in the spec
    ("chat", "request"): "CreateChatCompletionRequest",
    ("chat", "answer"): "CreateChatCompletionResponse",
    ("chat", "chunk"): "CreateChatCompletionStreamResponse",
    ("responses", "request"): "CreateResponse",
    ("responses", "answer"): "Response",
    ("any", "error"): "ErrorResponse",
}


@cache
def validator(name: str):
    """Compiled on first use (fastjsonschema: ~0.1-1 s per schema, then microseconds per check)."""
    spec = json.loads(SUBSET.read_text())
    return fastjsonschema.compile({"$ref": f"#/components/schemas/{name}", "components": {"schemas": spec["schemas"]}})


def problems(endpoint: str, what: str, payload: dict) -> list[str]:
    """What breaks the schema (the first problem found); empty when the payload is valid."""
    name = SCHEMAS[("any", "error") if what == "error" else (endpoint, what)]
    try:
        validator(name)(payload)
    except fastjsonschema.JsonSchemaValueException as e:
        return [e.message]
    return []
