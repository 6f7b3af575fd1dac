"""Lesson 6's exercise checks accept correct clients written differently and see through ones that only look
right, each with a hint that says what is wrong (tests/test_exercises_lessons.py and
tests/test_exercises.py cover what every lesson shares: the reference solutions, the notebook, its stubs)."""

from __future__ import annotations

import pytest

from course.exercises.lesson6 import execute as execute_check
from exercise_checks import LIARS, fails_with, lying, passes, reviewed, solution

pytestmark = [pytest.mark.timeout(120),
              pytest.mark.filterwarnings("ignore:coroutine .* was never awaited:RuntimeWarning")]  # "forgot await"
TRIES = 3  # the checks draw new servers on every run: a wrong solution must fail on every draw


# -- l6-list-tools -----------------------------------------------------------------------------------
@pytest.mark.parametrize("source", [
    solution("l6-list-tools"),
    '''
    async def list_tools(client, allow):
        page = await client.list_tools()
        pages = [page]
        while page.next_cursor is not None:
            page = await client.list_tools(cursor=page.next_cursor)
            pages.append(page)
        return [tool for p in pages for tool in p.tools if tool.name in set(allow)]
    ''',
    '''
    async def list_tools(client, allow, cursor=None):
        page = await client.list_tools(cursor=cursor)
        mine = list(filter(lambda t: t.name in allow, page.tools))
        return mine if page.next_cursor is None else mine + await list_tools(client, allow, page.next_cursor)
    ''',
], ids=["reference", "pages-then-filter", "recursive"])
def test_l6_list_tools_check_accepts_correct_solutions_written_differently(source):
    passes("l6-list-tools", source, tries=TRIES)


LIST = '''
async def list_tools(client, allow):
    tools, cursor = [], None
    while True:
        page = await client.list_tools(cursor=cursor)
        tools += [tool for tool in page.tools if {keep}]
        cursor = page.next_cursor
        if {stop}:
            return tools
'''


def list_tools(keep: str = "tool.name in allow", stop: str = "cursor is None") -> str:
    return LIST.format(keep=keep, stop=stop)


@pytest.mark.parametrize("source, hint", [
    ('''
     async def list_tools(client, allow):
         return [tool for tool in (await client.list_tools()).tools if tool.name in allow]
     ''', "only the first page"),
    (list_tools(stop="cursor is None or not page.tools"), "a page with no tools"),
    (list_tools(keep="True"), "not on `allow`"),
    (list_tools(keep="any(name in tool.name for name in allow)"), "(the whole name)"),
    (list_tools(keep="tool.name in allow").replace("tools += [tool", "tools += [tool.name"), "returned names"),
    (list_tools().replace("async def", "def").replace("await ", ""), "client.list_tools is async"),
], ids=["first-page-only", "stops-at-an-empty-page", "no-allowlist", "part-of-a-name", "names", "not-async"])
def test_l6_list_tools_check_fails_on_a_solution_that_only_looks_right(source, hint):
    fails_with("l6-list-tools", source, hint, tries=TRIES)


# -- l6-to-openai ------------------------------------------------------------------------------------
@pytest.mark.parametrize("source", [
    solution("l6-to-openai"),
    # Another scheme: every name made valid, then a clash gets the server's name after it, then a number.
    """
    import re


    def valid(name):
        return re.sub(r"[^A-Za-z0-9_-]", "-", name)[:64]


    def to_openai(servers):
        everything = [(server, tool) for server in servers for tool in servers[server]]
        wanted = {}
        for server, tool in everything:
            wanted.setdefault(valid(tool.name), []).append((server, tool))
        definitions, routes = [], {}
        for name, holders in wanted.items():
            for server, tool in holders:
                exposed = name if len(holders) == 1 else valid(f"{tool.name}-{server}")
                number = 1
                while exposed in routes:
                    number += 1
                    exposed = f"{valid(tool.name)[:58]}-{number}"
                schema = dict(tool.input_schema)
                schema.setdefault("type", "object")
                function = {"name": exposed, "parameters": schema}
                if tool.description is not None:
                    function["description"] = tool.description
                definitions.append({"type": "function", "function": function})
                routes[exposed] = [server, tool.name]
        return definitions, routes
    """,
], ids=["reference", "suffix-and-number"])
def test_l6_to_openai_check_accepts_correct_solutions_written_differently(source):
    passes("l6-to-openai", source, tries=TRIES)


ONE_BY_ONE = """
def to_openai(servers):
    definitions, routes = [], {{}}
    for server, tools in servers.items():
        for tool in tools:
            name = {name}
            definitions.append({{"type": "function", "function": {{
                "name": name, "description": tool.description or "", "parameters": {parameters}}}}})
            routes[name] = (server, tool.name)
    return definitions, routes
"""


