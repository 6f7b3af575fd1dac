"""Checks for lesson 5's exercises (notebooks/05_mcp_server.ipynb), in the order the lesson builds things.

Each check talks to the learner's server in memory through the SDK's `Client`, exactly as the
notebook does, on an event loop of its own in a worker thread (the notebook's loop is busy running
the check cell). Beside the example the task shows, every check tries cases the learner has not
seen (random weights, countries, tracking numbers, budgets), so only a general solution passes;
hints name the mistake, never a hidden input. The budget exercise's check is in `lesson5_budget`.
"""

from __future__ import annotations

import random
import re
from typing import Any

from course.exercises import NotYet, exercise, run_async

# The imports the notebook has run by each exercise cell (tests/test_exercises_l5.py checks that), so a
# learner's cell that leans on them is graded as it ran. The first two exercises come before ToolError.
TOOL_GIVEN = """
from typing import Annotated, Any
from pydantic import Field
from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations
"""
GIVEN = TOOL_GIVEN + "from mcp.server.mcpserver.exceptions import ToolError\n"

PROTOCOL_ERROR = ("MCPError is a protocol error: the client raises it and the model gets no result. "
                  "Raise ToolError('...') instead.")
# Advice is something to do next: an instruction, a request or a suggestion.
ADVICE = re.compile(r"\b(ask|check|double-check|confirm|verify|use|try|retry|tell|call|contact|look|search|"
                    r"list|pick|choose|enter|re-enter|send|provide|request|correct|make sure|please|instead|"
                    r"should|suggest|recommend|wait|stop|answer)\b", re.IGNORECASE)


async def in_memory(server: Any, talk: Any) -> Any:
    """`await talk(client)` with a `Client` on `server`, the SDK's traceback log silenced."""
    import logging

    from mcp import Client

    # A crash in the learner's tool is what the check reports; the SDK's traceback log would only add noise.
    sdk_log = logging.getLogger("mcp.server.mcpserver.server")
    level = sdk_log.level
    sdk_log.setLevel(logging.CRITICAL)  # setLevel, not .level =: it also clears the logger's cache
    try:
        async with Client(server) as client:
            return await talk(client)
    finally:
        sdk_log.setLevel(level)


async def call(client: Any, name: str, arguments: dict) -> Any:
    """The tool's result, or the MCPError a protocol error raises in the client."""
    from mcp import MCPError

    try:
        return await client.call_tool(name, arguments)
    except MCPError as e:  # a protocol error: the client raises, the model would get nothing
        return e


def tools_and_calls(server: Any, name: str, calls: list[dict]) -> tuple[dict, list]:
    """{name: Tool} of the server, and the results of `calls` to tool `name` (none if it is missing)."""

    async def talk(client: Any) -> tuple[dict, list]:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        return tools, [await call(client, name, arguments) for arguments in calls] if name in tools else []

    return run_async(lambda: in_memory(server, talk))


def text(result: Any) -> str:
    return result.content[0].text if getattr(result, "content", None) else ""


def mcp_server(obj: Any, name: str) -> Any:
    from mcp.server.mcpserver import MCPServer

    if not isinstance(obj, MCPServer):
        raise NotYet(f"`{name}` should be the MCPServer from the cell (it is a {type(obj).__name__}).")
    return obj


def require_tool(tools: dict, name: str, server: str) -> Any:
    if name not in tools:
        raise NotYet(f"the server has no tool `{name}` yet (it has: {', '.join(tools) or 'none'}). "
                     f"Decorate a function named {name} with `@{server}.tool()`.")
    return tools[name]


