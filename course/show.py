"""Small display helpers: the real source, JSON, tables, and text a model or a server chose, made safe to read.

    shown("n\u043ethwind")          -> "n\u043ethwind (mixed scripts: \u043e CYRILLIC SMALL LETTER O)"

`lookalikes` names the letters of another script inside a word (a Cyrillic `о` in `nоrthwind`),
and the letters of a word written wholly in letters drawn like Latin ones (`аррӏе.сом`, `А1002`),
from the `confusable-homoglyphs` tables.
"""

from __future__ import annotations

import inspect
import itertools
import json
import re
import unicodedata
from typing import Any

from course.paths import ROOT


def source(obj: Any) -> None:
    """Display the source of a course function or class: the code that actually runs."""
    from IPython.display import Markdown, display

    path = inspect.getsourcefile(obj)
    where = path.replace(str(ROOT) + "/", "") if path else "?"
    code = inspect.getsource(obj).rstrip()
    display(Markdown(f"`{where}` · `{obj.__qualname__}`\n```python\n{code}\n```"))


def printable(text: str) -> str:
    """`text` with every control and formatting character written as an escape (`\\x1b`, `\\u202e`).

    For text a model or a server wrote that a human reads: a carriage return, an ANSI escape or
    a right-to-left override could otherwise redraw the line and fake what it says.
    Three and more combining marks in a row are counted instead of drawn (`a [200 combining marks]`).
    """
    return "".join(ch if (ch.isprintable() or ch == " ") and ch not in _IGNORABLE else _escape(ch)
                   for ch in _counted_marks(str(text)))


def _counted_marks(text: str) -> str:
    """`text` with each run of three and more combining marks as a count: `a [200 combining marks]`.

    Stacked on one letter (Zalgo), 200 accents draw one tall smear over the lines above and below and hide
    what they say. A letter carries one or two (Vietnamese `ệ` is e + two), so those stay as written.
    """
    runs = [(mark, "".join(chars)) for mark, chars in
            itertools.groupby(text, lambda ch: unicodedata.category(ch) in ("Mn", "Me"))]
    return "".join(f" [{len(run):,} combining marks]" + (" " if i < len(runs) - 1 else "") if mark and len(run) > 2
                   else run for i, (mark, run) in enumerate(runs))


# Unicode's default-ignorable characters that Python calls printable: drawn as nothing (U+034F, the variation
# selectors U+FE00-FE0F, Hangul fillers), so "look\u034fup" reads as "lookup". The rest are format characters.
_IGNORABLE = frozenset([chr(c) for c in (0x034F, 0x115F, 0x1160, 0x17B4, 0x17B5, 0x3164, 0xFFA0)]
                       + [chr(c) for c in range(0x180B, 0x1810)] + [chr(c) for c in range(0xFE00, 0xFE10)]
                       + [chr(c) for c in range(0xE0100, 0xE01F0)])


def _escape(ch: str) -> str:
    if unicodedata.category(ch) == "Zs":  # an odd space (no-break, em): shown as a plain one
        return " "
    code = ord(ch)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


# -- look-alikes: one implementation for the approval prompt, the host's notes and the decision log --------
WORD = re.compile(r"[^\W_]+(?:[._@-][^\W_]+)*")  # a word, or a dotted / dashed name such as a host name
SHARED = ("COMMON", "INHERITED")  # digits, punctuation, combining marks: every script uses them


def lookalikes(text: str) -> list[str]:
    """The letters of a minority script in each mixed-script word of `text`, e.g. `о CYRILLIC SMALL LETTER O`."""
    from confusable_homoglyphs import categories, confusables  # type: ignore[import-untyped]

    found: list[str] = []
    for word in WORD.findall(str(text)):
        if not confusables.is_mixed_script(word):
            found += [f"{ch} {unicodedata.name(ch, hex(ord(ch)))}" for ch in dict.fromkeys(_posing_as_latin(word))]
            continue
        scripts = [categories.alias(ch) for ch in word if categories.alias(ch) not in SHARED]
        main = max(sorted(set(scripts)), key=scripts.count)
        for ch in dict.fromkeys(ch for ch in word if categories.alias(ch) not in (*SHARED, main)):
            found.append(f"{ch} {unicodedata.name(ch, hex(ord(ch)))}")
    return found


def _posing_as_latin(word: str) -> list[str]:
    """A one-script word whose every letter is drawn like a Latin one (`аррӏе.сом`, `А1002`): its letters, else []."""
    from confusable_homoglyphs import categories, confusables

    letters = [ch for ch in word if categories.alias(ch) not in SHARED]
    if not letters or any(categories.alias(ch) == "LATIN" for ch in letters):
        return []
    return letters if all(confusables.is_confusable(ch, preferred_aliases=["latin"]) for ch in letters) else []


# Whitespace, and the braille blank (U+2800: a symbol, drawn as a space, that \s does not match).
SPACES = re.compile(r"[\s\u2800]{4,}")


def collapsed(text: str) -> str:
    """Runs of whitespace (4 or more) as one note: 3,000 spaces cannot push the rest of a value away."""
    return SPACES.sub(lambda m: f" [{len(m.group(0)):,} spaces] ", text)


def lookalike_note(text: object) -> str:
    """`text`'s look-alike letters as a note to put after it: " (mixed scripts: о CYRILLIC SMALL LETTER O)", or ""."""
    marks = lookalikes(str(text))
    return f" (mixed scripts: {', '.join(marks)})" if marks else ""


def named(text: object, width: int = 60) -> str:
    """A name a server chose, for a note or a log row: whitespace runs counted, escaped, cut at `width`, and its
    look-alikes named after the cut (so the cut cannot hide them). `"weather" + 3,000 spaces` stays one short line."""
    flat = printable(collapsed(str(text)))
    return (flat if len(flat) <= width else flat[:width - 1] + "…") + lookalike_note(text)


def shown(text: object) -> str:
    """`text` escaped for a human, with its look-alike letters named after it."""
    return printable(str(text)) + lookalike_note(text)


def as_json(data: Any) -> None:
    """Print data as indented JSON (what travels on the wire)."""
    if hasattr(data, "model_dump"):
        data = data.model_dump(exclude_none=True, by_alias=True)
    print(json.dumps(data, indent=2, ensure_ascii=False, default=str))


def table(rows: list[dict], columns: list[str] | None = None) -> None:
    """Print rows as a plain-text table (plain text keeps notebook outputs stable)."""
    if not rows:
        print("(no rows)")
        return
    columns = columns or list(rows[0])
    cells = [[str(r.get(c, "")) for c in columns] for r in rows]
    widths = [max(len(c), *(len(row[i]) for row in cells)) for i, c in enumerate(columns)]
    print("  ".join(c.ljust(w) for c, w in zip(columns, widths, strict=True)).rstrip())
    print("  ".join("-" * w for w in widths))
    for row in cells:
        print("  ".join(v.ljust(w) for v, w in zip(row, widths, strict=True)).rstrip())
