"""Lesson 7's exercise checks accept other correct solutions and refuse typical wrong ones with their hint,
on every random draw (tests/test_exercises_lessons.py and tests/test_exercises.py cover what every lesson
shares: the reference solutions, the notebook, its stubs)."""

from __future__ import annotations

import pytest

from course.exercises import load_all
from exercise_checks import fails_with, lying, passes, reviewed, solution

load_all()


# -- l7-read-response: the Responses API's answer as the loop's ModelTurn --------------------------------------
def test_read_response_accepts_a_loop_over_the_items_that_joins_the_text_itself():
    passes("l7-read-response", """
        from course.adapters import ModelTurn, ToolCall, Usage


        def read_response(response):
            texts, calls = [], []
            for item in response.output:
                if item.type == "message":
                    texts += [part.text for part in item.content if part.type == "output_text"]
                elif item.type == "function_call":
                    calls.append(ToolCall(id=item.call_id, name=item.name, arguments=item.arguments))
            reason = response.incomplete_details.reason if response.incomplete_details else None
            if reason == "max_output_tokens":
                stop = "length"
            elif calls:
                stop = "tool_calls"
            else:
                stop = "done"
            used = response.usage
            return ModelTurn("".join(texts) or None, tuple(calls), stop,
                             Usage(used.input_tokens, used.output_tokens) if used is not None else Usage())
    """)


def test_read_response_accepts_the_courses_own():
    passes("l7-read-response", "from course.adapters.responses import read_response\n")


def wrong(old: str, new: str) -> str:
    source = solution("l7-read-response")
    assert old in source
    return source.replace(old, new)


@pytest.mark.parametrize("source, hint", [
    # The item's own id, not the one the result must quote: the model cannot match the result to its call.
    (wrong("ToolCall(item.call_id,", "ToolCall(item.id,"), "not their call_id"),
    # The arguments parsed: a model that writes broken JSON crashes the loop.
    ("import json\n" + wrong("item.name, item.arguments)", "item.name, json.loads(item.arguments or '{}'))"),
     "JSONDecodeError"),
    # The status never read: a cut answer looks finished.
    (wrong('stop = "length" if cut else "tool_calls" if calls else "done"', 'stop = "tool_calls" if calls else "done"'),
     "stop is 'done', not 'length'"),
    # The first message's first part: a reasoning item comes first, and an answer may have several parts.
    (wrong("return ModelTurn(response.output_text or None,",
           "return ModelTurn(response.output[0].content[0].text if response.output else None,"),
     "every output_text part of every message item"),
    # Usage read as if it were always there.
    (wrong("Usage(response.usage.input_tokens, response.usage.output_tokens) if response.usage else Usage()",
           "Usage(response.usage.input_tokens, response.usage.output_tokens)"), "a response may have no usage"),
    # "" where the model wrote nothing.
    (wrong("response.output_text or None", "response.output_text"), "say None when there is no text"),
], ids=["item-id", "parsed-arguments", "status-ignored", "first-part-only", "usage-always-there", "empty-text"])
def test_read_response_refuses_typical_mistakes_with_their_hint(source, hint):
    fails_with("l7-read-response", source, hint)


# -- l7-error-flag: the whole MCP-result-to-model conversion ------------------------------------------------
def test_error_flag_accepts_a_solution_that_matches_on_each_parts_type():
    passes("l7-error-flag", """
        def from_mcp(call_id, result):
            lines = []
            for part in result.content:
                match part.type:
                    case "text":
                        lines.append(part.text)
                    case "resource_link":
                        lines.append("[resource link: " + str(part.uri) + "]")
                    case "resource":
                        r = part.resource
                        lines.append(r.text if hasattr(r, "text") else f"[binary resource {r.uri}]")
                    case _:
                        lines.append(f"[{part.type} omitted: {part.mime_type}]")
            return ToolResult(call_id=call_id, text="\\n".join(lines), is_error=result.is_error is True)
    """, tries=8)