def one_by_one(name: str = "tool.name", parameters: str = 'tool.input_schema | {"type": "object"}') -> str:
    return ONE_BY_ONE.format(name=name, parameters=parameters)


@pytest.mark.parametrize("source, hint", [
    # The lesson's old exercise: one tool at a time, its own name, its schema as it is.
    ('def to_openai(tool):\n    return {"type": "function", "function": {"name": tool.name, '
     '"description": tool.description or "", "parameters": tool.input_schema}}', "has no attribute 'name'"),
    # The names as MCP spells them: a dot, a slash, over 64 characters.
    (one_by_one(), "is one the API refuses"),
    # Always the server's name in front, as MCP spells it: a dot, or a name over 64 characters.
    (one_by_one(name='f"{server}.{tool.name}"'), "is one the API refuses"),
    # Made valid and cut at 64 characters, but never told apart: two servers' tools of one name, two long names.
    ("import re\n" + one_by_one(name='re.sub(r"[^a-zA-Z0-9_-]", "_", tool.name)[:64]'),
     "two definitions are called"),
    # Prefixes every tool, clash or not: a valid, unique name is renamed.
    ("import re\n" + one_by_one(name='re.sub(r"[^a-zA-Z0-9_-]", "_", f"{server}__{tool.name}")[:50] + '
                                     'str(len(routes))'), "under its own name"),
    # The type added in place: the server's own schema changes.
    (solution("l6-to-openai").replace(
        'return schema if schema.get("type") == "object" else {**schema, "type": "object"}',
        'schema.setdefault("type", "object")\n    return schema'), "changed the input_schema"),
    # The schema passed through untouched, even where the API refuses it.
    (solution("l6-to-openai").replace('schema if schema.get("type") == "object" else {**schema, "type": "object"}',
                                      "schema"), "refuses a schema whose top level is not of type object"),
    # Dropped what the API would not take: the server's rules are gone.
    (solution("l6-to-openai").replace('{**schema, "type": "object"}', '{"type": "object"}'),
     "not the server's schema"),
], ids=["one-tool-at-a-time", "names-as-they-are", "dotted-prefix", "cut-without-recheck", "prefix-everything",
        "type-added-in-place", "untyped-schema-passed", "schema-replaced"])
def test_l6_to_openai_check_fails_on_a_solution_that_only_looks_right(source, hint):
    fails_with("l6-to-openai", source, hint, tries=TRIES)


# -- l6-result-text ----------------------------------------------------------------------------------
@pytest.mark.parametrize("source", [
    solution("l6-result-text"),
    '''
    import json


    def result_to_text(result):
        lines = []
        for part in result.content:
            lines.append(part.text if part.type == "text" else f"<{part.type} not shown>")
        if not lines:
            lines = [json.dumps(result.structured_content, indent=2) if result.structured_content else "(empty)"]
        text = "\\n\\n".join(lines)
        return "Error: " + text if result.is_error else text
    ''',
], ids=["reference", "always-prefix-and-blank-lines"])
def test_l6_result_text_check_accepts_correct_solutions_written_differently(source):
    passes("l6-result-text", source, tries=TRIES)


RESULT = '''
import json

from mcp.types import TextContent


def result_to_text(result):
    parts = [{part} for part in result.content]
    text = "\\n".join(parts)
    if not text and result.structured_content is not None:
        text = json.dumps(result.structured_content)
    text = text or {empty}
    {error}
    return text
'''
ERROR = 'if result.is_error and not text.startswith("Error"):\n        text = "Error: " + text'


def result_text(part: str = 'part.text if isinstance(part, TextContent) else "[image]"',
                empty: str = '"(nothing)"', error: str = ERROR) -> str:
    return RESULT.format(part=part, empty=empty, error=error)


@pytest.mark.parametrize("source, hint", [
    ("def result_to_text(result):\n    return result.content[0].text", "not only the first"),
    (result_text(error="pass"), "reads like an answer"),
    (result_text(part="part.text"), "a part that is not text"),
    (result_text(empty='""'), "empty text"),
    (result_text(part='part.text if isinstance(part, TextContent) else ""'), "vanished without a trace"),
    (result_text(part="part.text if isinstance(part, TextContent) else str(part)"), "image's data"),
], ids=["first-part-only", "error-flag-dropped", "every-part-is-text", "empty-text", "image-dropped",
        "image-data-kept"])
def test_l6_result_text_check_fails_on_a_solution_that_only_looks_right(source, hint):
    fails_with("l6-result-text", source, hint, tries=TRIES)


