"""The checks of `l1-tool-definition` and `l1-refund-params`: what the model is told about a tool."""


from __future__ import annotations

import json

from course.backend import MODEL
from course.exercises import NotYet, exercise
from course.exercises.lesson1.cases import WORDS, argument_model, schema_accepts, tool_name
from course.exercises.lesson1.given import GIVEN_DEFINITION, GIVEN_PARAMS
from course.exercises.seeds import draws


# -- l1-tool-definition -------------------------------------------------------------------------
@exercise("l1-tool-definition", lesson=1, given=GIVEN_DEFINITION)
def check_tool_definition(tool_definition):
    from pydantic import Field

    from course.orders import OrderLookup
    from course.scripted import ScriptedModel

    rng = draws()
    cases = [("get_order_status", "Look up one order by its number.", OrderLookup)]
    for _ in range(3):
        field = rng.choice(WORDS)
        params = argument_model({field: (str, Field(description=f"The {field}"))}, f"{field.title()}Query")
        cases.append((tool_name(rng), f"Find a {field} for the customer ({rng.randint(1, 999)}).", params))
    for name, description, params in cases:
        d = tool_definition(name, description, params)
        if isinstance(d, dict) and "name" in d and "function" not in d:
            raise NotYet("your definition is in the Responses API's flat format.",
                         'Chat Completions nests name, description and parameters under "function": {"type": '
                         '"function", "function": {...}}.')
        fn = d.get("function") if isinstance(d, dict) else None
        if not isinstance(fn, dict) or d.get("type") != "function":
            raise NotYet(f'the definition should be a dict {{"type": "function", "function": {{...}}}}; got '
                         f'{d!r:.120}.',
                         'build the outer dict with "type" and "function" keys, and put name, description and '
                         'parameters inside "function" (the Chat Completions format lesson 1 shows).')
        if fn.get("parameters") is params:
            raise NotYet('"parameters" is the Pydantic class itself; the API wants its JSON schema.',
                         "params.model_json_schema().")
        for key, want in [("name", name), ("description", description)]:
            if fn.get(key) != want:
                raise NotYet(f"the {key} in the definition is not the `{key}` argument (for a tool the check made "
                             f"up, it is {fn.get(key)!r:.80}).",
                             "Use the argument as it is.")
        if fn.get("parameters") != params.model_json_schema():
            raise NotYet("\"parameters\" is not the model's JSON schema (it differs from params.model_json_schema()).",
                         "pass the schema Pydantic writes for the params class, unchanged: no keys added, removed or "
                         "rewritten.")
    tools = [tool_definition(*case) for case in cases]
    ScriptedModel(["ok"]).client(max_retries=0).chat.completions.create(
        model=MODEL, messages=[{"role": "user", "content": "hi"}], tools=tools)
    return "Four definitions, and the API accepts them."


# -- l1-refund-params ---------------------------------------------------------------------------
@exercise("l1-refund-params", lesson=1, given=GIVEN_PARAMS)
def check_refund_params(RefundRequest, request_refund):
    from pydantic import BaseModel, ValidationError

    from course.scripted import ScriptedModel
    from course.tools import Tool, Toolbox

    if not (isinstance(RefundRequest, type) and issubclass(RefundRequest, BaseModel)):
        raise NotYet("RefundRequest must be a Pydantic model.",
                     "`class RefundRequest(BaseModel): ...`.")
    for name in ("order_id", "reason"):
        if name not in RefundRequest.model_fields:
            raise NotYet(f"RefundRequest has no field `{name}` yet.",
                         "declare it as an annotated class attribute of the model (`name: type = Field(...)`), as "
                         "OrderLookup declares order_id.")
    if not isinstance(request_refund, Tool):
        raise NotYet("request_refund should be a tool.",
                     "put @tool(RefundRequest) on the function, as get_order_status has @tool(OrderLookup, ...).")
    if request_refund.params is not RefundRequest:
        raise NotYet("request_refund's arguments should be RefundRequest.",
                     "@tool(RefundRequest).")
    rng = draws()
    number = f"A{rng.randint(1000, 9999)}"
    reason = rng.choice(["The kettle arrived broken.", "Wrong size", "Ich habe es doppelt bestellt."])
    good = {"order_id": number, "reason": reason}
    bad = [
        ({**good, "order_id": number[1:]}, "an order number without the A", "add `pattern=` as in OrderLookup"),
        ({**good, "order_id": number.lower()}, "an order number with a lower-case a",
         "the pattern should ask for a capital A"),
        ({**good, "order_id": f"x{number}{rng.randint(0, 9)}"}, "an order number with more around it",
         "anchor the pattern with ^ and $"),
        ({**good, "order_id": number[:-1]}, "an order number with 3 digits", "ask for exactly 4 digits: \\d{4}"),
        ({**good, "reason": ""}, "an empty reason", "use Field(min_length=1)"),
        ({"order_id": number}, "a request without a reason", "give `reason` no default"),
        ({**good, "note": "urgent"}, "an argument it does not name", 'refuse extras: ConfigDict(extra="forbid")'),
    ]
    definition = request_refund.definition()
    schema = definition["function"]["parameters"]
    for valid in (good, {"order_id": f"A{rng.randint(0, 999):04d}", "reason": rng.choice("xy?")}):
        try:
            RefundRequest.model_validate(valid)
        except ValidationError as e:
            raise NotYet(f"a valid request was refused ({e.errors()[0]['msg']}).",
                         "an A with any four digits and any reason that is not empty, even one character, must "
                         "pass.") from None
        if not schema_accepts(schema, valid):
            raise NotYet("the schema the model sees refuses a valid request (an A with four digits and a reason "
                         "that is not empty).",
                         "loosen its constraints.")
    for arguments, what, how in bad:
        try:
            RefundRequest.model_validate(arguments)
            refused = False
        except ValidationError:
            refused = True
        if not refused:
            raise NotYet(f"RefundRequest accepts {what}.",
                         f"{how}.")
        if schema_accepts(schema, arguments):
            raise NotYet(f"RefundRequest refuses {what}, but only in Python.",
                         "the JSON schema the model sees allows it, so the model cannot know the rule. Put the "
                         f"rule in the field itself ({how}), not in a validator.")
    description = request_refund.description
    if not isinstance(description, str) or len(description) < 20:
        raise NotYet("give request_refund a docstring that tells the model when to use it (20+ characters).",
                     "it becomes the tool's description.")
    ScriptedModel(["ok"]).client(max_retries=0).chat.completions.create(
        model=MODEL, messages=[{"role": "user", "content": "hi"}], tools=[definition])
    reply = Toolbox(request_refund).execute("request_refund", json.dumps(good))
    if reply.startswith("Error:") or number not in reply:
        raise NotYet("called with a valid request, request_refund should return a text that names the order (got "
                     f"{reply!r:.120}).",
                     "the function's argument is a RefundRequest: put its order_id in the text you return, so the "
                     "model can tell the customer which order the refund is for.")
    return "The schema carries the constraints, and the API accepts the definition."
