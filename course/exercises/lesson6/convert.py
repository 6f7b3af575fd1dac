"""The check of `l6-to-openai`: the tools of several MCP servers as one list of definitions the model's API
accepts, and the way back from a name the model calls to the server and tool it stands for.

What the API refuses, and where that rule is written:
- a function name outside `^[a-zA-Z0-9_-]{1,64}$` (OpenAI's API reference for a Chat Completions tool,
  `function.name`; the scripted model refuses it as the API does, course/scripted/chat_checks.py). MCP allows
  more: dots and slashes, up to 128 characters (MCP specification 2025-11-25, Tools › Tool names; SEP-986);
- `parameters` that are not an object schema: "schema must be a JSON Schema of 'type: \"object\"', got
  'type: \"None\"'" (the API's answer to a schema with no top-level type). An MCP server may send one, and
  `mcp` does not stop it.
Two tools with one name are the host's problem: the model could not tell them apart, nor the host where
to send the call. The check tries random servers with clashing names, names with dots, names over 64
characters that share their first 64, and schemas without a type; any scheme that renames is accepted
(a prefix, a suffix, a number), as long as a name that is valid and clashes with nothing stays as it is.
"""

from __future__ import annotations

import inspect
import json
import random
import re
from typing import Any

from course.backend import MODEL
from course.exercises import NotYet, exercise, run_async
from course.exercises.hints import trying
from course.exercises.lesson6.cases import READ, UNANNOTATED, WRITES, docs_server, in_memory, made_server
from course.exercises.lesson6.given import GIVEN_CONVERT
from course.exercises.seeds import draws

NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")  # OpenAI's rule for a function's name
HOW_NAMES = ("keep a tool's own name where it is valid and unique; otherwise replace every character outside "
             "a-z, A-Z, 0-9, _ and - (with _, say), cut to 64 characters, and where two names are then the same, "
             "tell them apart (prefix the server's name, or add a number) — then check the result again.")


# -- the cases: servers made up as the check runs --------------------------------------------------------
def tool(name: str, schema: dict, description: str | None = "Looks something up.") -> Any:
    import mcp.types as types

    return types.Tool(name=name, description=description, input_schema=schema)


def server_name(rng: random.Random, taken: set[str]) -> str:
    while True:
        name = rng.choice(["docs", "wiki", "shop", "crm", "class.server", "billing-eu", "time"]) + \
            rng.choice(["", "", f"{rng.randint(2, 9)}"])
        if name not in taken:
            taken.add(name)
            return name


def clashing_servers(rng: random.Random, docs_tools: list) -> tuple[dict[str, list], str]:
    """Several servers whose tools clash: the same name on two servers, a dotted name, two long names that share
    their first 64 characters, a schema without a type; and what the case is (for the hint)."""
    taken = {"docs"}
    other, third = server_name(rng, taken), server_name(rng, taken)
    word = rng.choice(["orders", "tickets", "refunds", "stock"])
    shared = rng.choice([t.name for t in docs_tools])  # a docs tool's name on another server too
    long = f"{word}_" + "_".join(rng.choice(["report", "monthly", "summary", "customer"]) for _ in range(12))
    long = long[:64] if len(long) > 64 else long + "x" * (64 - len(long))
    typed = {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]}
    untyped = {"properties": {"id": {"type": "string", "pattern": "^[A-Z][0-9]{4}$"}}, "required": ["id"]}
    servers = {
        "docs": list(docs_tools),
        other: [tool(shared, typed, "The other server's tool of that name."), tool(f"{word}.lookup", typed),
                tool(long + "_by_region", typed, None), tool(f"{word}_lookup", untyped)],
        third: [tool(shared, {}, "A third with the name."), tool(long + "_by_month", typed),
                tool(f"{word}/export", {"type": "object"})],
    }
    order = list(servers.items())
    rng.shuffle(order)
    return dict(order), "servers whose tools clash"


def plain_servers(rng: random.Random, docs_tools: list) -> tuple[dict[str, list], str]:
    """The notebook's docs server and made-up ones with no clash: every name stays as it is."""
    made = made_server(rng, [READ, WRITES, UNANNOTATED], pages=1, description=False).made
    taken = {"docs"}
    return ({"docs": list(docs_tools), server_name(rng, taken): [m.tool for m in made]},
            "servers whose tool names are all valid and distinct")


