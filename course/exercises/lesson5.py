"""Checks for lesson 5's exercises (notebooks/05_mcp_server.ipynb).

Each check talks to the learner's server in memory through the SDK's `Client`, exactly as
the notebook does, on an event loop of its own in a worker thread (the notebook's loop is busy
running the check cell).
"""

from __future__ import annotations

import re
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
    level = sdk_log.level
    sdk_log.setLevel(logging.CRITICAL)  # setLevel, not .level =: it also clears the logger's cache
    try:
        return await _ask(Client, server, name, calls)
    finally:
        sdk_log.setLevel(level)


async def _ask(Client: Any, server: Any, name: str, calls: list[dict]) -> tuple[dict, list]:
    from mcp import MCPError

    async with Client(server) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        if name not in tools:
            return tools, []
        results = []
        for arguments in calls:
            try:
                results.append(await client.call_tool(name, arguments))
            except MCPError as e:  # a protocol error: the client raises, the model would get nothing
                results.append(e)
        return tools, results


PROTOCOL_ERROR = ("MCPError is a protocol error: the client raises it and the model gets no result. "
                  "Raise ToolError('...') instead.")


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
    # (arguments, expected cost): 1.2 kg needs a float parameter and round() (4.9 + 1.2 = 6.1000000000000005)
    good = [({"weight_kg": 2, "country": "DE"}, 6.9), ({"weight_kg": 1.2, "country": "FR"}, 6.1),
            ({"weight_kg": 30, "country": "AT"}, 34.9)]
    bad = [({"weight_kg": 0, "country": "DE"}, "a weight of 0"), ({"weight_kg": 31, "country": "DE"}, "31 kg"),
           ({"weight_kg": -1, "country": "DE"}, "a weight of -1"),
           ({"weight_kg": 2, "country": "Germany"}, "the country 'Germany'"),
           ({"weight_kg": 2, "country": "de"}, "the country 'de' (lower case)"),
           ({"weight_kg": 2, "country": "D"}, "the country 'D' (one letter)"),
           ({"weight_kg": 2, "country": "DEU"}, "the country 'DEU' (three letters)"),
           ({"weight_kg": 2, "country": "D1"}, "the country 'D1'")]
    calls = [arguments for arguments, _ in good + bad]
    tools, results = run_async(lambda: _tools_and_calls(server, "shipping_cost", calls))
    if "shipping_cost" not in tools:
        raise NotYet(f"the server has no tool `shipping_cost` yet (it has: {', '.join(tools) or 'none'}). "
                     "Decorate a function with `@shipping.tool()`.")
    tool = tools["shipping_cost"]
    props = tool.input_schema.get("properties", {})
    weight, country = props.get("weight_kg", {}), props.get("country", {})
    if weight.get("type") != "number":
        raise NotYet(f"weight_kg should be a number with decimals (1.2 kg is a valid weight): annotate it as "
                     f"float, not int. The schema says {weight}.")
    if weight.get("exclusiveMinimum") != 0 or weight.get("maximum") != 30:
        raise NotYet("the schema of weight_kg should say exclusiveMinimum 0 and maximum 30: use "
                     f"Annotated[float, Field(gt=0, le=30, ...)]. It says {weight}.")
    if not country.get("pattern"):
        raise NotYet(f"the schema of country should carry a pattern, so the model sees the rule: use exactly "
                     f"Field(pattern=r'^[A-Z]{{2}}$', ...). It says {country}.")
    if not (weight.get("description") and country.get("description")):
        raise NotYet("give both parameters a description (Field(description=...)): the model reads it.")
    if len(tool.description or "") < 20:
        raise NotYet("write a docstring for the model: what the tool does and when to use it.")
    for result, (arguments, cost) in zip(results, good):
        if isinstance(result, Exception):
            raise NotYet(f"a valid call {arguments} raised {type(result).__name__}: {result}. {PROTOCOL_ERROR}")
        if result.is_error:
            raise NotYet(f"a valid call {arguments} failed: {_text(result)}")
        if result.structured_content is None or "cost_eur" not in result.structured_content:
            raise NotYet("return a dict with the key cost_eur, e.g. {'country': country, 'cost_eur': ...}, "
                         "and annotate the return type as dict[str, Any].")
        said = result.structured_content["cost_eur"]
        if said != cost:
            rounding = (" Round to cents: round(..., 2)." if isinstance(said, float) and abs(said - cost) < 0.005
                        else "")
            raise NotYet(f"{arguments['weight_kg']} kg should cost 4.90 + {arguments['weight_kg']} x 1.00 = "
                         f"{cost:.2f} EUR, your tool says {said}.{rounding}")
    for result, (_, what) in zip(results[len(good):], bad):
        if isinstance(result, Exception) or not result.is_error:
            raise NotYet(f"{what} was accepted. The constraint belongs in the signature, so the SDK rejects "
                         "the call before your function runs (for the country use exactly ^[A-Z]{2}$).")
        if "validation error" not in _text(result):
            raise NotYet(f"{what} was refused by your code, not by the schema: put the rule in the signature "
                         "(Field(gt=..., le=..., pattern=...)) so the model sees it before calling.")
    return "The schema carries the limits, and the SDK enforces them before your code runs."


ADVICE = re.compile(r"\b(ask|check|use|try|tell|verify)\b", re.IGNORECASE)


@exercise("l5-advice", lesson=5, given=GIVEN)
def check_advice(carriers):
    server = _server(carriers, "carriers")
    known, unknown = {"DHL123": "in transit", "DPD456": "delivered"}, ["XYZ999", "GLS4711"]
    calls = [{"number": number} for number in [*known, *unknown]]
    tools, results = run_async(lambda: _tools_and_calls(server, "track", calls))
    if "track" not in tools:
        raise NotYet("the server has no tool `track`: keep the `@carriers.tool()` function from the cell.")
    for (number, status), result in zip(known.items(), results):
        if isinstance(result, Exception):
            raise NotYet(f"tracking {number} raised {type(result).__name__}: {result}. {PROTOCOL_ERROR}")
        if result.is_error or status not in _text(result):
            raise NotYet(f"tracking {number} should still work and say {status!r}; it gives: {_text(result)}")
    for number, result in zip(unknown, results[len(known):]):
        if isinstance(result, Exception):
            raise NotYet(PROTOCOL_ERROR)
        message = _text(result)
        if not result.is_error:
            raise NotYet(f"an unknown number ({number}) should be an error result (is_error), not {message!r}: "
                         "raise ToolError rather than returning a value.")
        if message.strip() == "Error executing tool track":
            raise NotYet(f"for {number} the model still reads only 'Error executing tool track'. Only the SDK's "
                         "ToolError (mcp.server.mcpserver.exceptions) shows its message; any other exception, "
                         "lesson 1's course.tools.ToolError included, reaches the model as 'Error executing "
                         "tool track'.")
        if "validation error" in message:
            raise NotYet(f"the schema rejected {number} before your function ran, so the model reads Pydantic's "
                         "message, not your advice. Keep `number: str` and raise ToolError in the function.")
        if number not in message:
            raise NotYet(f"say which number was not found ({number}), so the model can tell the user. "
                         f"It says {message!r}.")
        if not ADVICE.search(message):
            raise NotYet(f"{message!r} says what went wrong but not what to do next: add advice, e.g. "
                         "'ask the customer to check the number'.")
    return "The model now reads what went wrong and what to do next."
