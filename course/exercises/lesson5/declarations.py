"""The checks of `l5-constrained-tool` and `l5-annotations`: what a tool declares to hosts and models (its
schema's limits, its read-only and destructive hints)."""


from __future__ import annotations

from typing import Any

from course.exercises import NotYet, exercise
from course.exercises.lesson5.cases import letters
from course.exercises.lesson5.client import PROTOCOL_ERROR, mcp_server, require_tool, text, tools_and_calls
from course.exercises.lesson5.given import TOOL_GIVEN
from course.exercises.seeds import draws


@exercise("l5-constrained-tool", lesson=5, given=TOOL_GIVEN)
def check_constrained_tool(shipping):
    server = mcp_server(shipping, "shipping")
    rng = draws()
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
        raise NotYet("weight_kg should be a number with decimals (1.2 kg is a valid weight).",
                     f"annotate it as float, not int. The schema says {weight}.")
    if weight.get("minimum") == 0:
        raise NotYet("the schema lets through a weight of 0 kg (minimum 0).",
                     "'more than 0' is gt=0, not ge=0.")
    if weight.get("exclusiveMinimum") != 0 or weight.get("maximum") != 30:
        raise NotYet("the schema of weight_kg should say exclusiveMinimum 0 and maximum 30 ('at most 30' "
                     "includes 30).",
                     f"use Annotated[float, Field(gt=0, le=30, ...)]. It says {weight}.")
    if not country.get("pattern"):
        raise NotYet("the schema of country should carry a pattern, so the model sees the rule.",
                     f"use Field(pattern=r'^[A-Z]{{2}}$', ...). It says {country}.")
    if not (weight.get("description") and country.get("description")):
        raise NotYet("give both parameters a description (Field(description=...)).",
                     "the model reads it.")
    if len(tool.description or "") < 20:
        raise NotYet("write a docstring for the model.",
                     "what the tool does and when to use it.")
    hints = tool.annotations
    if hints is None or hints.read_only_hint is not True:
        raise NotYet("shipping_cost only computes a price, it changes nothing.",
                     "tell hosts so with @shipping.tool(annotations=ToolAnnotations(read_only_hint=True)) (from "
                     "mcp.types), so they can call it without asking the user.")
    for index, (result, (arguments, cost)) in enumerate(zip(results[:len(good)], good, strict=True)):
        which = "the example (2 kg to DE)" if index == 0 else "a weight you have not seen (not the example's)"
        if isinstance(result, Exception):
            raise NotYet(f"a valid call for {which} raised {type(result).__name__}.", PROTOCOL_ERROR)
        if result.is_error:
            raise NotYet(f"a valid call for {which} failed.",
                         f"{text(result)[:200]}")
        said = (result.structured_content or {}).get("cost_eur")
        if said is None:
            raise NotYet("a valid call returned no cost_eur (its structured content is "
                         f"{result.structured_content!r:.120}).",
                         "return a dict with the key cost_eur, e.g. {'country': country, 'cost_eur': ...}, and "
                         "annotate the return type as dict[str, Any], so the SDK sends it as structured content.")
        if said != cost:
            rounding = ("Round to cents: round(..., 2)." if isinstance(said, float) and abs(said - cost) < 0.005
                        else "Compute it from weight_kg: 4.90 + 1.00 x weight_kg.")
            raise NotYet(f"the cost for {which} is wrong ({said}).", rounding)
        if result.structured_content.get("country") != arguments["country"]:
            raise NotYet("the answer should repeat the country it was asked for.",
                         "{'country': country, ...}.")
    for result, (_, what) in zip(results[len(good):], bad, strict=True):
        if isinstance(result, Exception) or not result.is_error:
            raise NotYet(f"{what} was accepted.",
                         "The rule belongs in the signature, so the SDK rejects the call before your function "
                         "runs. A pattern matches anywhere in the text unless anchored: use ^...$ (exactly "
                         "^[A-Z]{2}$).")
        if "validation error" not in text(result):
            raise NotYet(f"{what} was refused by your code, not by the schema.",
                         "put the rule in the signature (Field(gt=..., le=..., pattern=...)) so the model sees "
                         "it before calling.")
    return "The schema carries the limits, the SDK enforces them, and hosts know the tool only reads."


def _hints(tools: dict, name: str) -> tuple[Any, Any]:
    hints = tools[name].annotations
    return (hints.read_only_hint, hints.destructive_hint) if hints else (None, None)


@exercise("l5-annotations", lesson=5, given=TOOL_GIVEN)
def check_annotations(parcels, PARCELS):
    server = mcp_server(parcels, "parcels")
    rng = draws()
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
        raise NotYet("add_delivery_note no longer adds the note.",
                     "change only the decorators, keep the functions.")
    read_only, destructive = _hints(tools, "parcel_status")
    if read_only is not True:
        raise NotYet("parcel_status only reads.",
                     "say read_only_hint=True, so a host can call it without asking.")
    if destructive is True:
        raise NotYet("parcel_status only reads, so it cannot be destructive.",
                     "drop destructive_hint=True.")
    read_only, destructive = _hints(tools, "add_delivery_note")
    if read_only is True:
        raise NotYet("add_delivery_note changes a parcel (it adds a note), yet it says read_only_hint=True.",
                     "a host would let the model write without asking. Say read_only_hint=False.")
    if destructive is not False:
        raise NotYet("add_delivery_note only adds, it destroys and overwrites nothing"
                     + (" (without it, MCP assumes a writing tool may be destructive)." if destructive is None
                        else "."),
                     "say destructive_hint=False in its ToolAnnotations.")
    read_only, destructive = _hints(tools, "cancel_parcel")
    if read_only is True:
        raise NotYet("cancel_parcel changes a parcel for good, yet it says read_only_hint=True.",
                     "a host would let the model cancel parcels without asking. Say read_only_hint=False.")
    if destructive is False:
        raise NotYet("cancel_parcel cannot be undone.",
                     "it is destructive. Say destructive_hint=True, so a host asks before every call.")
    return "A host can now call parcel_status freely and knows which writing tool can do harm."