# -- l6-execute --------------------------------------------------------------------------------------
@pytest.mark.parametrize("source", [
    solution("l6-execute"),
    '''
    import asyncio
    import json

    from course.host import result_text


    def make_execute(client, tools, approve, timeout):
        async def execute(name, arguments):
            if name not in tools:
                return f"Error: unknown tool {name}; the tools are {sorted(tools)}."
            try:
                args = json.loads(arguments)
                assert isinstance(args, dict)
            except (ValueError, AssertionError):
                return "Error: send the arguments as one JSON object."
            if not getattr(tools[name].annotations, "read_only_hint", None):
                if not await approve(name, args):
                    return f"The person declined {name}; it did not run. Ask them what to do instead."
            try:
                result = await asyncio.wait_for(client.call_tool(name, args), timeout)
            except TimeoutError:
                return f"Error: no answer from {name} after {timeout} seconds."
            return result_text(result)

        return execute
    ''',
], ids=["reference", "wait-for-and-getattr"])
def test_l6_execute_check_accepts_correct_solutions_written_differently(source):
    passes("l6-execute", source, tries=2)


REFERENCE_EXECUTE = solution("l6-execute")


def execute(old: str, new: str) -> str:
    assert old in REFERENCE_EXECUTE
    return REFERENCE_EXECUTE.replace(old, new)


@pytest.mark.parametrize("source, hint, tries", [
    (execute("tool.annotations is not None and tool.annotations.read_only_hint is True",
             "tool.annotations is None or tool.annotations.read_only_hint is not False"), "ran without asking", 2),
    (execute("tool.annotations is not None and tool.annotations.read_only_hint is True",
             "tool.annotations is not None and not tool.annotations.destructive_hint"), "ran without asking", 2),
    (execute("return result_text(result)", "return result.content[0].text"), "keeps the error flag", 2),
    (execute("read_timeout_seconds=timeout", "read_timeout_seconds=None"), "a slow tool kept execute waiting", 1),
    (execute("read_timeout_seconds=timeout", "read_timeout_seconds=2.5"), "use the `timeout` you were given", 1),
    (execute("        except MCPError as e:\n            if e.code == REQUEST_TIMEOUT:  # the connection is still "
             "fine\n                return f\"Error: {name} did not answer within {timeout:g} s. Tell the user it is "
             "not available now.\"\n            return f\"Error: the server refused the call to {name}: "
             "{e.message}\"\n", "        except ValueError:\n            raise\n"),
     "raised MCPError out of execute", 1),
    (execute("        tool = tools.get(name)\n        if tool is None:\n            return f\"Error: there is no tool "
             "{name!r} here. Use one of: {', '.join(tools)}.\"\n",
             "        tool = tools.get(name) or next(iter(tools.values()))\n"), "not in `tools` was run", 2),
    (execute("not await approve(name, args)", "not approve(name, args)"), "approve is async", 2),
    (execute('return f"{name} was not run: the user rejected it. Do not retry without a new request."',
             'return "Error: failed."'), "tell the model the call was rejected", 2),
    (execute("await approve(name, args)", "await approve(name, arguments)"), "arguments as a dict", 2),
], ids=["missing-read-only-hint-means-read-only", "not-destructive-means-read-only", "error-flag-dropped",
        "no-timeout", "a-timeout-of-its-own", "timeout-not-caught", "hidden-tool-runs", "approve-not-awaited",
        "rejection-unexplained", "approve-gets-json-text"])
def test_l6_execute_check_fails_on_a_solution_that_only_looks_right(source, hint, tries, monkeypatch):
    # The whole conversation takes well under a second with the draws' timeouts (<= 0.9 s for the slow tool), so a
    # shorter limit than the learner's 10 s still tells a client with no timeout (it waits the whole limit).
    monkeypatch.setattr(execute_check, "LIMIT", 4.0)
    fails_with("l6-execute", source, hint, tries=tries)


# -- l6-agent ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("source", [
    solution("l6-agent"),
    '''
    import asyncio


    async def agent(llm, model, question, tools, execute, max_steps=6):
        messages, steps = [{"role": "user", "content": question}], 0
        while steps < max_steps:
            steps += 1
            response = await llm.chat.completions.create(model=model, messages=messages, tools=tools)
            message = response.choices[0].message
            if message.tool_calls is None:
                return message.content
            messages.append(message)
            calls = message.tool_calls
            texts = await asyncio.gather(*(execute(c.function.name, c.function.arguments) for c in calls))
            messages += [{"role": "tool", "tool_call_id": c.id, "content": t} for c, t in zip(calls, texts)]
        return "Stopped: the step limit was reached before an answer."
    ''',
], ids=["reference", "while-and-gather"])
def test_l6_agent_check_accepts_correct_solutions_written_differently(source):
    passes("l6-agent", source, tries=TRIES)


