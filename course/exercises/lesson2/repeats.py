"""The checks of `l2-repeat-key` and `l2-skip-repeats`: a call the run has made before is not run again."""


from __future__ import annotations

import json

from course.backend import MODEL
from course.exercises import NotYet, exercise
from course.exercises.lesson2.cases import Recorder, calls_for, email_variants, made_up_tools
from course.exercises.lesson2.given import GIVEN_KEY, GIVEN_SKIP
from course.exercises.seeds import draws


# -- l2-repeat-key ------------------------------------------------------------------------------
@exercise("l2-repeat-key", lesson=2, given=GIVEN_KEY)
def check_repeat_key(repeat_key):
    from course.agent import Limits, run_agent
    from course.orders import shop_toolbox
    from course.scripted import ScriptedModel, raw_call

    rng = draws()

    def key(name: str, arguments: str):
        """repeat_key(name, arguments), checked the way the loop needs it: no crash, hashable."""
        try:
            k = repeat_key(name, arguments)
        except json.JSONDecodeError:
            raise NotYet("arguments that are not valid JSON must not crash the loop.",
                         "catch json.JSONDecodeError and use the text as it is.") from None
        except (AttributeError, TypeError, KeyError) as e:
            raise NotYet("for arguments that are valid JSON but not an object (a list, a text, a number or "
                         f"null), repeat_key raised {type(e).__name__}: {e}.",
                         "the model can send any JSON: normalise whatever json.loads returns, not only "
                         "dicts.") from None
        try:
            hash(k)
        except TypeError:
            raise NotYet("the key must be hashable (the loop keeps keys in a set), but it is a "
                         f"{type(k).__name__} containing something that is not.",
                         "Use a tuple of strings or a string (json.dumps), not a dict or a list, also for nested "
                         "values.") from None
        return k

    def alike(a: tuple[str, str], b: tuple[str, str], why: str) -> None:
        if key(*a) != key(*b):
            raise NotYet(f"two calls should count as repeats ({why}), but their keys differ: {key(*a)!r:.80} and "
                         f"{key(*b)!r:.80}.",
                         "print repeat_key for both calls and find where the keys differ; make your key ignore that "
                         "difference.")

    def different(a: tuple[str, str], b: tuple[str, str], why: str) -> None:
        if key(*a) == key(*b):
            raise NotYet(f"two calls are different ({why}), but get the same key {key(*a)!r:.80}.",
                         "your key drops something that matters: keep the tool's name, the parameter names and the "
                         "values' types in it.")

    email, shouted, other = email_variants(rng)
    tool, other_tool = rng.sample(["find_orders", "get_order_status", "search_docs", "track_parcel"], 2)
    n = rng.randint(2, 9)
    word = rng.choice(["Kettle", "Mug", "Teapot", "Lamp"])
    alike((tool, json.dumps({"email": email})), (tool, json.dumps({"email": email}, indent=rng.randint(1, 3))),
         "only the spacing differs")
    alike((tool, json.dumps({"query": word, "limit": n})), (tool, json.dumps({"limit": n, "query": word})),
         "only the key order differs")
    alike((tool, json.dumps({"email": email})), (tool, json.dumps({"email": shouted})),
         "the text differs only in letter case and surrounding spaces")
    alike((tool, json.dumps({"filter": {"tags": [word, "new"]}})),
         (tool, json.dumps({"filter": {"tags": [word.lower(), " NEW "]}})),
         "strings inside nested objects and lists count too")
    different((tool, json.dumps({"email": email})), (other_tool, json.dumps({"email": email})), "another tool")
    different((tool, json.dumps({"email": email})), (tool, json.dumps({"email": other})), "another customer")
    different((tool, json.dumps({"limit": n})), (tool, json.dumps({"limit": n + 1})), "another number")
    different((tool, json.dumps({"limit": n})), (tool, json.dumps({"limit": str(n)})), "a number is not a text")
    different((tool, json.dumps({"Query": word})), (tool, json.dumps({"query": word})),
              "keys are parameter names: only string values lose their case")
    different((tool, json.dumps({"query": f"{word} {n}"})), (tool, json.dumps({"query": f"{word}{n}"})),
              "spaces inside a text change it")
    # JSON that is not an object: the model sends it, and the loop must go on.
    alike((tool, json.dumps([word, email])), (tool, json.dumps([f" {word.upper()}", shouted])),
         "a list of texts that differ only in case and spaces")
    alike((tool, json.dumps(shouted)), (tool, json.dumps(email)), "one text that differs only in case and spaces")
    for value in (None, n, True):
        alike((tool, json.dumps(value)), (tool, json.dumps(value)), "identical JSON that is not an object")
    different((tool, "null"), (tool, json.dumps({"email": None})), "null is not an object")
    # Text that is not JSON: only the very same text is a repeat.
    broken = f'{{"order_id": A{rng.randint(1000, 9999)}}}'
    for text in (broken, "", f"email={email}"):
        alike((tool, text), (tool, text), "identical text, even if not JSON")
    different((tool, broken), (tool, broken.replace("A", "B")), "different text that is not JSON")

    # In the real loop: the second lookup never reaches the tool.
    toolbox, ran = shop_toolbox(), []

    def execute(name: str, arguments: str) -> str:
        ran.append(arguments)
        return toolbox.execute(name, arguments)

    fake = ScriptedModel([raw_call("find_orders", json.dumps({"email": email})),
                          raw_call("find_orders", json.dumps({"email": shouted})), "You have no orders."])
    result = run_agent(fake.client(max_retries=0), MODEL, "My orders?", tools=toolbox.definitions(),
                       execute=execute, limits=Limits(max_steps=3), repeat_key=repeat_key)
    if len(ran) != 1 or result.stop_reason != "done":
        raise NotYet(f"with run_agent(..., repeat_key=repeat_key) the tool ran {len(ran)} times for the same "
                     "customer; it should run once.",
                     f"the model asked with {json.dumps({'email': email})} and then {json.dumps({'email': shouted})}: "
                     "give those two the same key.")
    return "Same call, same key: the loop ran the lookup once, then the model answered."


