"""Every request and answer the scripted model exchanges, checked against OpenAI's published schema (lesson 7).

The schemas are the part of OpenAI's OpenAPI spec (github.com/openai/openai-openapi, MIT)
that the two endpoints use, vendored in `openapi/subset.json` (see `openapi/extract.py`).
Why the spec and not the SDK's types: the SDK's models are lenient on purpose (every
optional field also accepts null, unknown keys pass), so `ChatCompletion.model_validate(...,
strict=True)` accepts `tool_calls: null` on a text answer, which the spec does not allow.
"""

from __future__ import annotations

import hashlib
import json
import marshal
import sys
from functools import cache
from pathlib import Path

import fastjsonschema

from course.paths import WORK

SUBSET = Path(__file__).parent / "openapi" / "subset.json"
SCHEMAS = {  # (endpoint, what) -> schema name in the spec
    ("chat", "request"): "CreateChatCompletionRequest",
    ("chat", "answer"): "CreateChatCompletionResponse",
    ("chat", "chunk"): "CreateChatCompletionStreamResponse",
    ("responses", "request"): "CreateResponse",
    ("responses", "answer"): "Response",
    ("responses", "chunk"): "ResponseStreamEvent",
    ("any", "error"): "ErrorResponse",
}


CACHE = WORK / "openapi-validators"


@cache
def validator(name: str):
    """Compiled on first use, then microseconds per check. Generating and compiling the Responses
    schemas takes seconds, so the compiled code is kept in work/ while subset.json is unchanged."""
    text = SUBSET.read_text()
    key = hashlib.sha256((text + sys.version).encode()).hexdigest()[:12]  # bytecode is per Python version
    cached = CACHE / f"{name}-{key}.marshal"
    try:
        code = marshal.loads(cached.read_bytes())
    except (OSError, ValueError, EOFError):
        schema = {"$ref": f"#/components/schemas/{name}", "components": {"schemas": json.loads(text)["schemas"]}}
        code = compile(fastjsonschema.compile_to_code(schema), f"<openapi {name}>", "exec")
        try:
            CACHE.mkdir(parents=True, exist_ok=True)
            cached.write_bytes(marshal.dumps(code))
        except OSError:
            pass  # a read-only checkout: compile again next time
    namespace: dict = {}
    exec(code, namespace)  # noqa: S102 (code fastjsonschema generated from the vendored spec)
    return namespace["validate"]


def problems(endpoint: str, what: str, payload: dict) -> list[str]:
    """What breaks the schema (the first problem found); empty when the payload is valid."""
    name = SCHEMAS[("any", "error") if what == "error" else (endpoint, what)]
    try:
        validator(name)(payload)
    except fastjsonschema.JsonSchemaValueException as e:
        return [e.message]
    return []
