"""The check of `l1-bad-calls`: every way a model's call can be wrong comes back as advice, never a crash."""


from __future__ import annotations

import json
import re

from course.exercises import NotYet, exercise
from course.exercises.lesson1.cases import shop_tools
from course.exercises.lesson1.given import GIVEN_BAD_CALLS
from course.exercises.registry import self_contained
from course.exercises.seeds import draws


@exercise("l1-bad-calls", lesson=1, given=GIVEN_BAD_CALLS)
def check_bad_calls(execute):
    rng = draws()
    tools, code, count, empty, advice = shop_tools(rng)
    first, second = tools
    good = {code: "ABC-1", count: rng.randint(1, 9)}

    def reply(name: str, arguments: str, what: str) -> str:
        before = dict(tools)
        try:
            text = execute(tools, name, arguments)
        except NotImplementedError:
            raise
        except Exception as e:  # noqa: BLE001 - a crash is what the hint is about
            self_contained(e)
            raise NotYet(f"for {what}, execute raised {type(e).__name__} instead of answering.",
                         "catch it and return an error text the model can act on.") from None
        if tools != before:
            raise NotYet("execute changed the `tools` it was given.",
                         "only read it: look a tool up by its name and leave the dict as it is (no pop, del or "
                         "assignment into it).")
        if not isinstance(text, str):
            raise NotYet(f"execute must always return text; for {what} it returned a {type(text).__name__}.",
                         "follow the path your code takes for that case to its end: every path should return a str "
                         "(the result, or a text that starts with 'Error:'), none may fall off the end and return "
                         "None.")
        return text

    def error(name: str, arguments: str, what: str, *needed: str, how: str) -> None:
        text = reply(name, arguments, what)
        if not text.startswith("Error:"):
            raise NotYet(f"for {what}, the reply should start with 'Error:' (got {text!r:.80}).",
                         "the model sees from those first words that the call failed: give every failure path a reply "
                         "that begins with 'Error:' and then says what went wrong.")
        missing = [n for n in needed if n.lower() not in text.lower()]
        if missing:
            raise NotYet(f"for {what}, the error does not say enough for the model to fix its call.",
                         f"{how}. Got {text!r:.160}.")

    ok = reply(first, json.dumps(good), "a valid call")
    if ok.startswith("Error") or json.loads(ok) != {**good, "ok": True}:
        raise NotYet("a valid call should return the tool's result as JSON: expected "
                     f"{json.dumps({**good, 'ok': True})!r:.120}, got {ok!r:.120}.",
                     "on a call that is right, validate the arguments with the tool's params, run tool.fn on them and "
                     "send back json.dumps of what it returns; print execute(tools, name, arguments) for a valid call "
                     "of your own to compare.")
    said = reply(second, json.dumps(good), "a valid call")
    if said != f"{good[code]} is on its way.":
        raise NotYet("a tool that returns a string should have that string as its reply, as it is: expected "
                     f"{good[code] + ' is on its way.'!r}, got {said!r:.120}.",
                     "a str result is already text for the model: send it unchanged (json.dumps would add quotes), "
                     "and json.dumps every other result.")
    error(first.replace("_", ""), json.dumps(good), "an unknown tool name", first, second,
          how="name every tool that exists, so the model can pick one")
    error(first, rng.choice([f'{{"{code}": ABC-1}}', f'{{"{code}": "ABC-1"', f"{code}=ABC-1"]), "invalid JSON",
          "JSON", how="say that the arguments are not valid JSON")
    for arguments in ('["ABC-1"]', '"ABC-1"', "null"):
        text = reply(first, arguments, "JSON that is not an object")
        kind = {"[": "a list", '"': "a string", "n": "null"}[arguments[0]]
        if not text.startswith("Error:") or not re.search(r"\bobject\b", text, re.IGNORECASE):
            # Pydantic's own words for it ("a valid dictionary or instance of ...") name a Python type, not
            # what the model should send.
            raise NotYet(f"for arguments that are JSON but not an object ({kind}: {arguments}), the reply should "
                         f"start with 'Error:' and say that one JSON object is needed (got {text!r:.120}).",
                         "check isinstance(raw, dict) after json.loads, before the params model sees it.")
    error(first, json.dumps({code: "abc", count: 0}), "two invalid fields", code, count,
          how="name every field that is wrong, not only the first (error.errors() lists them all)")
    error(first, json.dumps({count: 2}), "a missing field", code, how="name the missing field")
    error(first, json.dumps({**good, "gift_wrap": True}), "an extra field", "gift_wrap", how="name the extra field")
    error(first, json.dumps({**good, code: empty}), "a tool that raises ToolFailure", advice,
          how="pass on the ToolFailure's message: it says what to do next")
    return "Unknown tools, bad JSON, invalid arguments and tool errors all come back as advice."
