"""The checks of `l7-result-item` and `l7-error-flag`: a tool result on its way to the model."""

from __future__ import annotations

from course.adapters import ToolResult
from course.exercises import NotYet, exercise
from course.exercises.lesson7.cases import KINDS, call_id, mcp_result, sentence
from course.exercises.lesson7.given import GIVEN
from course.exercises.registry import self_contained
from course.exercises.seeds import draws


@exercise("l7-result-item", lesson=7, given=GIVEN)
def check_result_item(result_item):
    rng = draws()
    cases = [ToolResult(call_id(rng), sentence(rng)), ToolResult(call_id(rng), sentence(rng), True),
             ToolResult(call_id(rng), "Error: " + sentence(rng), True)]
    for r in cases:
        got = result_item(r)
        if not isinstance(got, dict):
            raise NotYet(f"result_item returns a {type(got).__name__}: return a dict, the input item.")
        if "tool_call_id" in got or got.get("role") == "tool":
            raise NotYet("that is a Chat Completions tool message; the Responses API wants "
                         "{'type': 'function_call_output', 'call_id': ..., 'output': ...}.")
        if got.get("type") != "function_call_output":
            raise NotYet(f"the item's type must be 'function_call_output' (got {got.get('type')!r}).")
        if got.get("call_id") != r.call_id:
            raise NotYet("quote the call's id as 'call_id' (the result's call_id), so the model can match "
                         f"result to call (expected {r.call_id!r}, got {got.get('call_id')!r}).")
        if not isinstance(got.get("output"), str):
            raise NotYet("'output' must be the result's text (a string).")
        if r.is_error and not got["output"].startswith("Error"):
            raise NotYet("a failed call must reach the model as a failure: the item has no is_error field, so "
                         "the text must start with 'Error' (add 'Error: ' when it does not already).")
        if got["output"] not in (r.text, f"Error: {r.text}") or (not r.is_error and got["output"] != r.text):
            raise NotYet(f"'output' must be the result's text (expected {r.for_model()!r}, got {got['output']!r}).")
        if got["output"].startswith("Error: Error"):
            raise NotYet("this text already starts with 'Error': do not add the prefix twice.")
    return "Chat Completions' tool message and this item carry the same three things under other names."


@exercise("l7-error-flag", lesson=7, given=GIVEN)
def check_error_flag(from_mcp):
    rng = draws()
    mixed = rng.sample(KINDS[1:], 3) + ["text"]
    rng.shuffle(mixed)
    cases = [(False, ["text"] * rng.randint(2, 3), "text parts only"), (True, ["text"], "a failed call"),
             *[(False, ["text", kind], f"a text part and {kind.replace('blob', 'a binary resource')}")
               for kind in KINDS[1:]],
             (rng.random() < 0.5, mixed, "parts of several kinds")]
    for failed, kinds, what in cases:
        cid = call_id(rng)
        result, text = mcp_result(rng, failed, kinds)
        try:
            got = from_mcp(cid, result)
        except NotImplementedError:
            raise
        except Exception as e:  # noqa: BLE001 - a crash on a part of another kind is what the hint is about
            self_contained(e)
            raise NotYet(f"for a result with {what} ({', '.join(type(p).__name__ for p in result.content)}), "
                         f"from_mcp raised {type(e).__name__} ({e}).",
                         "look at each part's class (or its `type`) before you read it: only TextContent has "
                         ".text; give every other kind the line the task names.") from None
        if not isinstance(got, ToolResult):
            raise NotYet(f"from_mcp returns a {type(got).__name__}: return ToolResult(call_id, text, is_error).")
        if got.call_id != cid:
            raise NotYet("keep the call's id in the ToolResult: the adapter quotes it to the model.")
        if got.is_error is not failed:
            raise NotYet("take is_error from the MCP result (result.is_error): it is the server's word on "
                         f"whether the call failed (expected {failed}, got {got.is_error!r}).")
        if got.text.removeprefix("Error: ") != text:
            raise NotYet(f"for a result with {what}, the text should be {text!r:.200}, got {got.text!r:.200}.",
                         "one line per part, joined with newlines: a text part's .text, an embedded text "
                         "resource's text, '[resource link: URI]', '[binary resource URI]', '[image omitted: "
                         "MIME]' (audio likewise).")
    return "the flag and every kind of part now survive any format: ToolResult.for_model() writes the flag in."