# -- l2-skip-repeats ----------------------------------------------------------------------------
@exercise("l2-skip-repeats", lesson=2, given=GIVEN_SKIP)
def check_skip_repeats(answer_calls):
    rng = draws()
    tools = made_up_tools(rng, 3)
    a, b, c = (t["function"]["name"] for t in tools)
    word = rng.choice(["kettle", "mug", "lamp"])
    email, shouted, _ = email_variants(rng)

    def loose_key(name: str, arguments: str):
        """The check's own key: letter case and spaces do not count, so `call_key` alone is not enough."""
        return name, "".join(arguments.lower().split())

    seen: set = set()
    execute = Recorder(word)

    def step(specs, what):
        calls = calls_for(rng, specs)
        before = set(seen)
        out = answer_calls(calls, execute, seen, loose_key)
        if not isinstance(out, list) or not all(isinstance(m, dict) for m in out):
            raise NotYet(f"answer_calls should return a list of tool messages (dicts); got {out!r:.100}.",
                         "build a list, append one dict per call to it, and return the list after the loop (not "
                         "inside it).")
        if len(out) != len(calls):
            raise NotYet(f"for {what}, answer_calls returned {len(out)} messages for {len(calls)} calls.",
                         "Every call needs its tool message, a repeat too (the API requires one per "
                         "tool_call_id): for a repeat, a note instead of the result.")
        for m, tc in zip(out, calls, strict=True):
            if (m.get("role"), m.get("tool_call_id")) != ("tool", tc.id):
                raise NotYet(f"for {what}, the messages should be "
                             f"{{'role': 'tool', 'tool_call_id': call.id, 'content': ...}}, one per call, in the "
                             f"order of the calls; got {[(m.get('role'), m.get('tool_call_id')) for m in out]!r:.120} "
                             f"for the calls {[tc.id for tc in calls]!r:.120}.",
                             "give each message the id of its own call, and keep the calls' order.")
            if not isinstance(m.get("content"), str):
                raise NotYet(f"a tool message's content must be text, not {type(m.get('content')).__name__}.",
                             "for a call that ran, the string execute returned; for a repeat, a note that says it was "
                             "not run.")
        return calls, out, before

    first = json.dumps({"q": email})
    calls, out, before = step([(a, first), (b, json.dumps({"q": word})), (a, json.dumps({"q": shouted}))],
                              "a step that asks for the same call twice")
    runs = [n for n, _ in execute.calls]
    if not any(n == a for n in runs):
        raise NotYet("a call the run has not seen before was not run.",
                     "Check `seen` before you add the call's key to it, and run the call when its key was not "
                     "there.")
    if sum(n == a for n in runs) > 1:
        raise NotYet("a call was run twice in one step although its key is the same as an earlier call's.",
                     "Use repeat_key(name, arguments), not the raw text, and add each key to `seen` as soon as "
                     "the call has run, so a repeat later in the same step is caught.")
    if execute.calls[:2] != [(a, first), (b, json.dumps({"q": word}))]:
        raise NotYet(f"the calls ran as {execute.calls[:2]!r:.160}; expected "
                     f"{[(a, first), (b, json.dumps({'q': word}))]!r:.160}.",
                     "run each new call with execute(call.function.name, call.function.arguments), in the order of "
                     "the calls.")
    note = out[2]["content"]
    if "not run" not in note.lower() or a not in note:
        raise NotYet("the message for a repeat should tell the model that the call was not run, and name the "
                     "tool.",
                     "REPEAT_NOTE.format(name=...) says so, or write your own with the words 'not run'.")
    if out[0]["content"] != Recorder(word)(a, first):
        raise NotYet(f"the content for a call that ran is {out[0]['content']!r:.80}, not what execute returned "
                     f"({Recorder(word)(a, first)!r:.80}).",
                     "put the string execute(...) returned, unchanged, in that call's tool message.")
    if len(seen) != 2 or not before <= seen:
        raise NotYet("add the key of every call you run (repeat_key(name, arguments)) to the `seen` set you were "
                     "given, and nothing else.",
                     "the run keeps it from step to step.")

    # The next step: the set remembers the first one.
    count = len(execute.calls)
    calls, out, _ = step([(b, json.dumps({"q": word.upper()})), (c, json.dumps({"q": word}))],
                         "a step after it")
    if len(execute.calls) - count != 1 or execute.calls[-1][0] != c:
        raise NotYet("a call already run in an earlier step ran again.",
                     "keep the keys in the `seen` set you were given (do not start a new one), so they last from "
                     "one step to the next.")
    if len(seen) != 3:
        raise NotYet(f"`seen` holds {len(seen)} keys after two steps with three different calls run; it should hold 3.",
                     "add the key of every call you run to `seen`, in every step.")
    return "New calls ran once each; repeats got a note instead, in the same step and in the next."
