"""Lesson 9: the form a host draws from an elicitation's requested schema, and the checks on what comes back.

An elicitation (a server asking the human something half-way through a tool call) carries a flat
JSON schema: an object whose properties are strings, numbers, integers, booleans or enums (a titled
enum is a `oneOf` of `{const, title}`; a multiple choice is an `array` of an enum's values, 2025-11-25
and the reference "everything" server use both; a string may set a length and a format: email, uri,
date, date-time). The host
turns each property into a form field, checks the human's answer against the schema *before* it is
sent, and refuses outright a question that asks for a secret (the spec: servers MUST NOT request
sensitive information such as passwords or API keys through a form).

The secret rule reads words, so it catches a server that asks plainly, not one bent on phishing (no
word list stops "the four digits you type at the cash machine"): the human, who sees the server's
name and every field's description in the form, stays the one who decides.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

# Whole words that mark a question for a secret, in a field's name, title or description, or in the message
# ("passenger" holds no password, "secretary" no secret, "a one-time purchase" no one-time code).
SECRET = re.compile(r"\b(?:pass(?:word|phrase|code)s?|pin|secret|api ?key|token|credentials?|cv[vc]2?|"
                    r"card ?number|iban|ssn|otp|one ?time (?:password|code|pin)|"
                    r"(?:security|verification|sms|login) code)\b", re.IGNORECASE)
# A warning is no question: "do not give us your phone number, pin, ..." (the reference "everything"
# server's integer field), "we will never ask for your password". It counts only when the rest of its
# sentence asks for nothing ("don't share your PIN with anyone, type it here" is a question).
NOT_GIVING = re.compile(r"\b(?:do not|don't|dont|never|must not|should not|will not|won't)\s+(?:\w+\s+){0,2}?"
                        r"(?:give|share|enter|type|send|provide|include|tell|reveal|ask)\b", re.IGNORECASE)
ASKING = re.compile(r"\b(?:give|share|enter|type|send|provide|tell|write|put|fill|say|add)\b", re.IGNORECASE)


@dataclass(frozen=True)
class FormField:
    """One field of the form: what the widget shows and what the check enforces."""

    name: str
    kind: str  # "text", "number", "integer", "boolean", "choice" or "choices" (pick several)
    label: str
    required: bool
    choices: tuple[str, ...] = ()
    minimum: float | None = None
    maximum: float | None = None
    default: Any = None
    about: str = ""  # the property's description: the human reads it next to the field
    choice_labels: tuple[str, ...] = ()  # what each choice is shown as (a titled enum's titles), same order
    format: str = ""  # a text's format: email, uri, date or date-time (minimum/maximum: its length)


KINDS = {"string": "text", "number": "number", "integer": "integer", "boolean": "boolean", "array": "choices"}


def _choices(prop: dict) -> tuple[Any, ...]:
    """An enum's values: `enum`, or the `const`s of a titled enum (`oneOf`/`anyOf`)."""
    options = prop.get("oneOf") or prop.get("anyOf") or ()
    return tuple(prop.get("enum", ())) or tuple(o["const"] for o in options if isinstance(o, dict) and "const" in o)


def _labels(prop: dict, choices: tuple[Any, ...]) -> tuple[str, ...]:
    """A titled enum's titles (`oneOf`/`anyOf` `title`, or the older `enumNames`), else the values themselves."""
    titles = {o["const"]: o.get("title") for o in prop.get("oneOf") or prop.get("anyOf") or ()
              if isinstance(o, dict) and "const" in o}
    names = prop.get("enumNames") or ()
    titles |= dict(zip(prop.get("enum", ()), names, strict=False))
    return tuple(str(titles.get(c) or c) for c in choices)


def form_fields(schema: dict) -> list[FormField]:
    """The form's fields, in the schema's order (lesson 9, exercise l9-form-fields)."""
    required = set(schema.get("required", []))
    fields = []
    for name, prop in schema.get("properties", {}).items():
        if prop.get("type") not in KINDS:
            raise ValueError(f"the form cannot ask for {name!r}: type {prop.get('type')!r} is not one an "
                             f"elicitation may use ({', '.join(KINDS)}).")
        kind, choices, listed = KINDS[prop["type"]], _choices(prop), prop
        if kind == "choices":
            listed = prop.get("items") or {}
            choices, low, high = _choices(listed), prop.get("minItems"), prop.get("maxItems")
        elif kind == "text" and not choices:
            low, high = prop.get("minLength"), prop.get("maxLength")
        else:
            kind, low, high = ("choice" if choices else kind), prop.get("minimum"), prop.get("maximum")
        fields.append(FormField(name, kind, prop.get("title") or name, name in required, choices,
                                low, high, prop.get("default"), str(prop.get("description") or ""),
                                _labels(listed, choices), str(prop.get("format") or "")))
    return fields


