"""The checks of `l5-advice` and `l5-trim`: what the model reads back from a tool (an error that says what to
do next, a third-party answer cut to what it needs)."""


from __future__ import annotations

from course.exercises import NotYet, exercise
from course.exercises.lesson5.cases import letters, raw_answer
from course.exercises.lesson5.client import ADVICE, PROTOCOL_ERROR, mcp_server, require_tool, text, tools_and_calls
from course.exercises.lesson5.given import GIVEN
from course.exercises.seeds import draws


@exercise("l5-advice", lesson=5, given=GIVEN)
def check_advice(carriers, TRACKING):
    server = mcp_server(carriers, "carriers")
    rng = draws()
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
            raise NotYet(f"tracking {which} raised {type(result).__name__}: {result}.", PROTOCOL_ERROR)
        if result.is_error or status not in text(result):
            raise NotYet(f"tracking {which} should still work and give its status; it gives "
                         f"{text(result)[:200]!r}.",
                         "Look the number up in TRACKING rather than listing numbers.")
    for number, result in zip(unknown, results[len(known):], strict=True):
        which = number if number == "XYZ999" else "an unknown number other than XYZ999"
        if isinstance(result, Exception):
            raise NotYet(f"tracking {which} raised {type(result).__name__}: {result}.", PROTOCOL_ERROR)
        message = text(result)
        if not result.is_error:
            raise NotYet(f"{which} should be an error result (is_error), not {message[:120]!r}.",
                         "raise ToolError rather than returning a value.")
        if message.strip() == "Error executing tool track":
            raise NotYet(f"for {which} the model still reads only 'Error executing tool track'.",
                         "Only the SDK's ToolError (mcp.server.mcpserver.exceptions) shows its message; any "
                         "other exception, lesson 1's course.tools.ToolFailure included, reaches the model as "
                         "'Error executing tool track'.")
        if "validation error" in message:
            raise NotYet(f"the schema rejected {which} before your function ran, so the model reads Pydantic's "
                         "message, not your advice.",
                         "Keep `number: str` and raise ToolError in the function.")
        if number not in message:
            raise NotYet(f"for {which} the message does not name it.",
                         "put the number the model sent in the message (an f-string), so the model can tell the "
                         "user which one is wrong.")
        if not ADVICE.search(message.removeprefix("Error executing tool track:")):
            raise NotYet(f"{message!r} says what went wrong but not what to do next.",
                         "add advice, e.g. 'ask the customer to check the number'.")
    return "The model now reads what went wrong and what to do next."


SNIPPET = 200  # characters of a snippet the model gets


@exercise("l5-trim", lesson=5, given=GIVEN)
def check_trim(trim):
    import copy

    rng = draws()
    cases = [(raw_answer(rng, 4), 2), (raw_answer(rng, 3), 3), (raw_answer(rng, 5), 5),
             (raw_answer(rng, rng.randint(6, 12)), rng.randint(1, 5)), (raw_answer(rng, 2), 5),
             (raw_answer(rng, 0), 3)]
    for raw, n in cases:
        before = copy.deepcopy(raw)
        got = trim(raw, n)
        if raw != before:
            raise NotYet("trim changed the API's answer it was given (a pop or del on its dicts).",
                         "build new dicts, e.g. {key: r[key] for key in ...}. The caller may still need the "
                         "original.")
        expected = [{k: r[k][:SNIPPET] if k == "snippet" else r[k] for k in ("title", "url", "snippet")}
                    for r in raw["results"][:n]]
        if not isinstance(got, dict) or not isinstance(got.get("results"), list):
            raise NotYet(f"trim should return {{'results': [...]}}, not {type(got).__name__} {str(got)[:80]}.",
                         "build a new dict with one key, 'results', whose value is the list of trimmed results.")
        results = got["results"]
        if len(results) != len(expected):
            when = "when the API sent fewer than n results" if len(raw["results"]) < n else "for another n"
            raise NotYet(f"{when} trim returned {len(results)} results instead of {len(expected)}.",
                         "keep the first n, or all of them when there are fewer (a slice [:n] does both).")
        for mine, right in zip(results, expected, strict=True):
            if not isinstance(mine, dict) or set(mine) != {"title", "url", "snippet"}:
                raise NotYet("each result should keep exactly title, url and snippet; one has "
                             f"{sorted(mine) if isinstance(mine, dict) else mine!r}.",
                             "make a new dict per result with only those three keys, read from the API's result.")
            if mine["snippet"] != right["snippet"]:
                raise NotYet(f"a snippet should be at most {SNIPPET} characters, cut from the start "
                             f"(snippet[:{SNIPPET}]): expected {right['snippet']!r:.60}…, got "
                             f"{mine['snippet']!r:.60}… ({len(mine['snippet'])} characters).",
                             "cut the API's snippet from its start and keep it as it is otherwise (no strip, no '...' "
                             "added).")
            if mine != right:
                raise NotYet("a result's title or url differs from the API's.",
                             "copy them unchanged.")
        if set(got) != {"results"}:
            raise NotYet(f"the answer should hold only 'results'; it also has {sorted(set(got) - {'results'})}.",
                         "build the answer from nothing, {'results': [...]}, instead of copying the API's dict and "
                         "changing it.")
    return "The model gets title, url and a short snippet: fewer tokens, less to get confused by."
