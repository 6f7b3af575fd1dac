"""The checks of `l7-read-response` and `l7-error-flag`: what the model said on its way to the loop, and what a
tool returned on its way to the model."""

from __future__ import annotations

from course.adapters import ModelTurn, ToolResult
from course.adapters.responses import read_response as course_read
from course.exercises import NotYet, exercise
from course.exercises.lesson7.cases import KINDS, call_id, mcp_result, responses
from course.exercises.lesson7.given import GIVEN
from course.exercises.registry import self_contained
from course.exercises.seeds import draws


# -- l7-read-response: the Responses API's answer as the loop's ModelTurn --------------------------------------
def judge_turn(got: object, want: ModelTurn, what: str) -> None:
    """What differs between the learner's turn and the right one, the first field that does."""
    if not isinstance(got, ModelTurn):
        raise NotYet(f"for {what}, read_response returned a {type(got).__name__}.",
                     "return ModelTurn(text, calls, stop, usage), the loop's provider-neutral turn.")
    calls = tuple(got.calls) if isinstance(got.calls, list | tuple) else got.calls
    if calls != want.calls:
        ids = [getattr(c, "id", None) for c in calls] if isinstance(calls, tuple) else []
        if ids and ids == [f"fc_{c.id.removeprefix('call_')}" for c in want.calls]:
            raise NotYet(f"for {what}, the calls carry the items' own ids ({ids[0]!r}), not their call_id.",
                         "a function_call item has two ids: `id` (fc_...) names the item, `call_id` (call_...) is "
                         "the one the result must quote. ToolCall(item.call_id, item.name, item.arguments).")
        if isinstance(calls, tuple) and any(isinstance(getattr(c, "arguments", ""), dict) for c in calls):
            raise NotYet(f"for {what}, a call's arguments are a dict.",
                         "keep them as the JSON text the model wrote (item.arguments): ToolCall.parsed() reads "
                         "them, and says None when the model wrote something that is not JSON.")
        raise NotYet(f"for {what}, the calls are {calls!r:.160}, not {want.calls!r:.160}.",
                     "one ToolCall(item.call_id, item.name, item.arguments) per item of type 'function_call' in "
                     "response.output, in order; other items (reasoning, messages) are not calls.")
    if got.text != want.text:
        if want.text is None and got.text == "":
            raise NotYet(f"for {what}, the text is '' where the model wrote none.",
                         "say None when there is no text (response.output_text or None): the loop tells a turn "
                         "with nothing to say by it.")
        raise NotYet(f"for {what}, the text is {got.text!r:.120}, not {want.text!r:.120}.",
                     "the text is every output_text part of every message item, joined (response.output_text "
                     "does it); reasoning items and calls hold none.")
    if got.stop != want.stop:
        raise NotYet(f"for {what}, stop is {got.stop!r}, not {want.stop!r}.",
                     "'length' when response.status is 'incomplete' because of max_output_tokens "
                     "(response.incomplete_details.reason), else 'tool_calls' when there are calls, else 'done'.")
    if got.usage != want.usage:
        raise NotYet(f"for {what}, usage is {got.usage!r}, not {want.usage!r}.",
                     "Usage(response.usage.input_tokens, response.usage.output_tokens); Usage() when "
                     "response.usage is None.")


@exercise("l7-read-response", lesson=7, given=GIVEN)
def check_read_response(read_response):
    rng = draws()
    for what, response in responses(rng):
        try:
            got = read_response(response)
        except NotImplementedError:
            raise
        except Exception as e:  # noqa: BLE001 - a crash on an item of another kind is what the hint is about
            self_contained(e)
            kinds = ", ".join(i.type for i in response.output) or "no items"
            raise NotYet(f"for {what} (output: {kinds}), read_response raised {type(e).__name__} ({e}).",
                         "look at each item's `type` before you read it: only 'message' items have content, only "
                         "'function_call' items have a call_id; a response may have no usage.") from None
        judge_turn(got, course_read(response), what)
    return "A turn from either API now looks the same to the loop."


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
            raise NotYet(f"from_mcp returns a {type(got).__name__}.",
                         "return ToolResult(call_id, text, is_error).")
        if got.call_id != cid:
            raise NotYet("keep the call's id in the ToolResult.",
                         "the adapter quotes it to the model.")
        if got.is_error is not failed:
            raise NotYet("take is_error from the MCP result (result.is_error).",
                         f"it is the server's word on whether the call failed (expected {failed}, got "
                         f"{got.is_error!r}).")
        if got.text.removeprefix("Error: ") != text:
            raise NotYet(f"for a result with {what}, the text should be {text!r:.200}, got {got.text!r:.200}.",
                         "one line per part, joined with newlines: a text part's .text, an embedded text "
                         "resource's text, '[resource link: URI]', '[binary resource URI]', '[image omitted: "
                         "MIME]' (audio likewise).")
    return "the flag and every kind of part now survive any format: ToolResult.for_model() writes the flag in."
