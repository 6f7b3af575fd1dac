"""Lesson 9's exercise checks accept correct solutions written in other ways and refuse the wrong ones a learner
is likely to write, each with a hint that says what is wrong (tests/test_exercises_lessons.py covers what every
lesson shares: the reference solutions, the notebook, its stubs)."""

from __future__ import annotations

import pytest

from exercise_checks import fails_with, lying, passes, reviewed, solution

pytestmark = [pytest.mark.timeout(120)]
TRIES = 3  # the checks draw new cases on every run: a wrong solution must fail on every draw


# -- l9-form-fields --------------------------------------------------------------------------------------
def test_the_courses_own_form_fields_records_pass():
    passes("l9-form-fields", tries=TRIES, source="from course.beyond.forms import form_fields\n")


def test_form_fields_written_with_a_match_statement_pass():
    passes("l9-form-fields", tries=TRIES, source="""
        def form_fields(schema):
            out = []
            for name in schema["properties"]:
                prop = schema["properties"][name]
                match prop:
                    case {"enum": values}:
                        kind, choices = "choice", list(values)
                    case {"type": "string"}:
                        kind, choices = "text", []
                    case {"type": other}:
                        kind, choices = other, []
                out.append(dict(name=name, kind=kind, label=prop.get("title", name), choices=choices,
                                required=name in schema.get("required", ())))
            return out
        """)


def test_form_fields_that_call_an_enum_text_are_refused():
    fails_with("l9-form-fields", solution("l9-form-fields").replace(
        '"choice" if choices else KINDS[prop["type"]]', 'KINDS[prop["type"]]'), "an enum makes a choice")


def test_form_fields_that_make_every_field_required_are_refused():
    fails_with("l9-form-fields", solution("l9-form-fields").replace('"required": name in required',
                                                                    '"required": True'), "required")


def test_form_fields_that_lie_about_their_kind_go_to_review_by_the_graders_vocabulary_rule():
    reviewed("l9-form-fields", lying("l9-form-fields", '"kind": "choice" if choices else KINDS[prop["type"]]',
                                     '"kind": _Any()'))


# -- l9-answer-problems ----------------------------------------------------------------------------------
def test_the_courses_own_problems_pass():
    passes("l9-answer-problems", tries=TRIES, source="from course.beyond.forms import problems\n")


def test_problems_with_jsonschema_and_labels_pass():
    passes("l9-answer-problems", tries=TRIES, source="""
        import jsonschema

        def problems(schema, answer):
            strict = {**schema, "additionalProperties": False}
            found = []
            for error in jsonschema.Draft202012Validator(strict).iter_errors(answer):
                where = error.path[0] if error.path else ""
                if error.validator == "required":
                    where = error.message.split("'")[1]
                elif error.validator == "additionalProperties":
                    where = error.message.split("'")[1]
                label = schema["properties"].get(where, {}).get("title", where)
                found.append(f"{label} ({where}): {error.message}")
            for name, prop in schema["properties"].items():
                if prop["type"] in ("number", "integer") and isinstance(answer.get(name), bool):
                    found.append(f"{prop.get('title', name)}: a number, not yes/no")
            return found
        """)


def test_problems_that_forget_required_fields_are_refused():
    fails_with("l9-answer-problems", solution("l9-answer-problems").replace(
        '            if name in required:\n                found.append(f"{label}: required.")\n', ""),
        "must be there")


def test_problems_that_take_true_for_a_number_are_refused():
    fails_with("l9-answer-problems", solution("l9-answer-problems").replace("isinstance(value, bool) or ", ""),
               "True is an int")


def test_problems_that_do_not_name_the_field_are_refused():
    fails_with("l9-answer-problems", solution("l9-answer-problems").replace(
        "def problems(schema, answer):", "def problems_named(schema, answer):") + """

def problems(schema, answer):
    return ["something is wrong"] * len(problems_named(schema, answer))
""", "don't name the field")


# -- l9-secret-question ----------------------------------------------------------------------------------
def test_the_courses_own_secret_rule_passes():
    passes("l9-secret-question", tries=TRIES, source="from course.beyond.forms import asks_for_secret\n")


def test_a_secret_rule_that_splits_words_passes():
    passes("l9-secret-question", tries=TRIES, source="""
        import re

        BAD = {"password", "pin", "secret", "token", "key"}

        def asks_for_secret(message, schema):
            words = re.findall(r"[a-z]+", message.lower())
            for name, prop in schema["properties"].items():
                about = " ".join([name, prop.get("title", ""), prop.get("description", "")])
                words += re.findall(r"[a-z]+", about.lower())
            text = " ".join(words)
            return bool(BAD & set(words)) or "card number" in text
        """)


def test_a_secret_rule_that_reads_only_the_message_is_refused():
    fails_with("l9-secret-question", """
        def asks_for_secret(message, schema):
            return any(w in message.lower() for w in ("password", "pin", "secret", "token"))
        """, "Look at the message and at every property")


