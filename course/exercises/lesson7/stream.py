"""The check of `l7-stream`: text handed on as each chunk of a stream arrives."""

from __future__ import annotations

from course.exercises import NotYet, exercise
from course.exercises.lesson7.cases import WORDS
from course.exercises.lesson7.given import GIVEN
from course.exercises.seeds import draws
from course.model_id import MODEL
from course.scripted import ScriptedModel


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
    chunks = client.chat.completions.create(model=MODEL, messages=[{"role": "user", "content": "hi"}],
                                            stream=True, stream_options={"include_usage": True})
    watched = Watched(chunks)
    seen: list[tuple[int, str]] = []  # (chunks taken when on_text was called, the piece)
    try:
        got = collect(watched, lambda piece: seen.append((watched.pulled, piece)))
    except IndexError:
        raise NotYet("the last chunk (the usage) has no choices.",
                     "skip chunks whose choices list is empty (`if not chunk.choices: continue`).") from None
    if not seen:
        raise NotYet("call on_text(piece) for each piece of text as it arrives.",
                     "that is what makes it a stream.")
    pieces = [piece for _, piece in seen]
    if not all(isinstance(p, str) for p in pieces) or "".join(pieces) != text:
        raise NotYet(f"on_text got {pieces!r:.160}, not every text delta in order.",
                     "call on_text(chunk.choices[0].delta.content) for each chunk with text, in the order they come.")
    deltas = watched.deltas
    late = [(at, piece) for (at, piece), (arrived, delta) in zip(seen, deltas, strict=False)
            if (at, piece) != (arrived, delta)]
    if late or len(seen) != len(deltas):
        at, piece = (late or seen)[0]
        raise NotYet(f"on_text got {piece!r} after {at} of the stream's chunks had been read, not as each piece "
                     f"arrived ({len(deltas)} chunks carried text; on_text was called {len(seen)} times).",
                     "call on_text(piece) inside the loop over the chunks, once per chunk with text, before "
                     "reading the next one.")
    if got != text:
        raise NotYet(f"collect returned {got!r}; the whole answer is {text!r}.",
                     "keep each piece in a list as you hand it on and return ''.join(pieces).")
    return f"{len(seen)} pieces, in order, and the whole answer at the end."