def letters(rng: random.Random, n: int = 2) -> str:
    return "".join(rng.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZ") for _ in range(n))


@exercise("l5-constrained-tool", lesson=5, given=TOOL_GIVEN)
def check_constrained_tool(shipping):
    server = mcp_server(shipping, "shipping")
    rng = random.Random()
    example = ({"weight_kg": 2, "country": "DE"}, 6.9)
    # Weights the task never shows: decimals (1.2 kg needs round(): 4.9 + 1.2 = 6.1000000000000005), both ends.
    hidden = [(w, letters(rng)) for w in [1.2, 30, 0.1, round(rng.uniform(2.5, 29.5), 1), rng.randint(3, 29)]]
    good = [example] + [({"weight_kg": w, "country": c}, round(4.9 + w, 2)) for w, c in hidden]
    bad = [({"weight_kg": 0, "country": "DE"}, "a weight of 0"), ({"weight_kg": -1, "country": "DE"}, "a weight of -1"),
           ({"weight_kg": 30.5, "country": "DE"}, "a weight over 30 kg"),
           ({"weight_kg": 2, "country": "Germany"}, "a country name instead of a code"),
           ({"weight_kg": 2, "country": letters(rng).lower()}, "a lower-case country code"),
           ({"weight_kg": 2, "country": letters(rng, 1)}, "a one-letter country code"),
           ({"weight_kg": 2, "country": letters(rng, 3)}, "a three-letter country code"),
           ({"weight_kg": 2, "country": letters(rng, 1) + "1"}, "a country code with a digit")]
    tools, results = tools_and_calls(server, "shipping_cost", [a for a, _ in good + bad])
    tool = require_tool(tools, "shipping_cost", "shipping")
    props = tool.input_schema.get("properties", {})
    weight, country = props.get("weight_kg", {}), props.get("country", {})
    if weight.get("type") != "number":
        raise NotYet(f"weight_kg should be a number with decimals (1.2 kg is a valid weight): annotate it as "
                     f"float, not int. The schema says {weight}.")
    if weight.get("minimum") == 0:
        raise NotYet("the schema lets through a weight of 0 kg (minimum 0): 'more than 0' is gt=0, not ge=0.")
    if weight.get("exclusiveMinimum") != 0 or weight.get("maximum") != 30:
        raise NotYet("the schema of weight_kg should say exclusiveMinimum 0 and maximum 30 ('at most 30' includes "
                     f"30): use Annotated[float, Field(gt=0, le=30, ...)]. It says {weight}.")
    if not country.get("pattern"):
        raise NotYet(f"the schema of country should carry a pattern, so the model sees the rule: use "
                     f"Field(pattern=r'^[A-Z]{{2}}$', ...). It says {country}.")
    if not (weight.get("description") and country.get("description")):
        raise NotYet("give both parameters a description (Field(description=...)): the model reads it.")
    if len(tool.description or "") < 20:
        raise NotYet("write a docstring for the model: what the tool does and when to use it.")
    hints = tool.annotations
    if hints is None or hints.read_only_hint is not True:
        raise NotYet("shipping_cost only computes a price, it changes nothing: tell hosts so with "
                     "@shipping.tool(annotations=ToolAnnotations(read_only_hint=True)) (from mcp.types), "
                     "so they can call it without asking the user.")
    for index, (result, (arguments, cost)) in enumerate(zip(results[:len(good)], good, strict=True)):
        which = "the example (2 kg to DE)" if index == 0 else "a weight you have not seen (not the example's)"
        if isinstance(result, Exception):
            raise NotYet(f"a valid call for {which} raised {type(result).__name__}. {PROTOCOL_ERROR}")
        if result.is_error:
            raise NotYet(f"a valid call for {which} failed: {text(result)[:200]}")
        said = (result.structured_content or {}).get("cost_eur")
        if said is None:
            raise NotYet("return a dict with the key cost_eur, e.g. {'country': country, 'cost_eur': ...}, "
                         "and annotate the return type as dict[str, Any].")
        if said != cost:
            rounding = (" Round to cents: round(..., 2)." if isinstance(said, float) and abs(said - cost) < 0.005
                        else " Compute it from weight_kg: 4.90 + 1.00 x weight_kg.")
            raise NotYet(f"the cost for {which} is wrong ({said}).{rounding}")
        if result.structured_content.get("country") != arguments["country"]:
            raise NotYet("the answer should repeat the country it was asked for: {'country': country, ...}.")
    for result, (_, what) in zip(results[len(good):], bad, strict=True):
        if isinstance(result, Exception) or not result.is_error:
            raise NotYet(f"{what} was accepted. The rule belongs in the signature, so the SDK rejects the call "
                         "before your function runs. A pattern matches anywhere in the text unless anchored: "
                         "use ^...$ (exactly ^[A-Z]{2}$).")
        if "validation error" not in text(result):
            raise NotYet(f"{what} was refused by your code, not by the schema: put the rule in the signature "
                         "(Field(gt=..., le=..., pattern=...)) so the model sees it before calling.")
    return "The schema carries the limits, the SDK enforces them, and hosts know the tool only reads."


def _hints(tools: dict, name: str) -> tuple[Any, Any]:
    hints = tools[name].annotations
    return (hints.read_only_hint, hints.destructive_hint) if hints else (None, None)


@exercise("l5-annotations", lesson=5, given=TOOL_GIVEN)
def check_annotations(parcels, PARCELS):
    server = mcp_server(parcels, "parcels")
    rng = random.Random()
    number = f"P{rng.randint(2000, 9999)}"  # a parcel the cell does not list: the tools must still work on it
    PARCELS[number] = {"status": "packed", "notes": []}
    try:
        tools, results = tools_and_calls(server, "add_delivery_note",
                                         [{"number": number, "note": "Leave it with the neighbour."}])
    finally:
        added = PARCELS.pop(number, None)
    for name in ("parcel_status", "add_delivery_note", "cancel_parcel"):
        require_tool(tools, name, "parcels")
    if not results or getattr(results[0], "is_error", True) or not added or not added["notes"]:
        raise NotYet("add_delivery_note no longer adds the note: change only the decorators, keep the functions.")
    read_only, destructive = _hints(tools, "parcel_status")
    if read_only is not True:
        raise NotYet("parcel_status only reads: say read_only_hint=True, so a host can call it without asking.")
    if destructive is True:
        raise NotYet("parcel_status only reads, so it cannot be destructive: drop destructive_hint=True.")
    read_only, destructive = _hints(tools, "add_delivery_note")
    if read_only is True:
        raise NotYet("add_delivery_note changes a parcel (it adds a note), yet it says read_only_hint=True: a host "
                     "would let the model write without asking. Say read_only_hint=False.")
    if destructive is not False:
        raise NotYet("add_delivery_note only adds, it destroys and overwrites nothing: say destructive_hint=False"
                     + (" (without it, MCP assumes a writing tool may be destructive)." if destructive is None
                        else "."))
    read_only, destructive = _hints(tools, "cancel_parcel")
    if read_only is True:
        raise NotYet("cancel_parcel changes a parcel for good, yet it says read_only_hint=True: a host would let "
                     "the model cancel parcels without asking. Say read_only_hint=False.")
    if destructive is False:
        raise NotYet("cancel_parcel cannot be undone: it is destructive. Say destructive_hint=True, so a host "
                     "asks before every call.")
    return "A host can now call parcel_status freely and knows which writing tool can do harm."


@exercise("l5-advice", lesson=5, given=GIVEN)
def check_advice(carriers, TRACKING):
    server = mcp_server(carriers, "carriers")
    rng = random.Random()
    # Beside the cell's numbers, one the cell does not list (the check adds it) and unknown ones of its shape.
    extra = {f"{letters(rng, 3)}{rng.randint(100, 999)}": rng.choice(["out for delivery", "at the depot"])}
    unknown = ["XYZ999", f"{letters(rng, 3)}{rng.randint(1000, 9999)}", f"{letters(rng, 2)}{rng.randint(10, 99)}"]
    known = {**TRACKING, **extra}
    TRACKING.update(extra)
    try:
        tools, results = tools_and_calls(server, "track", [{"number": n} for n in [*known, *unknown]])
    finally:
        for number in extra:
            TRACKING.pop(number, None)
    require_tool(tools, "track", "carriers")
    for (number, status), result in zip(known.items(), results[:len(known)], strict=True):
        which = number if number not in extra else "a number that is in TRACKING but not in the example"
        if isinstance(result, Exception):
            raise NotYet(f"tracking {which} raised {type(result).__name__}: {result}. {PROTOCOL_ERROR}")
        if result.is_error or status not in text(result):
            raise NotYet(f"tracking {which} should still work and give its status; it gives: {text(result)[:200]}. "
                         "Look the number up in TRACKING rather than listing numbers.")
    for number, result in zip(unknown, results[len(known):], strict=True):
        which = number if number == "XYZ999" else "an unknown number other than XYZ999"
        if isinstance(result, Exception):
            raise NotYet(PROTOCOL_ERROR)
        message = text(result)
        if not result.is_error:
            raise NotYet(f"{which} should be an error result (is_error), not {message[:120]!r}: raise ToolError "
                         "rather than returning a value.")
        if message.strip() == "Error executing tool track":
            raise NotYet(f"for {which} the model still reads only 'Error executing tool track'. Only the SDK's "
                         "ToolError (mcp.server.mcpserver.exceptions) shows its message; any other exception, "
                         "lesson 1's course.tools.ToolError included, reaches the model as 'Error executing "
                         "tool track'.")
        if "validation error" in message:
            raise NotYet(f"the schema rejected {which} before your function ran, so the model reads Pydantic's "
                         "message, not your advice. Keep `number: str` and raise ToolError in the function.")
        if number not in message:
            raise NotYet(f"for {which} the message does not name it: put the number the model sent in the "
                         "message (an f-string), so the model can tell the user which one is wrong.")
        if not ADVICE.search(message.removeprefix("Error executing tool track:")):
            raise NotYet(f"{message!r} says what went wrong but not what to do next: add advice, e.g. "
                         "'ask the customer to check the number'.")
    return "The model now reads what went wrong and what to do next."


SNIPPET = 200  # characters of a snippet the model gets


def raw_answer(rng: random.Random, count: int) -> dict:
    """A search answer as the API sends it: more fields than a model needs, in no fixed order."""
    results = []
    for rank in range(1, count + 1):
        words = " ".join(rng.choice(["kettle", "refund", "recall", "limescale", "warranty", "steel"])
                         for _ in range(rng.randint(5, 60)))
        fields = {"rank": rank, "score": round(rng.random(), 3), "title": f"Result {rank}: {words[:30]}",
                  "url": f"https://site{rng.randint(1, 99)}.example.org/{rank}", "snippet": words,
                  "favicon": "https://example.org/favicon.ico", "tracking_id": f"t-{rng.getrandbits(32):x}"}
        results.append(dict(rng.sample(sorted(fields.items()), len(fields))))
    return {"results": results, "credits_remaining": rng.randint(1, 999), "took_ms": rng.randint(5, 90)}


@exercise("l5-trim", lesson=5, given=GIVEN)
def check_trim(trim):
    import copy

    rng = random.Random()
    cases = [(raw_answer(rng, 4), 2), (raw_answer(rng, 3), 3), (raw_answer(rng, 5), 5),
             (raw_answer(rng, rng.randint(6, 12)), rng.randint(1, 5)), (raw_answer(rng, 2), 5),
             (raw_answer(rng, 0), 3)]
    for raw, n in cases:
        before = copy.deepcopy(raw)
        got = trim(raw, n)
        if raw != before:
            raise NotYet("trim changed the API's answer it was given (a pop or del on its dicts): build new dicts, "
                         "e.g. {key: r[key] for key in ...}. The caller may still need the original.")
        expected = [{k: r[k][:SNIPPET] if k == "snippet" else r[k] for k in ("title", "url", "snippet")}
                    for r in raw["results"][:n]]
        if not isinstance(got, dict) or not isinstance(got.get("results"), list):
            raise NotYet(f"trim should return {{'results': [...]}}, not {type(got).__name__} {str(got)[:80]}.")
        results = got["results"]
        if len(results) != len(expected):
            when = "when the API sent fewer than n results" if len(raw["results"]) < n else "for another n"
            raise NotYet(f"{when} trim returned {len(results)} results instead of {len(expected)}: keep the "
                         "first n, or all of them when there are fewer (a slice [:n] does both).")
        for mine, right in zip(results, expected, strict=True):
            if not isinstance(mine, dict) or set(mine) != {"title", "url", "snippet"}:
                raise NotYet(f"each result should keep exactly title, url and snippet; one has "
                             f"{sorted(mine) if isinstance(mine, dict) else mine!r}.")
            if mine["snippet"] != right["snippet"]:
                raise NotYet(f"a snippet should be at most {SNIPPET} characters, cut from the start "
                             f"(snippet[:{SNIPPET}]); one has {len(mine['snippet'])} characters or other text.")
            if mine != right:
                raise NotYet("a result's title or url differs from the API's: copy them unchanged.")
        if set(got) != {"results"}:
            raise NotYet(f"the answer should hold only 'results'; it also has {sorted(set(got) - {'results'})}.")
    return "The model gets title, url and a short snippet: fewer tokens, less to get confused by."
