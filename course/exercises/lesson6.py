"""Checks for lesson 6's exercises (notebooks/06_mcp_client.ipynb): the learner writes the MCP client itself.

In the order the lesson builds it: list every tool across pages with an allowlist, convert the tools
for the model, turn a result into text, execute a call (approval, timeout), and the async loop over it.
Each check runs the learner's async code on an event loop of its own in a worker thread (the
notebook's loop is busy running the check cell), against the course's document server in memory and
against servers made up as it runs (`lesson6_cases`), so only a general solution passes. Hints say what
went wrong, never a hidden input. The execute check is in `lesson6_execute`, the agent loop's
in `lesson6_agent`.
"""

from __future__ import annotations

import inspect
import json
import random
from typing import Any

from course.backend import MODEL
from course.exercises import NotYet, exercise, run_async
from course.exercises.lesson6_cases import (
    READ,
    UNANNOTATED,
    WRITES,
    docs_server,
    in_memory,
    made_server,
)
from course.exercises.plain import plain, same
from course.exercises.seeds import draws

# What the notebook has imported by each exercise cell (tests/test_exercises_lessons.py compares them).
GIVEN_LIST = """
from course.backend import connect
from course.stories.lesson6 import refund_desk
import tempfile
from pathlib import Path
from course.host import McpHost, http, in_memory, stdio
import os
from mcp.client.stdio import DEFAULT_INHERITED_ENV_VARS
from mcp import Client
from course.servers.docs import build_server
"""
GIVEN_CONVERT = GIVEN_LIST + """
from course.exercises import check, hint
from course.approval import choose_approver
"""
GIVEN_RESULT = GIVEN_CONVERT + """
from course import show
"""
GIVEN_EXECUTE = GIVEN_RESULT + """
import mcp.types as types
from course.host import result_text
"""

DOCS_ALLOW = {"search_docs", "read_section", "list_documents", "get_order_record", "create_ticket", "issue_refund"}


def awaited(value: Any, what: str) -> Any:
    if not inspect.isawaitable(value):
        raise NotYet(f"{what} should be an `async def` function (it awaits the client), so the check can await it.")
    return value


def names(tools: Any, what: str) -> list[str]:
    import mcp.types as types

    if not isinstance(tools, list | tuple):
        raise NotYet(f"{what} should return a list of tools, not {type(tools).__name__}.")
    if any(isinstance(t, str) for t in tools):
        raise NotYet(f"{what} returned names; return the `Tool` objects themselves (page.tools holds them): the "
                     "next steps need their schema and annotations.")
    found = [plain(t.name) for t in tools] if all(isinstance(t, types.Tool) for t in tools) else None
    if found is None or not all(isinstance(name, str) for name in found):
        raise NotYet(f"{what} should return the `Tool` objects from the pages (page.tools).")
    return found


# -- l6-list-tools --------------------------------------------------------------------------------------
def listed(list_tools: Any, server: Any, allow: set[str]) -> tuple[list[str], set[str]]:
    """The names the learner's `list_tools` returned, and `allow` afterwards."""
    mine = set(allow)

    async def talk(client: Any) -> Any:
        return await awaited(list_tools(client, mine), "list_tools(client, allow)")

    try:
        tools = run_async(lambda: in_memory(server, talk), limit=10,
                          hint=" (does the loop pass each page's next_cursor as the next cursor, and stop when it "
                               "is None?)")
    except AttributeError as e:
        if "coroutine" in str(e):
            raise NotYet("client.list_tools is async: `page = await client.list_tools(cursor=cursor)`, inside an "
                         "`async def`.") from None
        raise
    return names(tools, "list_tools(client, allow)"), mine


@exercise("l6-list-tools", lesson=6, given=GIVEN_LIST)
def check_list_tools(list_tools):
    with docs_server() as (server, _):
        got, after = listed(list_tools, server, DOCS_ALLOW)
    if not same(after, DOCS_ALLOW):
        raise NotYet("list_tools changed the `allow` set it was given: only read it.")
    judge_listing(got, sorted(DOCS_ALLOW), DOCS_ALLOW)
    if sorted(got) != sorted(DOCS_ALLOW):
        raise NotYet(f"for the document server and the notebook's ALLOW, list_tools returned {sorted(got)}; "
                     f"it should return the {len(DOCS_ALLOW)} tools on ALLOW (cancel_order is not).")
    rng = draws()
    kinds = [READ] * rng.randint(6, 9)
    for empty_page in (False, True, False):
        made = made_server(rng, kinds, pages=rng.randint(3, 4), empty_page=empty_page)
        every = made.names()
        allow = set(rng.sample(every, rng.randint(3, len(every) - 2)))
        allow.add(made.pages[-1][-1])  # a tool on the last page is always wanted
        near = next(n for n in every if n not in allow)
        allow |= {near[:-1], "export_customers"}  # part of a listed name, and a name the server does not list
        got, _ = listed(list_tools, made.server, allow)
        missing = judge_listing(got, [n for n in every if n in allow], allow, listed=every)
        if missing:
            asked = len(made.cursors_asked)
            if asked == 1:
                raise NotYet("only the first page's tools are there. A server may send its list in pages: call "
                             "client.list_tools(cursor=page.next_cursor) again until next_cursor is None.")
            empty_at = next((i for i, p in enumerate(made.pages) if not p), None)
            if empty_at is not None and asked == empty_at + 1:
                raise NotYet("the list stopped at a page with no tools: a page may be empty and still have a "
                             "next_cursor. Stop only when next_cursor is None.")
            if asked < len(made.pages):
                raise NotYet("the last page's tools are missing: keep going while next_cursor is not None (the "
                             "last page is the one without a next_cursor, and it holds tools too).")
            raise NotYet("some tools on `allow` are missing from the result: keep every tool of every page "
                         "whose name is in allow.")
    return "Every page, and only the tools you chose: a new tool stays hidden until you add it."