def problems(schema: dict, answer: dict) -> list[str]:
    """What is wrong with an answer before it is sent, one sentence per field; [] when it may go."""
    found = []
    fields = {f.name: f for f in form_fields(schema)}
    for name in answer:
        if name not in fields:
            found.append(f"{name}: the form has no such field.")
    for f in fields.values():
        value = answer.get(f.name)
        if value is None or value == "":
            if f.required:
                found.append(f"{f.label}: required.")
            continue
        if f.kind == "boolean" and not isinstance(value, bool):
            found.append(f"{f.label}: yes or no.")
        elif f.kind in ("number", "integer"):
            if isinstance(value, bool) or not isinstance(value, int | float) or (
                    f.kind == "integer" and not float(value).is_integer()):
                found.append(f"{f.label}: {'a whole number' if f.kind == 'integer' else 'a number'}.")
            elif f.minimum is not None and value < f.minimum:
                found.append(f"{f.label}: at least {f.minimum:g}.")
            elif f.maximum is not None and value > f.maximum:
                found.append(f"{f.label}: at most {f.maximum:g}.")
        elif f.kind == "choice" and value not in f.choices:
            found.append(f"{f.label}: one of {', '.join(map(str, f.choices))}.")
        elif f.kind == "choices":
            found += _several(f, value)
        elif f.kind == "text":
            found += _text(f, value)
    return found


# The string formats an elicitation may name (2025-11-25), each as a check and what to tell the human.
FORMATS: dict[str, tuple[Callable[[str], Any], str]] = {
    "email": (re.compile(r"[^@\s]+@[^@\s]+\.[^@\s]+").fullmatch, "an email address, like ada@example.com"),
    "uri": (re.compile(r"[a-zA-Z][a-zA-Z0-9+.-]*://\S+").fullmatch, "a web address, like https://example.com"),
    "date": (lambda v: _iso(date.fromisoformat, v), "a date, like 2026-07-28"),
    "date-time": (lambda v: _iso(datetime.fromisoformat, v), "a date and time, like 2026-07-28T09:30:00Z")}


def _iso(parse: Any, value: str) -> bool:
    try:
        parse(value)
    except ValueError:
        return False
    return True


def _text(f: FormField, value: Any) -> list[str]:
    if not isinstance(value, str):
        return [f"{f.label}: text."]
    if f.minimum is not None and len(value) < f.minimum:
        return [f"{f.label}: at least {f.minimum:g} characters."]
    if f.maximum is not None and len(value) > f.maximum:
        return [f"{f.label}: at most {f.maximum:g} characters."]
    if f.format in FORMATS and not FORMATS[f.format][0](value):
        return [f"{f.label}: {FORMATS[f.format][1]}."]
    return []


def _several(f: FormField, value: Any) -> list[str]:
    if not isinstance(value, list | tuple) or any(v not in f.choices for v in value):
        return [f"{f.label}: some of {', '.join(map(str, f.choices))}."]
    if f.minimum is not None and len(value) < f.minimum:
        return [f"{f.label}: pick at least {f.minimum:g}."]
    if f.maximum is not None and len(value) > f.maximum:
        return [f"{f.label}: pick at most {f.maximum:g}."]
    return []


def asks_for_secret(message: str, schema: dict) -> str | None:
    """The words that ask for a secret (a password, a key, a card number), or None."""
    texts = [message] + [" ".join(str(p.get(k, "")) for k in ("title", "description")) + " " + name
                         for name, p in schema.get("properties", {}).items()]
    for text in texts:
        for sentence in re.split(r"(?<=[.!?])\s+|\n", _words(text)):
            for m in SECRET.finditer(sentence):
                if not _only_a_warning(sentence, m.start()):
                    return m.group(0)
    return None


def _words(text: str) -> str:
    """Names as words: "apiKey" → "api Key", "card_number" → "card number", "API-key" → "API key"."""
    return re.sub(r"[_-]", " ", re.sub(r"(?<=[a-z])(?=[A-Z])", " ", text))


def _only_a_warning(sentence: str, at: int) -> bool:
    """The secret word at `at` follows "do not give ..." in a sentence that asks for nothing else."""
    warnings = list(NOT_GIVING.finditer(sentence, 0, at))
    if not warnings:
        return False
    last = warnings[-1]
    return not ASKING.search(sentence[:last.start()] + " " + sentence[last.end():])