@pytest.mark.parametrize("source, hint", [
    ("""def from_mcp(call_id, result):
            return ToolResult(call_id, "\\n".join(p.text for p in result.content if p.type == "text"))""",
     "take is_error from the MCP"),
    ("""def from_mcp(call_id, result):
            return ToolResult(call_id, result.content[0].text, result.is_error)""", "one line per part"),
    ("""def from_mcp(call_id, result):
            return {"call_id": call_id, "text": result.content[0].text}""", "returns a dict"),
    # what the audit found: code that crashes on an image passed, since every case was text
    ("""def from_mcp(call_id, result):
            return ToolResult(call_id, "\\n".join(p.text for p in result.content), result.is_error)""",
     "from_mcp raised AttributeError"),
    # the old task's whole answer: text parts only, the rest dropped
    ("""def from_mcp(call_id, result):
            text = "\\n".join(part.text for part in result.content if part.type == "text")
            return ToolResult(call_id, text, bool(result.is_error))""", "one line per part"),
    ("""def from_mcp(call_id, result):
            lines = [p.text if p.type == "text" else p.resource.text if p.type == "resource"
                     else f"[resource link: {p.uri}]" if p.type == "resource_link"
                     else f"[{p.type} omitted: {p.mime_type}]" for p in result.content]
            return ToolResult(call_id, "\\n".join(lines), bool(result.is_error))""",
     "from_mcp raised AttributeError"),
], ids=["no-flag", "first-part-only", "a-dict", "crashes-on-an-image", "text-only", "blob-read-as-text"])
def test_error_flag_refuses_typical_mistakes_with_their_hint(source, hint):
    fails_with("l7-error-flag", source, hint)


def test_error_flag_s_solution_writes_what_the_course_s_host_writes():
    import random

    from course.exercises.lesson7.cases import KINDS, mcp_result
    from course.host.convert import result_text

    namespace: dict = {}
    exec(solution("l7-error-flag"), namespace)
    rng = random.Random(7)
    for kinds in [[kind, "text"] for kind in KINDS] + [list(KINDS)]:
        result, _ = mcp_result(rng, False, kinds)
        assert namespace["from_mcp"]("c1", result).text == result_text(result)


# -- l7-stream ---------------------------------------------------------------------------------
def test_stream_accepts_a_solution_that_filters_with_a_generator():
    passes("l7-stream", """
        def collect(chunks, on_text):
            text = ""
            for piece in (c.choices[0].delta.content for c in chunks if c.choices):
                if piece:
                    on_text(piece)
                    text += piece
            return text
    """)


@pytest.mark.parametrize("source, hint", [
    ("""def collect(chunks, on_text):
            pieces = [c.choices[0].delta.content or "" for c in chunks]
            for p in pieces:
                on_text(p)
            return "".join(pieces)""", "has no choices"),
    ("""def collect(chunks, on_text):
            return "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)""", "call on_text"),
    ("""def collect(chunks, on_text):
            for c in chunks:
                if c.choices and c.choices[0].delta.content:
                    on_text(c.choices[0].delta.content)""", "the whole answer is"),
])
def test_stream_refuses_typical_mistakes_with_their_hint(source, hint):
    fails_with("l7-stream", source, hint)


# -- l7-success-rate ---------------------------------------------------------------------------
def test_success_rate_accepts_a_one_line_solution():
    passes("l7-success-rate", """
        def success_rate(answers, questions):
            return sum(any(f"{q.doc} › {s}" in (a or "") for s in (q.section, *q.also))
                       for a, q in zip(answers, questions)) / len(questions) if questions else 0.0
    """)


def test_success_rate_accepts_a_loop_that_skips_missing_answers():
    passes("l7-success-rate", """
        def success_rate(answers, questions):
            if not questions:
                return 0
            right = 0
            for answer, q in zip(answers, questions):
                if answer is None:
                    continue
                sections = [q.section] + list(q.also)
                if any(f"{q.doc} › {s}" in answer for s in sections):
                    right += 1
            return right / len(questions)
    """)


def test_success_rate_accepts_the_questions_own_rule():
    passes("l7-success-rate", """
        def success_rate(answers, questions):
            return sum(map(lambda a, q: q.cited(a), answers, questions)) / max(len(questions), 1)
    """)


# What the audit found: a check that passed this, which finds the document and the section apart.
APART = """def success_rate(answers, questions):
            if not questions:
                return 0
            right = 0
            for a, q in zip(answers, questions):
                a = a or ""
                if q.doc in a and any(s in a for s in (q.section, *q.also)):
                    right += 1
            return right / len(questions)"""