def test_a_secret_rule_without_word_boundaries_is_refused():
    fails_with("l9-secret-question", solution("l9-secret-question").replace(r'r"\b(', 'r"(').replace(r')\b"', ')"'),
               "match whole words")


# -- l9-structured-result --------------------------------------------------------------------------------
def test_the_courses_own_for_model_passes():
    passes("l9-structured-result", tries=TRIES, source="from course.beyond.structured import for_model\n")


def test_a_for_model_with_indented_json_and_a_validator_of_its_own_passes():
    passes("l9-structured-result", tries=TRIES, source="""
        import json

        from jsonschema import Draft202012Validator

        class BrokenResult(ValueError):
            pass

        def for_model(tool, output_schema, structured, text):
            if not output_schema:
                return text
            errors = [e.message for e in Draft202012Validator(output_schema).iter_errors(structured)]
            if structured is None or errors:
                raise BrokenResult(f"{tool}: the result breaks its outputSchema: {errors}")
            return f"{text}\\n{json.dumps(structured, indent=2)}"  # as the SDK writes its own text
        """)


def test_a_for_model_that_checks_only_the_keys_is_refused():
    fails_with("l9-structured-result", """
        import json

        def for_model(tool, output_schema, structured, text):
            if output_schema is None:
                return text
            if structured is None or any(k not in structured for k in output_schema.get("required", [])):
                raise ValueError(f"{tool}: broken")
            return json.dumps(structured)
        """, "breaks the tool's own schema")


def test_a_for_model_that_gives_only_the_text_is_refused():
    fails_with("l9-structured-result", solution("l9-structured-result").replace(
        'return json.dumps(structured) + "\\n" + text', "return text"), "give the model the structure")


def test_a_for_model_whose_error_does_not_name_the_tool_is_refused():
    fails_with("l9-structured-result", solution("l9-structured-result").replace(
        'f"{tool} broke its own', 'f"The tool broke its own'), "name the tool")


# -- l9-progress-line ------------------------------------------------------------------------------------
def test_the_courses_own_progress_line_passes():
    passes("l9-progress-line", tries=TRIES, source="from course.beyond.progress import progress_text\n")


def test_a_progress_line_built_with_round_and_join_passes():
    passes("l9-progress-line", tries=TRIES, source="""
        def progress_text(progress, total, message):
            def num(x):
                return str(int(x)) if float(x).is_integer() else repr(float(x))
            parts = [f"{num(progress)}/{num(total)} ({round(100 * min(1, progress / total))}%)" if total
                     else f"{num(progress)} done"]
            return " ".join(parts + ([message] if message else []))
        """)


def test_a_progress_line_that_divides_by_a_missing_total_is_refused():
    fails_with("l9-progress-line", """
        def progress_text(progress, total, message):
            return f"{progress:g}/{total:g} ({progress / total:.0%}) {message or ''}".strip()
        """, "no total")


def test_a_progress_line_that_shows_more_than_100_percent_is_refused():
    fails_with("l9-progress-line", solution("l9-progress-line").replace("min(progress / total, 1)",
                                                                        "progress / total"), "at most 100%")


def test_a_progress_line_that_prints_floats_as_they_come_is_refused():
    fails_with("l9-progress-line", solution("l9-progress-line").replace(
        'f"{progress:g}/{total:g} ({share:.0%})"', 'f"{progress}/{total} ({share:.0%})"'), ":g")


# -- l9-token-check --------------------------------------------------------------------------------------
def test_a_token_check_written_with_any_and_all_passes():
    passes("l9-token-check", tries=TRIES, source="""
        def token_problem(token, resource, needed, now):
            aud = token.get("aud", [])
            if not any(a == resource for a in (aud if isinstance(aud, list) else [aud])):
                return "invalid_token"
            if now >= token["exp"]:
                return "invalid_token"
            scopes = token["scope"].split(" ")
            return None if all(s in scopes for s in needed) else "insufficient_scope"
        """)


def test_a_token_check_that_compares_the_audience_by_prefix_is_refused():
    fails_with("l9-token-check", solution("l9-token-check").replace(
        "if resource not in audiences", "if not any(a.startswith(resource) for a in audiences)"), "whole URL")


def test_a_token_check_that_finds_scopes_inside_the_string_is_refused():
    fails_with("l9-token-check", solution("l9-token-check").replace(
        'granted = set(token.get("scope", "").split())\n    if not set(needed) <= granted:',
        'if not all(s in token.get("scope", "") for s in needed):'), "split the scope")


def test_a_token_check_that_forgets_expiry_is_refused():
    fails_with("l9-token-check", solution("l9-token-check").replace(' or token.get("exp", 0) <= now', ""),
               "check exp")