# -- running the learner's code -------------------------------------------------------------------------
def converted(to_openai: Any, servers: dict[str, list]) -> tuple[list, dict]:
    """What `to_openai` made of copies of `servers`; the tools' own schemas must come back unchanged."""
    given = {s: [t.model_copy(deep=True) for t in tools] for s, tools in servers.items()}
    try:
        got = to_openai(given)
    except AttributeError as e:
        if "inputSchema" in str(e) or "input_schema" not in str(e) and "Schema" in str(e):
            raise NotYet("mcp 2 names the fields in snake_case.",
                         "tool.input_schema (mcp 1.x tutorials write tool.inputSchema; on the wire it is "
                         "inputSchema).") from None
        raise
    if inspect.iscoroutine(got):
        got.close()  # never awaited: close it, or Python warns about it later
        raise NotYet("to_openai does not talk to the server.",
                     "make it a plain `def`, not `async def`.")
    for server, tools in servers.items():
        for mine, theirs in zip(given[server], tools, strict=True):
            if mine.input_schema != theirs.input_schema:
                raise NotYet(f"to_openai changed the input_schema of {server}'s tool {theirs.name!r} (it was "
                             f"{json.dumps(theirs.input_schema)[:80]}).",
                             "the tool's schema is the server's: build the definition's parameters as a new dict "
                             "(dict(schema), or {**schema, ...}) instead of changing it in place.")
    if not isinstance(got, tuple | list) or len(got) != 2:
        raise NotYet(f"to_openai returned a {type(got).__name__}; it should return two things: (definitions, "
                     "routes).", "return the list of definitions and the dict {name the model sees: (server, "
                     "the tool's own name)}, as a tuple.")
    definitions, routes = got
    if not isinstance(definitions, list) or not isinstance(routes, dict):
        raise NotYet(f"to_openai returned ({type(definitions).__name__}, {type(routes).__name__}); it should be "
                     "(a list of definitions, a dict of routes).",
                     "definitions: [{\"type\": \"function\", \"function\": {...}}, ...]; routes: {name: (server, "
                     "tool.name)}.")
    return definitions, routes


# -- judging what came back -----------------------------------------------------------------------------
def function_of(d: Any) -> dict:
    if isinstance(d, dict) and "name" in d and "function" not in d:
        raise NotYet("that is the Responses API's flat format.",
                     'Chat Completions nests name, description and parameters under "function": '
                     '{"type": "function", "function": {...}}.')
    fn = d.get("function") if isinstance(d, dict) else None
    if not isinstance(fn, dict) or d.get("type") != "function":
        raise NotYet(f"a definition is {str(d)[:100]!r}, not {{\"type\": \"function\", \"function\": {{...}}}}.",
                     "return one dict per tool: {\"type\": \"function\", \"function\": {\"name\": ..., "
                     "\"description\": ..., \"parameters\": ...}}.")
    return fn


def judge_names(definitions: list, routes: dict, servers: dict[str, list], what: str) -> dict[str, Any]:
    """Every tool once, under a name the API accepts and no other tool has; the routes lead back. {name: tool}."""
    every = [(s, t) for s, tools in servers.items() for t in tools]
    names = [function_of(d).get("name") for d in definitions]
    if len(definitions) != len(every):
        raise NotYet(f"for {what}, {len(every)} tools came in and {len(definitions)} definitions came out.",
                     "give every tool of every server a definition: two tools with one name are two tools "
                     "(rename one), not one.")
    bad = next((n for n in names if not isinstance(n, str) or not NAME.match(n)), None)
    if bad is not None:
        raise NotYet(f"for {what}, the name {str(bad)[:80]!r} is one the API refuses: a function's name must "
                     "match ^[a-zA-Z0-9_-]{1,64}$ (MCP allows dots, slashes and 128 characters).", HOW_NAMES)
    twice = next((n for n in names if names.count(n) > 1), None)
    if twice is not None:
        raise NotYet(f"for {what}, two definitions are called {twice!r}: the model could not tell them apart, "
                     "nor the host where to send the call.", HOW_NAMES)
    if set(routes) != set(names):
        raise NotYet(f"for {what}, the routes' names are not the definitions' names (a name with no route: "
                     f"{next(iter(set(names) - set(routes)), None)!r}).",
                     "add one route per definition, under the very name the model sees: routes[name] = (server, "
                     "tool.name).")
    found: dict[str, Any] = {}
    for name in names:
        route, t = routes[name], None
        if isinstance(route, tuple | list) and len(route) == 2 and isinstance(route[0], str):
            t = next((x for x in servers.get(route[0], []) if x.name == route[1]), None)
        if t is None:
            raise NotYet(f"for {what}, the route of {name!r} is {route!r}, which names no server's tool.",
                         "a route is (the server's name as a key of `servers`, the tool's own name, tool.name): "
                         "what the host needs to send the call where it belongs.")
        found[str(name)] = t
    if len({tuple(r) for r in routes.values()}) != len(every):
        raise NotYet(f"for {what}, two names lead to the same tool, so another tool has no way in.",
                     "route each name to the tool it was made from.")
    for server, t in every:
        valid = NAME.match(t.name) and all(o is t or (o.name != t.name and re.sub(r"[^a-zA-Z0-9_-]", "_", o.name)
                                                       [:64] != t.name) for _, o in every)
        if valid and found.get(t.name) is not t:
            raise NotYet(f"for {what}, {server}'s tool {t.name!r} is valid and clashes with no other tool, yet "
                         "the model does not see it under its own name.",
                         "rename only what you must: the server's own name is the one its description and "
                         "lesson 4's rules speak of.")
    return found