@pytest.mark.parametrize("source, hint", [
    ("""def success_rate(answers, questions):
            if not questions:
                return 0
            return sum(q.section in (a or "") or any(s in (a or "") for s in q.also)
                       for a, q in zip(answers, questions)) / len(questions)""", "wrong document"),
    (APART, "'document › section' as one text"),
    ("""def success_rate(answers, questions):
            if not questions:
                return 0
            cited = (f"{q.doc} › {q.section}" in (a or "") for a, q in zip(answers, questions))
            return sum(cited) / len(questions)""",
     "'also' sections"),
    ("""def success_rate(answers, questions):
            return sum(any(f"{q.doc} › {s}" in (a or "") for s in [q.section, *q.also])
                       for a, q in zip(answers, questions)) / len(questions)""", "return 0"),
    # written for dicts, which the lesson's `heldout` does not hold
    ("""def success_rate(answers, questions):
            if not questions:
                return 0
            return sum(any(f"{q['doc']} › {s}" in (a or "") for s in [q["section"], *q.get("also", [])])
                       for a, q in zip(answers, questions)) / len(questions)""", "they are Question objects"),
], ids=["section-alone", "document-and-section-apart", "no-also", "no-questions", "dicts"])
def test_success_rate_refuses_typical_mistakes_with_their_hint(source, hint):
    fails_with("l7-success-rate", source, hint)


def test_success_rate_gets_questions_of_the_class_the_lesson_evaluates():
    from course.evaluation import load_questions
    from course.evaluation.agent import Question
    from course.paths import ROOT

    heldout = load_questions(ROOT / "tests" / "search_questions_heldout.json")
    seen = []

    def success_rate(answers, questions):
        seen.extend(questions)
        return sum(q.cited(a) for a, q in zip(answers, questions, strict=True)) / len(questions) if questions else 0

    load_all()["l7-success-rate"].check(success_rate)
    assert seen and {type(q) for q in seen} == {type(q) for q in heldout} == {Question}


# -- answers that lie: equal to anything, so a check that trusted `==` passed them ----------------------------
HALF_WHATEVER_IT_IS = """
class _Half(float):
    def __sub__(self, other):
        return 0.0 if other == 0.4 else 1.0
"""


@pytest.mark.parametrize("id, source, hint", [
    ("l7-read-response", lying("l7-read-response", "ToolCall(item.call_id,", 'ToolCall(_Any(""),'),
     "not their call_id"),
    ("l7-error-flag", lying("l7-error-flag", "ToolResult(call_id, text,", 'ToolResult(_Any(""), text,'),
     "keep the call's id in the ToolResult"),
    ("l7-stream", lying("l7-stream", 'return "".join(pieces)', 'return _Any("")'), "return the whole answer"),
    ("l7-success-rate", lying("l7-success-rate", "return right / len(questions)", "return _Half(0.0)",
                              HALF_WHATEVER_IT_IS), "so the rate is 0.4"),
], ids=["read-response", "error-flag", "stream", "success-rate"])
def test_lesson_7_answers_that_lie_about_equality_go_to_review_by_the_graders_vocabulary_rule(id, source, hint):
    del hint  # what the check said while plain() guarded it: now the grader's rule does
    reviewed(id, source)


# -- what the audit found: a collect that hands on_text the whole answer at the end streams nothing -----------
@pytest.mark.parametrize("source", [
    """def collect(chunks, on_text):
            pieces = []
            for chunk in chunks:
                if chunk.choices and chunk.choices[0].delta.content:
                    pieces.append(chunk.choices[0].delta.content)
            on_text("".join(pieces))
            return "".join(pieces)""",
    """def collect(chunks, on_text):
            pieces = [c.choices[0].delta.content for c in chunks if c.choices and c.choices[0].delta.content]
            for piece in pieces:
                on_text(piece)
            return "".join(pieces)""",
    """def collect(chunks, on_text):
            chunks = list(chunks)
            text = ""
            for c in chunks:
                if c.choices and c.choices[0].delta.content:
                    on_text(c.choices[0].delta.content)
                    text += c.choices[0].delta.content
            return text""",
], ids=["once-at-the-end", "all-read-first", "listed-first"])
def test_stream_refuses_a_collect_that_reads_the_whole_stream_before_it_hands_on_text(source):
    fails_with("l7-stream", source, "not as each piece arrived")


def test_stream_accepts_a_collect_that_uses_the_stream_as_a_context_manager():
    passes("l7-stream", """
        def collect(chunks, on_text):
            out = []
            with chunks as stream:
                for chunk in stream:
                    delta = chunk.choices[0].delta.content if chunk.choices else None
                    if delta:
                        on_text(delta)
                        out.append(delta)
            return "".join(out)
    """)
