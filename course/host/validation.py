"""Check a call's arguments against the tool's `inputSchema` before anyone is asked to approve it (lesson 6).

The server checks them too, but only after a human approved a call that cannot run, and
what it answers differs from server to server. Checked here, a call that breaks the schema
is answered with one line per problem and never reaches the approver or the server.
`jsonschema` comes with the `mcp` SDK (it checks results against output schemas).
"""

from __future__ import annotations

import functools
import json
import re
from typing import Any

MAX_PROBLEMS = 8  # a model that got everything wrong needs the first few, not a page
MAX_LINE = 200  # a problem line quotes the value; a 5 MB value must not come back whole
_EXTRA = re.compile(r"\((.+) (?:was|were) unexpected\)")


def schema_problems(schema: dict | None, arguments: dict) -> list[str]:
    """One line per way `arguments` break `schema` ("amount: -5 is less than ..."); [] if they fit.

    A schema that is not valid JSON Schema cannot judge anything: the server decides then.
    """
    validator = _validator(json.dumps(schema or {}, sort_keys=True))
    if validator is None:
        return []
    try:
        errors = sorted(validator.iter_errors(arguments), key=lambda e: [str(p) for p in e.absolute_path])
    except RecursionError:
        return ["(the arguments): nested too deeply to check; send a flatter object."]
    lines = [_line(e) for e in errors[:MAX_PROBLEMS]]
    if len(errors) > MAX_PROBLEMS:
        lines.append(f"... and {len(errors) - MAX_PROBLEMS} more problems.")
    return lines


def rejection(tool: str, problems: list[str]) -> str:
    """What the model reads: the call was not run, and what to fix."""
    listed = "\n".join(f"- {line}" for line in problems)
    return (f"Error: the arguments for {tool} do not fit the tool's input schema, so nothing was run:\n"
            f"{listed}\nFix the arguments and call {tool} again.")


@functools.lru_cache(maxsize=256)
def _validator(schema_json: str) -> Any:
    from jsonschema import Draft202012Validator, SchemaError, validators  # a 1-2 s import: only when needed

    schema = json.loads(schema_json)
    cls = validators.validator_for(schema, default=Draft202012Validator)  # MCP's default dialect is 2020-12
    try:
        cls.check_schema(schema)
    except SchemaError:
        return None
    return cls(schema)


def _line(error: Any) -> str:
    where = _where(error.absolute_path)
    if error.validator == "required":
        missing = re.match(r"'(.+)' is a required property", error.message)
        name = missing.group(1) if missing else "?"
        text = f"{_join(where, name)}: missing (required)"
    elif error.validator == "additionalProperties" and (extra := _EXTRA.search(error.message)):
        names = extra.group(1).replace("'", "")
        text = f"{_join(where, names)}: not a parameter of this tool; leave it out"
    else:
        value = repr(error.instance)  # jsonschema quotes the whole value; the model needs its start
        message = error.message.replace(value, value[:40] + "…" + value[-1], 1) if len(value) > 60 else error.message
        text = f"{where or '(the arguments)'}: {message}"
    return text if len(text) <= MAX_LINE else text[:MAX_LINE - 1] + "…"


def _where(path: Any) -> str:
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


def _join(where: str, name: str) -> str:
    return f"{where}.{name}" if where else name