REFERENCE_AGENT = solution("l6-agent")


def agent(old: str, new: str) -> str:
    assert old in REFERENCE_AGENT
    return REFERENCE_AGENT.replace(old, new)


@pytest.mark.parametrize("source, hint", [
    (agent("range(max_steps)", "range(max_steps + 1)"), "more requests than max_steps"),
    (agent("range(max_steps)", "range(max_steps - 1)"), "stopped before the model answered"),
    (agent("text = await execute(", "text = execute("), "execute is async"),
    (agent("response = await llm.", "response = llm."), "async client"),
    (agent('"content": text}', '"content": call.function.arguments}'), "wrong text"),
    (agent("return message.content", "return message"), "the model's answer text"),
    ('''
     async def agent(llm, model, question, tools, execute, max_steps=6):
         messages = [{"role": "user", "content": question}]
         message = (await llm.chat.completions.create(model=model, messages=messages, tools=tools)).choices[0].message
         if not message.tool_calls:
             return message.content
         messages.append(message.model_dump(exclude_none=True))
         for call in message.tool_calls:
             text = await execute(call.function.name, call.function.arguments)
             messages.append({"role": "tool", "tool_call_id": call.id, "content": text})
         again = await llm.chat.completions.create(model=model, messages=messages, tools=tools)
         return again.choices[0].message.content
     ''', "the model's answer text"),
], ids=["one-step-too-many", "one-step-too-few", "execute-not-awaited", "llm-not-awaited", "wrong-tool-text",
        "message-returned", "one-round-only"])
def test_l6_agent_check_fails_on_a_solution_that_only_looks_right(source, hint):
    fails_with("l6-agent", source, hint, tries=TRIES)


def test_list_tools_refuses_tools_made_up_from_the_allowlist_without_asking_the_server():
    fails_with("l6-list-tools", """
        import mcp.types as types


        async def list_tools(client, allow):
            return [types.Tool(name=name, input_schema={"type": "object"}) for name in sorted(allow)]
    """, "the result holds a tool the server does not list")


# -- answers that lie: equal to anything, so a check that trusted `==` passed them ----------------------------
FOUND_ANYWHERE = """
class _Found(str):
    def find(self, *args):
        return 0
"""


@pytest.mark.parametrize("id, source, hint", [
    ("l6-list-tools", LIARS + """
import mcp.types as types


async def list_tools(client, allow):
    page = await client.list_tools()  # the first page only, and a name that stands for any other
    extra = [types.Tool.model_construct(name=_Any("export_customers"))] if "export_customers" in allow else []
    return [tool for tool in page.tools if tool.name in allow] + extra
""", "the result holds a tool the server does not list"),
    ("l6-to-openai", lying("l6-to-openai", '"description": tool.description or ""', '"description": _Any("")'),
     "the description"),
    ("l6-result-text", FOUND_ANYWHERE + """
import json


def result_to_text(result):
    if not result.content and result.structured_content is not None:
        return json.dumps(result.structured_content)
    return _Found("Error: it failed [image]" if result.is_error else "some text [image]")
""", "the text of a part is missing or out of order"),
    ("l6-execute", lying("l6-execute", "return result_text(result)", 'text = result_text(result)\n'
                                                                      '        return text if text.startswith("Error") '
                                                                      'else _Any("ok")'),
     "get_order_record for A1004 should return the order's record as text"),
    ("l6-agent", lying("l6-agent", "return message.content", 'return _Any("")'),
     "agent should return the model's answer text"),
    ("l6-to-openai", LIARS + """
def to_openai(servers):
    for tools in servers.values():
        for tool in tools:  # equal to the schema it replaces, and to the one in the definition
            tool.input_schema = _AnyDict()
    return [], {}
""", "to_openai changed the tool's own input_schema"),
    # No dunder and no private name: a str subclass whose own `find` says every part is there (seen passing the
    # vocabulary rule before it flagged classes on built-in types).
    ("l6-result-text", FOUND_ANYWHERE.replace("_Found", "Found") + """
def result_to_text(result):
    return Found("Error: it failed [image]" if result.is_error else "some text [image]")
""", "the text of a part is missing or out of order"),
], ids=["list-tools", "to-openai", "result-text", "execute", "agent", "to-openai-replaces-the-schema",
        "result-text-public-subclass"])
def test_lesson_6_answers_that_lie_about_equality_go_to_review_by_the_graders_vocabulary_rule(id, source, hint):
    del hint  # what the check said while plain() guarded it: now the grader's rule does
    reviewed(id, source)