def judge_listing(got: list[str], want: list[str], allow: set[str], listed: list[str] | None = None) -> list[str]:
    """The wanted names missing from `got`, once `got` holds nothing it must not (when `listed` is given: only
    tools the server lists)."""
    if any(n not in allow for n in got):
        raise NotYet("the result holds tools that are not on `allow`: the allowlist must hide every other "
                     "tool the server lists. Keep a tool only if `tool.name in allow` (the whole name).")
    if len(got) != len(set(got)):
        raise NotYet("the result lists a tool twice: ask for each page once, with the cursor the previous "
                     "page gave you.")
    if listed is not None and any(n not in listed for n in got):
        raise NotYet("the result holds a tool the server does not list. Return only the Tool objects from its "
                     "pages (page.tools), never one you make up from `allow`.")
    return [n for n in want if n not in got]


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


# -- l6-result-text -------------------------------------------------------------------------------------
def results(rng: random.Random) -> list[tuple[Any, str, list[str]]]:
    """(result, what it is, texts that must appear in order) for results of every shape."""
    import mcp.types as types

    def text(t: str) -> Any:
        return types.TextContent(type="text", text=t)

    def words(n: int = 4) -> str:
        return " ".join(rng.choice(["kettle", "mug", "refund", "A1002", "ready", "3 left"]) for _ in range(n))

    parts = [words() for _ in range(rng.randint(2, 4))]
    failure = f"no {rng.choice(['kettle', 'mug', 'lamp'])} left in stock ({rng.randint(2, 99)} ordered)"
    image = types.ImageContent(type="image", data="iVBORw0KGgo" + "A" * rng.randint(40, 80), mime_type="image/png")
    data = {"count": rng.randint(1, 99), "items": [words(1), words(1)]}
    said = f"Error executing tool check_stock: {words()}"
    return [
        (types.CallToolResult(content=[text(parts[0])]), "a result with one text part", parts[:1]),
        (types.CallToolResult(content=[text(p) for p in parts]), "a result with several text parts", parts),
        (types.CallToolResult(content=[text(parts[0]), image, text(parts[1])]), "a result with an image between two "
         + "text parts", parts[:2]),
        (types.CallToolResult(content=[], structured_content=data), "a result with only structured content", []),
        (types.CallToolResult(content=[]), "a result with nothing in it", []),
        (types.CallToolResult(content=[text(failure)], is_error=True), "a failed result (is_error)", [failure]),
        (types.CallToolResult(content=[text(said)], is_error=True), "a failed result whose text starts with Error",
         [said.removeprefix("Error")]),
    ]


@exercise("l6-result-text", lesson=6, given=GIVEN_RESULT)
def check_result_text(result_to_text):
    rng = draws()
    for result, what, texts in results(rng):
        try:
            got = plain(result_to_text(result))
        except AttributeError as e:
            if "text" in str(e):
                raise NotYet(f"for {what}, your code asked a part that is not text for its .text: check "
                             "isinstance(part, TextContent) first, and describe other parts in a short note.") from None
            raise
        if not isinstance(got, str):
            raise NotYet(f"result_to_text should return a str; for {what} it returned {type(got).__name__}.")
        if not got.strip():
            raise NotYet(f"for {what} the model would get an empty text: say that the tool returned nothing "
                         "(or give the structured content as JSON).")
        position = 0
        for part in texts:
            found = got.find(part, position)
            if found < 0:
                raise NotYet(f"for {what}, the text of a part is missing or out of order: keep every text part "
                             "of result.content, in order (not only the first).")
            position = found + len(part)
        if result.is_error and not got.startswith("Error"):
            raise NotYet(f"for {what} the text reads like an answer: the model cannot tell the call failed. "
                         "When result.is_error, start the text with 'Error' (add 'Error: ' if the server's "
                         "text does not start with it).")
        if not result.is_error and got.startswith("Error"):
            raise NotYet(f"{what} succeeded, yet the text starts with 'Error': add it only when result.is_error.")
        if any(p.type == "image" for p in result.content):
            image = next(p for p in result.content if p.type == "image")
            if image.data[:20] in got:
                raise NotYet("the image's data (base64) reached the text: the model cannot use it and it costs "
                             "tokens. Put a short note such as '[image]' in its place.")
            if "image" not in got.lower():
                raise NotYet("a part that is not text vanished without a trace: put a short note that names its "
                             "kind, such as '[image]', in its place.")
        if result.structured_content is not None and not result.content:
            try:
                same = json.loads(got) == result.structured_content
            except json.JSONDecodeError:
                same = False
            if not same:
                raise NotYet(f"for {what}, return its structured_content as JSON text "
                             "(json.dumps(result.structured_content)).")
    return "Every part reaches the model as text, and a failure stays a failure."
