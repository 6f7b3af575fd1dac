"""The check of `l9-structured-result`: a result checked against its own outputSchema before the model sees it."""

from __future__ import annotations

import json

from course.exercises import NotYet, exercise
from course.exercises.lesson9.cases import word
from course.exercises.lesson9.given import GIVEN
from course.exercises.seeds import draws


def stock_schema() -> dict:
    return {"type": "object", "title": "StockLevel", "required": ["sku", "on_hand", "warehouse"],
            "properties": {"sku": {"type": "string"}, "on_hand": {"type": "integer", "minimum": 0},
                           "warehouse": {"type": "string", "enum": ["north", "south"]}}}


def holds(reply: str, data: dict) -> bool:
    """Whether the reply carries `data` as JSON starting on a line of its own (compact or indented, before or
    after the text)."""
    starts = [0] + [i + 1 for i, c in enumerate(reply) if c == "\n"]
    for at in starts:
        try:
            found, _ = json.JSONDecoder().raw_decode(reply, at + len(reply[at:]) - len(reply[at:].lstrip(" ")))
        except ValueError:
            continue
        if found == data:
            return True
    return False


@exercise("l9-structured-result", lesson=9, given=GIVEN)
def check_structured_result(for_model):
    rng = draws()
    tool, schema = word(rng), stock_schema()
    good = {"sku": f"{word(rng, 4).upper()}-{rng.randrange(1, 9)}", "on_hand": rng.randrange(0, 40),
            "warehouse": rng.choice(["north", "south"])}
    text = f"{good['sku']}: {good['on_hand']} on hand"
    reply = for_model(tool, schema, good, text)
    if type(reply) is not str or not holds(reply, good):
        raise NotYet(f"for a result that fits its schema, for_model returned {reply!r}.",
                     "give the model the structure as JSON (json.dumps(structured)), with the text beside it if "
                     "you like.")
    if for_model(tool, None, None, text) != text:
        raise NotYet("for a tool with no outputSchema, return the text as it is.",
                     "there is no structure to check.")
    broken = [({**good, "on_hand": str(good["on_hand"])}, "on_hand as a string"),
              ({**good, "on_hand": -3}, "on_hand below its minimum"),
              ({k: v for k, v in good.items() if k != "warehouse"}, "the required warehouse missing"),
              ({**good, "warehouse": "east"}, "a warehouse outside the enum"),
              (None, "no structuredContent at all")]
    for data, case in broken:
        try:
            got = for_model(tool, schema, data, text)
        except ValueError as e:
            if tool not in str(e):
                raise NotYet(f"for {case}, the error says {str(e)!r}.",
                             f"name the tool ({tool!r}) so the human knows which server to look at.") from None
            continue
        raise NotYet(f"for a result with {case}, for_model returned {got!r}; the result breaks the tool's own "
                     "schema.",
                     "raise ValueError (e.g. BrokenResult) naming the tool. jsonschema.validate checks types, "
                     "minimum, required and enum for you.")
    return "A result that breaks its schema is refused, naming the tool; a good one reaches the model as JSON."
