"""What a human reads of text a model or a server chose: escaped, look-alikes named, long values capped.

    shown("n\u043ethwind")          -> "n\u043ethwind (mixed scripts: \u043e CYRILLIC SMALL LETTER O)"
    capped("x" * 3000, 20)          -> "xxxxxxxxxxxxxxxxxxxx… (2,980 more characters)"
    collapsed("a" + " " * 3000 + "b") -> "a [3,000 spaces] b"

`printable` (course/show.py) escapes control, format and invisible characters; `lookalikes`
names the letters of another script inside a word (a Cyrillic `о` in `nоrthwind`), and the letters
of a word written wholly in letters drawn like Latin ones (`аррӏе.сом`, `А1002`), from the
`confusable-homoglyphs` tables; `collapsed` and `capped` keep one value from pushing the rest
of a prompt off the screen.
"""

from __future__ import annotations

import re
import unicodedata

from course.show import printable

WORD = re.compile(r"[^\W_]+(?:[._@-][^\W_]+)*")  # a word, or a dotted / dashed name such as a host name
SPACES = re.compile(r"\s{4,}")
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


def shown(text: object) -> str:
    """`text` escaped for a human, with its look-alike letters named after it."""
    marks = lookalikes(str(text))
    return printable(str(text)) + (f" (mixed scripts: {', '.join(marks)})" if marks else "")


def collapsed(text: str) -> str:
    """Runs of whitespace (4 or more) as one note: 3,000 spaces cannot push the rest of a value away."""
    return SPACES.sub(lambda m: f" [{len(m.group(0)):,} spaces] ", text)


def capped(text: str, limit: int) -> str:
    """`text` cut to `limit` characters, saying how many more there are."""
    return text if len(text) <= limit else f"{text[:limit]}… ({len(text) - limit:,} more characters)"
