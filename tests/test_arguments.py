"""One parser for a tool call's arguments: every layer answers bad arguments with the same actionable line."""

import json

import pytest

from course.agent import arun_agent, run_agent
from course.approval import AutoApprover, guarded
from course.arguments import MAX_CHARS, MAX_DEPTH, parse_arguments
from course.errors import ApprovalFailed, BadArguments, CourseError, ToolFailure
from course.host import McpHost, in_memory
from course.orders import shop_toolbox
from course.permissions import Policy
from course.scripted import ScriptedModel, raw_call
from servers import shopfront

pytestmark = pytest.mark.anyio
DEEP = '{"order_id": ' + "[" * 1000 + "]" * 1000 + "}"  # 2 kB that Python's json cannot parse
HUGE = json.dumps({"order_id": "A1001", "note": "x" * 200_000})


def is_one_actionable_line(reply: str) -> bool:
    return reply.startswith("Error: ") and "\n" not in reply and len(reply) < 400 and "call again" in reply


def test_readable_arguments_come_back_as_a_dict():
    assert parse_arguments("t", '{"order_id": "A1001"}') == {"order_id": "A1001"}
    assert parse_arguments("t", {"order_id": "A1001"}) == {"order_id": "A1001"}
    assert parse_arguments("t", "") == {} and parse_arguments("t", None) == {}


@pytest.mark.parametrize("arguments, says", [
    ("{order_id: A1}", "not valid JSON: Expecting property name enclosed in double quotes at position 1"),
    ("[1, 2]", "not a JSON object (got list)"),
    ("null", "not a JSON object (got null)"),
    ('{"amount": NaN}', "NaN is not a number JSON allows"),
    ('{"amount": ' + "9" * 5000 + "}", "Exceeds the limit"),
    (DEEP, f"nested more than {MAX_DEPTH} levels deep"),
    (HUGE, f"too large ({len(HUGE):,} characters, at most {MAX_CHARS:,})"),
])
def test_unreadable_arguments_raise_one_line_that_says_what_to_send(arguments, says):
    with pytest.raises(BadArguments) as caught:
        parse_arguments("get_order_status", arguments)
    assert says in str(caught.value) and is_one_actionable_line(str(caught.value))
    assert len(caught.value.raw) < 250  # the log keeps an excerpt, not 200 kB


def test_the_hint_names_the_tools_own_parameters_when_the_schema_is_known():
    schema = {"properties": {"order_id": {}, "amount": {}}, "required": ["order_id"]}
    with pytest.raises(BadArguments, match=r"parameters \(order_id, amount \(optional\)\) and call again"):
        parse_arguments("refund", "[]", schema=schema)
    with pytest.raises(BadArguments, match=r"Send \{\} \(this tool takes no arguments\)"):
        parse_arguments("ping", "[]", schema={"properties": {}})


def test_brackets_inside_strings_do_not_count_as_nesting():
    text = json.dumps({"query": "[" * 500 + '\\"{' * 100})
    assert parse_arguments("search", text)["query"].startswith("[[[")


def test_a_deep_python_value_is_refused_without_recursing():
    value: dict = {}
    inner = value
    for _ in range(5000):
        inner["x"] = {}
        inner = inner["x"]
    with pytest.raises(BadArguments, match="nested more than"):
        parse_arguments("t", value)


def test_deeply_nested_arguments_reach_the_model_as_advice_through_toolbox_execute():
    reply = shop_toolbox().execute("get_order_status", DEEP)
    assert "nested more than" in reply and "(order_id)" in reply and is_one_actionable_line(reply)


def deep_then_answer() -> ScriptedModel:
    return ScriptedModel([raw_call("get_order_status", DEEP), "Please send the order number again."])


def test_deeply_nested_arguments_do_not_crash_run_agent():
    toolbox = shop_toolbox()
    result = run_agent(deep_then_answer().client(), "gpt-4.1-mini", "Where is A1001?", tools=toolbox.definitions(),
                       execute=toolbox.execute)
    tool_reply = next(m["content"] for m in result.messages if m["role"] == "tool")
    assert result.stop_reason == "done" and "nested more than" in tool_reply
    assert len(result.trace[0].tool_calls[0]) < 300  # the trace shows an excerpt, not the whole text


async def test_deeply_nested_arguments_do_not_crash_arun_agent():
    toolbox = shop_toolbox()

    async def execute(name, arguments):
        return toolbox.execute(name, arguments)

    result = await arun_agent(deep_then_answer().async_client(), "gpt-4.1-mini", "Where is A1001?",
                              tools=toolbox.definitions(), execute=execute)
    assert result.stop_reason == "done" and "nested more than" in result.messages[2]["content"]


async def test_deeply_nested_arguments_are_logged_and_never_run_through_guarded():
    toolbox, reached = shop_toolbox(), []

    def execute(name, arguments):
        reached.append(name)
        return toolbox.execute(name, arguments)

    run = guarded(execute, policy=Policy.for_tools(toolbox.tools.values()), approver=AutoApprover(True),
                  tools=toolbox)
    reply = await run("get_order_status", DEEP)
    assert "nested more than" in reply and "(order_id)" in reply and reached == []
    assert [e.decided_by for e in run.log] == ["unreadable arguments"]


async def test_deeply_nested_and_huge_arguments_never_reach_an_mcp_server():
    calls = []
    async with McpHost(quiet=True) as host:
        await host.connect("shop", in_memory(shopfront.build(calls)), allow={"lookup"})
        deep = await host.execute("lookup", DEEP)
        huge = await host.execute("lookup", HUGE)
    assert "nested more than" in deep and "(order_id)" in deep and "too large" in huge and calls == []
    assert all(len(json.dumps(e.arguments)) < 300 for e in host.log)


def test_every_course_exception_shares_one_base_and_approval_failed_is_an_ordinary_exception():
    assert issubclass(ToolFailure, CourseError) and issubclass(BadArguments, CourseError)
    assert issubclass(ApprovalFailed, CourseError) and not issubclass(ApprovalFailed, (KeyboardInterrupt,))
    assert ApprovalFailed.__mro__[1:3] == (CourseError, Exception)


async def test_the_loop_lets_approval_failed_through_instead_of_showing_it_to_the_model():
    def broken(name, arguments):
        raise ApprovalFailed("The approver crashed. Nothing was run.")

    def model():
        return ScriptedModel([raw_call("get_order_status", '{"order_id": "A1001"}'), "never reached"])

    with pytest.raises(ApprovalFailed, match="approver crashed"):
        run_agent(model().client(), "gpt-4.1-mini", "x", tools=shop_toolbox().definitions(), execute=broken)

    async def abroken(name, arguments):
        broken(name, arguments)

    with pytest.raises(ApprovalFailed, match="approver crashed"):
        await arun_agent(model().async_client(), "gpt-4.1-mini", "x", tools=shop_toolbox().definitions(),
                         execute=abroken)


def test_arguments_as_deep_as_the_limit_are_read_and_one_level_more_is_refused():
    def nested(levels: int) -> str:
        return '{"a": ' + "[" * (levels - 1) + "]" * (levels - 1) + "}"

    assert parse_arguments("t", nested(MAX_DEPTH)) == json.loads(nested(MAX_DEPTH))
    with pytest.raises(BadArguments, match="nested more than"):
        parse_arguments("t", nested(MAX_DEPTH + 1))
