"""The check of `l6-to-openai`: MCP tool definitions as the model's."""

from __future__ import annotations

import inspect
import json
from typing import Any

from course.backend import MODEL
from course.exercises import NotYet, exercise, run_async
from course.exercises.lesson6.cases import READ, UNANNOTATED, WRITES, docs_server, in_memory, made_server
from course.exercises.lesson6.given import GIVEN_CONVERT
from course.exercises.plain import plain, same
from course.exercises.seeds import draws


# -- l6-to-openai ---------------------------------------------------------------------------------------
def converted(to_openai: Any, tool: Any) -> Any:
    """What `to_openai` made of a copy of `tool`: the check compares with its own, whatever the copy became."""
    given = tool.model_copy(deep=True)
    try:
        definition = to_openai(given)
    except AttributeError as e:
        if "inputSchema" in str(e) or "input_schema" not in str(e) and "Schema" in str(e):
            raise NotYet("mcp 2 names the fields in snake_case: tool.input_schema (mcp 1.x tutorials write "
                         "tool.inputSchema; on the wire it is inputSchema).") from None
        raise
    if inspect.iscoroutine(definition):
        definition.close()  # never awaited: close it, or Python warns about it later
        raise NotYet("to_openai does not talk to the server: make it a plain `def`, not `async def`.")
    if not same(given.input_schema, tool.input_schema):
        raise NotYet("to_openai changed the tool's own input_schema: the model's definition must carry it as "
                     "it is, and nothing else may change it.")
    return definition


@exercise("l6-to-openai", lesson=6, given=GIVEN_CONVERT)
def check_to_openai(to_openai):
    import mcp.types as types

    from course.scripted import ScriptedModel

    async def talk(client: Any) -> list:
        return (await client.list_tools()).tools

    rng = draws()
    with docs_server() as (server, _):
        tools = run_async(lambda: in_memory(server, talk))
    made = made_server(rng, [READ, WRITES, UNANNOTATED], pages=1, description=False).made
    tools += [m.tool for m in made] + [m.tool for m in made_server(rng, [READ, WRITES], pages=1).made]
    tools.append(types.Tool(name=f"ping_{rng.randint(10, 99)}", input_schema={"type": "object"}))
    definitions = []
    for tool in tools:
        d = plain(converted(to_openai, tool))
        which = "a tool the check made up" if tool not in tools[:7] else tool.name
        if isinstance(d, dict) and "name" in d and "function" not in d:
            raise NotYet("that is the Responses API's flat format. Chat Completions nests name, description and "
                         'parameters under "function": {"type": "function", "function": {...}}.')
        fn = d.get("function") if isinstance(d, dict) else None
        if not isinstance(fn, dict) or d.get("type") != "function":
            raise NotYet(f'return a dict {{"type": "function", "function": {{...}}}}; got {str(d)[:100]!r}.')
        if not same(fn.get("name"), tool.name):
            raise NotYet(f"the function's name should be the tool's name (tool.name); for {which} it is "
                         f"{str(fn.get('name'))[:60]!r}.")
        description = fn.get("description")
        if tool.description is None and "description" in fn and not isinstance(description, str):
            raise NotYet("a tool may come without a description (tool.description is None), and the API wants "
                         "a string there: use tool.description or \"\" (or leave the key out).")
        if tool.description is not None and not same(description, tool.description):
            raise NotYet(f"the description should be the tool's own, as the server wrote it; for {which} it "
                         "differs.")
        if isinstance(fn.get("parameters"), str):
            raise NotYet('"parameters" should be the schema itself (a dict), not JSON text: the SDK encodes it.')
        if not same(fn.get("parameters"), tool.input_schema):
            lost = sorted(set(json.dumps(tool.input_schema)) - set(json.dumps(fn.get("parameters"))))
            raise NotYet(f'"parameters" should be the tool\'s input_schema untouched; for {which} it differs'
                         f"{' (parts are missing)' if lost else ''}. The model must see every rule the server "
                         "enforces (pattern, minimum, required, $defs...): pass tool.input_schema as it is.")
        definitions.append(d)
    try:
        json.dumps(definitions)
    except TypeError:
        raise NotYet("the definitions must be plain JSON (dicts, lists, strings): no MCP objects inside.") from None
    ScriptedModel(["ok"]).client(max_retries=0).chat.completions.create(
        model=MODEL, messages=[{"role": "user", "content": "hi"}], tools=definitions)
    return "The model sees each tool with the schema the server enforces, and the API accepts them."
