"""Cut the part of OpenAI's OpenAPI spec that the scripted model is checked against.

    python -m course.scripted.openapi.extract path/to/openapi.json

The input is `openapi.json` from github.com/openai/openai-openapi (MIT, see LICENSE here);
the output, `subset.json`, holds the named schemas and everything they reference, without
descriptions and examples (they are most of the size and the validator never reads them).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOTS = ["CreateChatCompletionRequest", "CreateChatCompletionResponse", "CreateChatCompletionStreamResponse",
         "ErrorResponse", "CreateResponse", "Response", "ResponseStreamEvent"]
DROP = {"description", "example", "examples", "x-oaiMeta", "x-oaiTypeLabel", "x-oaiExpandable", "title",
        "deprecated", "x-stainless-const"}
HERE = Path(__file__).parent


def closure(schemas: dict, roots: list[str]) -> list[str]:
    seen: list[str] = []
    stack = list(roots)
    while stack:
        name = stack.pop()
        if name in seen:
            continue
        seen.append(name)
        stack.extend(refs(schemas[name]))
    return sorted(seen)


def refs(node) -> list[str]:
    if isinstance(node, dict):
        found = [node["$ref"].rsplit("/", 1)[-1]] if "$ref" in node else []
        return found + [r for k, v in node.items() if k != "$ref" for r in refs(v)]
    if isinstance(node, list):
        return [r for v in node for r in refs(v)]
    return []


def clean(node):
    """Drop documentation keys; turn OpenAPI 3.0's `nullable: true` into JSON Schema's null type."""
    if isinstance(node, list):
        return [clean(v) for v in node]
    if not isinstance(node, dict):
        return node
    out = {k: (v if k in {"properties", "enum", "const", "required"} and not isinstance(v, dict) else clean(v))
           for k, v in node.items() if k not in DROP}
    if "properties" in node:
        out["properties"] = {k: clean(v) for k, v in node["properties"].items()}
    if out.pop("nullable", False):
        out = {"anyOf": [out, {"type": "null"}]}
    return out


def main(argv: list[str]) -> None:
    spec = json.loads(Path(argv[0]).read_text())
    schemas = spec["components"]["schemas"]
    subset = {"source": "https://github.com/openai/openai-openapi openapi.json (MIT licence, see LICENSE)",
              "openapi": spec["openapi"], "info_version": spec["info"]["version"],
              "schemas": {name: clean(schemas[name]) for name in closure(schemas, ROOTS)}}
    (HERE / "subset.json").write_text(json.dumps(subset, separators=(",", ":"), sort_keys=True) + "\n")
    print(f"{len(subset['schemas'])} schemas written to {HERE / 'subset.json'}")


if __name__ == "__main__":
    main(sys.argv[1:])
