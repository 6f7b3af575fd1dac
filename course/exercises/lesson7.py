"""Checks for lesson 7's exercises (notebooks/07_model_adapters.ipynb).

Every check tries the learner's code on cases made up at random on each run (call ids,
texts, error flags), so a solution that only fits the notebook's example does not pass.
"""

from __future__ import annotations

import random
import string

from mcp import types

from course.adapters import ToolResult
from course.evaluation.agent import Question
from course.exercises import NotYet, exercise
from course.exercises.plain import plain, rebuilt, same
from course.exercises.registry import self_contained
from course.exercises.seeds import draws
from course.scripted import ScriptedModel

GIVEN = """
from course.adapters import ToolCall, ToolResult, ModelTurn
"""

WORDS = ["refund", "parcel", "kettle", "voucher", "invoice", "section", "carrier", "warranty", "mug", "lamp"]


def call_id(rng: random.Random) -> str:
    return "call_" + "".join(rng.choices(string.ascii_letters + string.digits, k=12))


def sentence(rng: random.Random, n: int = 6) -> str:
    return " ".join(rng.choices(WORDS, k=n)).capitalize() + "."


@exercise("l7-result-item", lesson=7, given=GIVEN)
def check_result_item(result_item):
    rng = draws()
    cases = [ToolResult(call_id(rng), sentence(rng)), ToolResult(call_id(rng), sentence(rng), True),
             ToolResult(call_id(rng), "Error: " + sentence(rng), True)]
    for r in cases:
        got = plain(result_item(r))
        if not isinstance(got, dict):
            raise NotYet(f"result_item returns a {type(got).__name__}: return a dict, the input item.")
        if "tool_call_id" in got or got.get("role") == "tool":
            raise NotYet("that is a Chat Completions tool message; the Responses API wants "
                         "{'type': 'function_call_output', 'call_id': ..., 'output': ...}.")
        if not same(got.get("type"), "function_call_output"):
            raise NotYet(f"the item's type must be 'function_call_output' (got {got.get('type')!r}).")
        if not same(got.get("call_id"), r.call_id):
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


PNG = "iVBORw0KGgo="  # a few bytes of base64: the check never looks inside


def mcp_part(rng: random.Random, kind: str) -> tuple[types.ContentBlock, str]:
    """One content part of a kind, and the line the model should get for it (course/host/convert.py's rule)."""
    uri = f"docs://{rng.choice(WORDS)}/{rng.randint(1, 99)}"
    if kind == "text":
        text = sentence(rng, 4)
        return types.TextContent(type="text", text=text), text
    if kind == "image":
        mime = rng.choice(["image/png", "image/jpeg"])
        return types.ImageContent(type="image", data=PNG, mime_type=mime), f"[image omitted: {mime}]"
    if kind == "audio":
        return types.AudioContent(type="audio", data=PNG, mime_type="audio/wav"), "[audio omitted: audio/wav]"
    if kind == "link":
        return types.ResourceLink(type="resource_link", uri=uri, name=rng.choice(WORDS)), f"[resource link: {uri}]"
    if kind == "embedded":
        text = sentence(rng, 5)
        return (types.EmbeddedResource(type="resource", resource=types.TextResourceContents(uri=uri, text=text)),
                text)
    return (types.EmbeddedResource(type="resource", resource=types.BlobResourceContents(uri=uri, blob=PNG)),
            f"[binary resource {uri}]")


KINDS = ("text", "image", "audio", "link", "embedded", "blob")


def mcp_result(rng: random.Random, failed: bool, kinds: list[str]) -> tuple[types.CallToolResult, str]:
    parts = [mcp_part(rng, kind) for kind in kinds]
    return (types.CallToolResult(content=[p for p, _ in parts], is_error=failed),
            "\n".join(line for _, line in parts))


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
        got = rebuilt(got, ToolResult, "the ToolResult", "Build it as ToolResult(call_id, text, is_error).")
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


class Watched:
    """The SDK's stream as the learner's code reads it, counting the chunks taken: a piece handed to on_text
    after the next chunk was read did not stream."""

    def __init__(self, stream):
        self.stream, self.pulled = stream, 0
        self.deltas: list[tuple[int, str]] = []  # (the chunk's number, its text) for each chunk with text

    def __iter__(self):
        return self

    def __next__(self):
        chunk = next(self.stream)
        self.pulled += 1
        if chunk.choices and chunk.choices[0].delta.content:
            self.deltas.append((self.pulled, chunk.choices[0].delta.content))
        return chunk

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stream.close()

    def __getattr__(self, name):  # .response, .close(), ...: the SDK stream's own
        return getattr(self.stream, name)


