"""Checks for lesson 5's exercises (notebooks/05_mcp_server.ipynb).

Each check talks to the learner's server in memory through the SDK's `Client`, exactly as
the notebook does, on an event loop of its own in a worker thread (the notebook's loop is busy
running the check cell).
"""

from __future__ import annotations

from typing import Any

from course.exercises import NotYet, exercise
from course.exercises import run_async

GIVEN = """
from typing import Annotated, Any
from pydantic import Field
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
"""


async def _tools_and_calls(server: Any, name: str, calls: list[dict]) -> tuple[dict, list]:
    import logging

    from mcp import Client

    # A crash in the learner's tool is what the check reports; the SDK's traceback log would only add noise.
    sdk_log = logging.getLogger("mcp.server.mcpserver.server")
    level, sdk_log.level = sdk_log.level, logging.CRITICAL
    try:
        return await _ask(Client, server, name, calls)
    finally:
        sdk_log.setLevel(level)


async def _ask(Client: Any, server: Any, name: str, calls: list[dict]) -> tuple[dict, list]:
    async with Client(server) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        if name not in tools:
            return tools, []
        return tools, [await client.call_tool(name, arguments) for arguments in calls]


def _text(result: Any) -> str:
    return result.content[0].text if result.content else ""


def _server(obj: Any, name: str) -> Any:
    from mcp.server.mcpserver import MCPServer

    if not isinstance(obj, MCPServer):
        raise NotYet(f"`{name}` should be the MCPServer from the cell (it is a {type(obj).__name__}).")
    return obj


@exercise("l5-constrained-tool", lesson=5, given=GIVEN)
def check_constrained_tool(shipping):
    server = _server(shipping, "shipping")
    good = {"weight_kg": 2, "country": "DE"}
    bad = [({"weight_kg": 0, "country": "DE"}, "a weight of 0"), ({"weight_kg": 31, "country": "DE"}, "31 kg"),
           ({"weight_kg": 2, "country": "Germany"}, "the country 'Germany'"),
           ({"weight_kg": 2, "country": "de"}, "the country 'de' (lower case)")]
    tools, results = run_async(lambda: _tools_and_calls(server, "shipping_cost", [good] + [b for b, _ in bad]))
    if "shipping_cost" not in tools:
        raise NotYet(f"the server has no tool `shipping_cost` yet (it has: {', '.join(tools) or 'none'}). "
                     "Decorate a function with `@shipping.tool()`.")
    tool = tools["shipping_cost"]
    props = tool.input_schema.get("properties", {})
    weight, country = props.get("weight_kg", {}), props.get("country", {})
    if weight.get("exclusiveMinimum") != 0 or weight.get("maximum") != 30:
        raise NotYet("the schema of weight_kg should say exclusiveMinimum 0 and maximum 30: use "
                     f"Annotated[float, Field(gt=0, le=30, ...)]. It says {weight}.")
    if country.get("pattern") != "^[A-Z]{2}$":
        raise NotYet(f"the schema of country should carry the pattern ^[A-Z]{{2}}$. It says {country}.")
    if not (weight.get("description") and country.get("description")):
        raise NotYet("give both parameters a description (Field(description=...)): the model reads it.")
    if len(tool.description or "") < 20:
        raise NotYet("write a docstring for the model: what the tool does and when to use it.")
    answer = results[0]
    if answer.is_error:
        raise NotYet(f"a valid call {good} failed: {_text(answer)}")
    if answer.structured_content is None or "cost_eur" not in answer.structured_content:
        raise NotYet("return a dict with the key cost_eur, e.g. {'country': country, 'cost_eur': ...}, "
                     "and annotate the return type as dict[str, Any].")
    if answer.structured_content["cost_eur"] != 6.9:
        raise NotYet(f"2 kg should cost 4.90 + 2 x 1.00 = 6.90 EUR, your tool says "
                     f"{answer.structured_content['cost_eur']}.")
    for result, (_, what) in zip(results[1:], bad):
        if not result.is_error:
            raise NotYet(f"{what} was accepted. The constraint belongs in the signature, so the SDK rejects "
                         "the call before your function runs.")
    return "The schema carries the limits, and the SDK enforces them before your code runs."


@exercise("l5-advice", lesson=5, given=GIVEN)
def check_advice(carriers):
    server = _server(carriers, "carriers")
    calls = [{"number": "DHL123"}, {"number": "XYZ999"}]
    tools, results = run_async(lambda: _tools_and_calls(server, "track", calls))
    if "track" not in tools:
        raise NotYet("the server has no tool `track`: keep the `@carriers.tool()` function from the cell.")
    known, unknown = results
    if known.is_error:
        raise NotYet(f"tracking DHL123 should still work, it gives: {_text(known)}")
    message = _text(unknown)
    if not unknown.is_error:
        raise NotYet(f"an unknown number should be an error result (is_error), not {message!r}.")
    if message.strip() == "Error executing tool track":
        raise NotYet("the model still reads only 'Error executing tool track': an ordinary exception "
                     "(here a KeyError) hides its message. Raise ToolError('...') instead.")
    if "XYZ999" not in message:
        raise NotYet(f"say which number was not found (XYZ999), so the model can tell the user. It says {message!r}.")
    if not any(word in message.lower() for word in ("ask", "check", "use", "try", "tell")):
        raise NotYet(f"{message!r} says what went wrong but not what to do next: add advice, e.g. "
                     "'ask the customer to check the number'.")
    return "The model now reads what went wrong and what to do next."
