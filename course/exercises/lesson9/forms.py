"""The checks of `l9-form-fields`, `l9-answer-problems` and `l9-secret-question`: the host's side of elicitation."""

from __future__ import annotations

import copy

from course.exercises import NotYet, exercise
from course.exercises.lesson9.cases import field_of, schema, valid_answer, word
from course.exercises.lesson9.given import GIVEN
from course.exercises.seeds import draws

KEYS = ("name", "kind", "label", "required", "choices")


def as_dict(item: object) -> dict:
    """A learner's field as a dict, whether they returned dicts or objects with those attributes."""
    if type(item) is dict:
        got = {k: item.get(k) for k in KEYS}
    else:
        got = {k: getattr(item, k, None) for k in KEYS}
    got["choices"] = list(got["choices"] or [])
    return got


# -- l9-form-fields --------------------------------------------------------------------------------------
@exercise("l9-form-fields", lesson=9, given=GIVEN)
def check_form_fields(form_fields):
    from course.beyond.forms import form_fields as reference

    rng = draws()
    for _ in range(4):
        s = schema(rng)
        before = copy.deepcopy(s)
        got = form_fields(s)
        if s != before:
            raise NotYet("form_fields changed the schema it was given.",
                         "read it, don't edit it (the SDK keeps it).")
        if not isinstance(got, list):
            raise NotYet(f"form_fields returned a {type(got).__name__}.",
                     "return a list, one field per property.")
        want = [as_dict(f) for f in reference(s)]
        mine = [as_dict(f) for f in got]
        if [f["name"] for f in mine] != [f["name"] for f in want]:
            raise NotYet(f"the fields are {[f['name'] for f in mine]}; the schema's properties are "
                         f"{[f['name'] for f in want]}.",
                         "one field per property, in the schema's order.")
        for m, w in zip(mine, want, strict=True):
            for key in KEYS:
                if m[key] != w[key]:
                    prop = s["properties"][w["name"]]
                    raise NotYet(f"for the property {w['name']!r} ({prop}), {key} is {m[key]!r}; expected "
                                 f"{w[key]!r}.", ADVICE[key])
    return "Each property becomes a field of the right kind, labelled, with its choices and whether it is required."


ADVICE = {
    "name": "Use the property's key.",
    "kind": "string → text, number → number, integer → integer, boolean → boolean; an enum makes a choice "
            "whatever its type.",
    "label": "The property's title, or its name when there is no title.",
    "required": "A field is required when its name is in the schema's \"required\" list (the list may be missing).",
    "choices": "An enum's values, in order; an empty list for every other field.",
}


# -- l9-answer-problems ----------------------------------------------------------------------------------
@exercise("l9-answer-problems", lesson=9, given=GIVEN)
def check_answer_problems(problems):
    rng = draws()
    for _ in range(3):
        s = schema(rng)
        for _ in range(3):
            answer = valid_answer(rng, s)
            got = problems(s, answer)
            if got != []:
                raise NotYet(f"problems(schema, {answer}) found {got}, but that answer fits the schema {s}.",
                             "a field that is not required may be left out, and a whole number is a number.")
        req = s["required"][0]
        number, integer, choice, boolean = (field_of(s, k) for k in ("number", "integer", "enum", "boolean"))
        high = s["properties"][number]["maximum"]
        wrong = [
            (req, "drop", f"the required field {req!r} left out", "a field in \"required\" must be there"),
            (number, high + 1, f"{number!r} above its maximum ({high})", "check minimum and maximum"),
            (number, "12", f"{number!r} given as the text \"12\"", "a number field needs an int or float"),
            (number, True, f"{number!r} given as True", "True is an int in Python: refuse a bool for a number"),
            (integer, 2.5, f"{integer!r} given as 2.5", "an integer field needs a whole number"),
            (choice, word(rng), f"{choice!r} given a value not in its enum", "a choice must be one of the enum"),
            (boolean, "yes", f"{boolean!r} given the text \"yes\"", "a boolean field needs True or False"),
            (word(rng), 1, "a field the schema does not have", "refuse names that are not properties"),
        ]
        for name, value, case, advice in wrong:
            answer = valid_answer(rng, s)
            if value == "drop":
                answer.pop(name, None)
            else:
                answer[name] = value
            got = problems(s, answer)
            if not got:
                raise NotYet(f"problems found nothing wrong with {case} (answer {answer}); {advice}.",
                             "Nothing that breaks the schema may be sent to the server.")
            if type(got) is not list or not all(type(p) is str for p in got):
                raise NotYet(f"problems returned {got!r}.",
                             "return a list of sentences, one per problem.")
            label = s["properties"].get(name, {}).get("title", name)
            if not any(name in p or label in p for p in got):
                raise NotYet(f"for {case}, the problems {got} don't name the field.",
                             f"put its label ({label!r}) or name in the sentence, so the human knows what to fix.")
    return "Only an answer that fits the schema goes out; each problem names its field."


# -- l9-secret-question ----------------------------------------------------------------------------------
FINE = [("Which order should get the refund?", {"order_id": {"type": "string"}}),
        ("Confirm the shipping address", {"shipping": {"type": "string", "title": "Shipping address"}}),
        ("How many parcels?", {"count": {"type": "integer", "description": "Parcels to send"}}),
        ("Who is the passenger?", {"passenger": {"type": "string"}}),
        ("Add a note", {"note": {"type": "string", "description": "Spelled out for the customer"}})]
SECRET = [("Please enter your password.", {"x": {"type": "string"}}, "the message"),
          ("To check it's you:", {"api_key": {"type": "string"}}, "a field's name"),
          ("One more thing", {"code": {"type": "string", "description": "The card's PIN"}}, "a field's description"),
          ("Payment", {"n": {"type": "string", "title": "Card number"}}, "a field's title"),
          ("Log in", {"secret": {"type": "string", "title": "Secret"}}, "a field's name and title"),
          ("Verify", {"tok": {"type": "string", "title": "Access token"}}, "a field's title")]


@exercise("l9-secret-question", lesson=9, given=GIVEN)
def check_secret_question(asks_for_secret):
    rng = draws()
    for message, props, where in rng.sample(SECRET, len(SECRET)):
        s = {"type": "object", "properties": {**props, word(rng): {"type": "string"}}}
        if not asks_for_secret(message, s):
            raise NotYet(f"asks_for_secret({message!r}, {s}) let it through; the secret is in {where}.",
                         "Look at the message and at every property's name, title and description.")
    for message, props in rng.sample(FINE, len(FINE)):
        s = {"type": "object", "properties": props}
        if asks_for_secret(message, s):
            raise NotYet(f"asks_for_secret({message!r}, {s}) refused a harmless question.",
                         "match whole words (a regex with \\b, or split into words), so 'shipping' is no PIN and "
                         "'passenger' no password.")
    return "Questions for passwords, keys, PINs, tokens and card numbers are refused; ordinary ones pass."