@exercise("l7-stream", lesson=7, given=GIVEN)
def check_stream(collect):
    rng = draws()
    text = " ".join(rng.choices(WORDS, k=rng.randint(5, 12)))
    client = ScriptedModel([text]).client(max_retries=0)
    chunks = client.chat.completions.create(model="gpt-5.5", messages=[{"role": "user", "content": "hi"}],
                                            stream=True, stream_options={"include_usage": True})
    watched = Watched(chunks)
    seen: list[tuple[int, str]] = []  # (chunks taken when on_text was called, the piece)
    try:
        got = plain(collect(watched, lambda piece: seen.append((watched.pulled, plain(piece)))))
    except IndexError:
        raise NotYet("the last chunk (the usage) has no choices: skip chunks whose choices list is empty "
                     "(`if not chunk.choices: continue`).") from None
    if not seen:
        raise NotYet("call on_text(piece) for each piece of text as it arrives: that is what makes it a stream.")
    pieces = [piece for _, piece in seen]
    if not all(isinstance(p, str) for p in pieces) or "".join(pieces) != text:
        raise NotYet(f"on_text should get every text delta, in order (it got {pieces!r:.160}).")
    deltas = watched.deltas
    late = [(at, piece) for (at, piece), (arrived, delta) in zip(seen, deltas, strict=False)
            if (at, piece) != (arrived, delta)]
    if late or len(seen) != len(deltas):
        at, piece = (late or seen)[0]
        raise NotYet(f"on_text got {piece!r} after {at} of the stream's chunks had been read, not as each piece "
                     f"arrived ({len(deltas)} chunks carried text; on_text was called {len(seen)} times): call "
                     "on_text(piece) inside the loop over the chunks, once per chunk with text, before reading the "
                     "next one.")
    if not same(got, text):
        raise NotYet(f"return the whole answer, the pieces joined (expected {text!r}, got {got!r}).")
    return f"{len(seen)} pieces, in order, and the whole answer at the end."


def question(rng: random.Random, doc: str, section: str, also: tuple[str, ...] = ()) -> Question:
    return Question(sentence(rng), doc, section, also)  # as load_questions makes them: the lesson's `heldout`


@exercise("l7-success-rate", lesson=7, given=GIVEN)
def check_success_rate(success_rate):
    rng = draws()
    docs = rng.sample(["refunds", "returns", "shipping", "warranty", "payments"], 5)
    qs = [question(rng, docs[0], "Time limits"), question(rng, docs[1], "Delivery costs", ("Carriers",)),
          question(rng, docs[2], "Overview"), question(rng, docs[3], "Making a claim"),
          question(rng, docs[4], "Exceptions")]
    answers = [f"Yes. (Source: {docs[0]} › Time limits)",      # right
               f"It depends. (Source: {docs[1]} › Carriers)",  # right: an `also` section
               f"No idea. (Source: {docs[3]} › Overview)",     # right section name, wrong document
               None,                                           # the run ended without an answer
               # the right document and the right section's name, but not cited together: wrong
               f"See {docs[4]}. (Source: {docs[0]} › Exceptions)"]
    order = rng.sample(range(len(qs)), len(qs))  # where each case stands is drawn too
    qs, answers = [qs[i] for i in order], [answers[i] for i in order]
    try:
        got = plain(success_rate(answers, qs))
    except (TypeError, KeyError) as e:
        raise NotYet(f"your code raised {type(e).__name__} ({e}) on the questions: they are Question objects, as "
                     "in the lesson's `heldout` (not dicts): read q.doc, q.section and q.also (a tuple, often "
                     "empty).") from None
    rate = None if not isinstance(got, (int, float)) or isinstance(got, bool) else got
    if rate is not None and abs(rate - 0.8) < 1e-9:
        raise NotYet("two answers cite the right section's name in the wrong document: compare "
                     "'document › section' together, not the section alone.")
    if rate is not None and abs(rate - 0.6) < 1e-9:
        raise NotYet("an answer that names the question's document and, in another citation, its section "
                     "counted as right: look for the citation 'document › section' as one text, the question's "
                     "doc with one of its sections.")
    if rate is not None and abs(rate - 0.2) < 1e-9:
        raise NotYet("an answer that cites one of the question's 'also' sections is right too.")
    if rate is None or abs(rate - 0.4) > 1e-9:
        raise NotYet(f"2 of these 5 answers cite a right section, so the rate is 0.4 (got {got!r}).")
    try:
        empty = plain(success_rate([], []))
    except ZeroDivisionError:
        empty = None
    if not same(empty, 0):
        raise NotYet("with no questions there is nothing to succeed at: return 0 (dividing by len(questions) "
                     "fails when there are none).")
    return "the same rule as the evaluation table's 'task success'."
