"""What lesson 9's checks make up as they run: elicitation schemas and answers the learner has not seen."""

from __future__ import annotations

import random
import string


def word(rng: random.Random, n: int = 6) -> str:
    return "".join(rng.choice(string.ascii_lowercase) for _ in range(n))


def schema(rng: random.Random) -> dict:
    """A flat form schema with one field of each kind, in a random order, some required."""
    props: dict[str, dict] = {
        word(rng): {"type": "string", "title": "Note " + word(rng, 3)},
        word(rng): {"type": "number", "title": "Amount", "minimum": 0, "maximum": rng.choice([50, 100, 250])},
        word(rng): {"type": "integer", "title": "Parcels", "minimum": 1},
        word(rng): {"type": "boolean", "title": "Confirm", "description": "Go ahead?"},
        word(rng): {"type": "string", "title": "Order", "enum": [f"A{rng.randrange(1000, 9999)}" for _ in range(3)]},
    }
    names = list(props)
    rng.shuffle(names)
    required = [n for n in names if rng.random() < 0.6] or names[:1]
    if rng.random() < 0.5:  # some servers leave the title out: the field's name is its label then
        del props[names[0]]["title"]
    return {"type": "object", "properties": {n: props[n] for n in names}, "required": required}


def valid_answer(rng: random.Random, s: dict) -> dict:
    answer = {}
    for name, p in s["properties"].items():
        if name not in s["required"] and rng.random() < 0.4:
            continue
        if "enum" in p:
            answer[name] = rng.choice(p["enum"])
        elif p["type"] == "string":
            answer[name] = word(rng)
        elif p["type"] == "number":
            answer[name] = round(rng.uniform(p["minimum"], p["maximum"]), 2)
        elif p["type"] == "integer":
            answer[name] = rng.randrange(1, 9)
        else:
            answer[name] = rng.random() < 0.5
    return answer


def field_of(s: dict, kind: str) -> str:
    for name, p in s["properties"].items():
        if ("enum" in p and kind == "enum") or ("enum" not in p and p["type"] == kind):
            return name
    raise LookupError(kind)
