"""Bad calls become clear tool-result messages, never exceptions."""

import pytest

from course.errors import ToolFailure
from course.orders import OrderLookup, get_order_status, shop_toolbox
from course.scripted import ScriptedModel, call, raw_call
from course.tools import Toolbox, tool


@pytest.fixture
def toolbox():
    return shop_toolbox()


def test_the_definition_carries_the_pydantic_schema():
    fn = get_order_status.definition()["function"]
    assert fn["name"] == "get_order_status" and "order number" in fn["description"]
    assert fn["parameters"] == OrderLookup.model_json_schema()
    assert fn["parameters"]["additionalProperties"] is False


def test_a_valid_call_returns_json_text(toolbox):
    assert '"status": "shipped"' in toolbox.execute("get_order_status", '{"order_id": "A1001"}')


@pytest.mark.parametrize("name, arguments, expected", [
    ("get_order", "{}", "there is no tool named 'get_order'. Available tools: get_order_status, find_orders"),
    ("get_order_status", "{order_id: A1}", "are not a JSON object (not valid JSON: Expecting property name"),
    ("get_order_status", "[1, 2]",
     "not a JSON object (got list), so nothing was run. Send one JSON object with the tool's parameters (order_id)"),
    ("get_order_status", '{"order_id": "1001"}', "order_id: String should match pattern"),
    ("get_order_status", "{}", "order_id: Field required"),
    ("get_order_status", '{"order_id": "A1001", "x": 1}', "x: Extra inputs are not permitted"),
    ("get_order_status", '{"order_id": "A9999"}', "No order A9999. Ask the customer"),
])
def test_bad_calls_become_error_text_that_says_what_to_do(toolbox, name, arguments, expected):
    reply = toolbox.execute(name, arguments)
    assert reply.startswith("Error:") and expected in reply


def test_a_crashing_tool_is_reported_as_not_the_models_fault():
    @tool(OrderLookup)
    def broken(args):
        """Always crashes."""
        raise KeyError("oops")

    reply = Toolbox(broken).execute("broken", '{"order_id": "A1001"}')
    assert "failed unexpectedly (KeyError" in reply and "Do not retry" in reply


def test_tool_messages_answer_every_call_in_order(toolbox):
    model = ScriptedModel([[call("get_order_status", order_id="A1001"), raw_call("get_order_status", "{")]])
    message = model.client().chat.completions.create(
        model="gpt-5.5", messages=[{"role": "user", "content": "x"}], tools=toolbox.definitions()).choices[0].message
    replies = toolbox.tool_messages(message)
    assert [r["tool_call_id"] for r in replies] == ["call_1_0", "call_1_1"]
    assert "shipped" in replies[0]["content"] and replies[1]["content"].startswith("Error:")


def test_a_tool_failure_has_one_name_the_one_lesson_1_teaches():
    import course.tools

    assert course.tools.ToolFailure is ToolFailure
    assert not hasattr(course.tools, "ToolError")  # that name is the MCP SDK's (lesson 5), not a second ToolFailure