def judge_definition(fn: dict, t: Any, what: str) -> None:
    description = fn.get("description")
    if "description" in fn and not isinstance(description, str):
        raise NotYet(f"for {what}, a description is {description!r}: the API wants a string there.",
                     "a tool may come without a description (tool.description is None): use "
                     "tool.description or \"\" (or leave the key out).")
    if t.description is not None and description != t.description:
        raise NotYet(f"for {what}, the description of {t.name!r} is not the server's own.",
                     "pass tool.description as the server wrote it.")
    parameters = fn.get("parameters")
    if isinstance(parameters, str):
        raise NotYet('"parameters" is JSON text.', "give the schema itself (a dict): the SDK encodes it.")
    schema = t.input_schema
    if not isinstance(parameters, dict) or parameters.get("type") != "object":
        raise NotYet(f"for {what}, the parameters of {t.name!r} are {json.dumps(parameters)[:80]}: the API "
                     "refuses a schema whose top level is not of type object (\"schema must be a JSON Schema of "
                     "'type: \\\"object\\\"'\").",
                     "where the server's schema has no \"type\", give a copy with \"type\": \"object\" added; "
                     "every other rule stays as the server wrote it.")
    kept = {k: v for k, v in parameters.items() if k in schema}
    added = set(parameters) - set(schema)
    if kept != schema or added - {"type", "properties"} or parameters.get("properties", {}) != \
            schema.get("properties", {}):
        raise NotYet(f"for {what}, the parameters of {t.name!r} are not the server's schema "
                     f"({json.dumps(schema)[:80]}).",
                     "the model must see every rule the server enforces (pattern, minimum, required, $defs...): "
                     "pass tool.input_schema as it is, adding only a missing \"type\": \"object\".")


@exercise("l6-to-openai", lesson=6, given=GIVEN_CONVERT)
def check_to_openai(to_openai):
    from course.scripted import ScriptedModel

    async def talk(client: Any) -> list:
        return (await client.list_tools()).tools

    rng = draws()
    with docs_server() as (server, _):
        docs_tools = run_async(lambda: in_memory(server, talk))
    for make in (plain_servers, clashing_servers, clashing_servers):
        servers, what = make(rng, docs_tools)
        with trying(f"{what} ({', '.join(f'{s}: {len(ts)} tools' for s, ts in servers.items())})"):
            definitions, routes = converted(to_openai, servers)
        found = judge_names(definitions, routes, servers, what)
        for d in definitions:
            fn = function_of(d)
            judge_definition(fn, found[fn["name"]], what)
        try:
            json.dumps(definitions)
        except TypeError:
            raise NotYet("the definitions must be plain JSON (dicts, lists, strings).",
                         "build them from the tool's fields, with no MCP objects inside.") from None
        ScriptedModel(["ok"]).client(max_retries=0).chat.completions.create(
            model=MODEL, messages=[{"role": "user", "content": "hi"}], tools=definitions)
    return "Every server's tools under names the API accepts, none twice, each with its way back to its server."
