"""What an approval prompt shows of text a model or a server chose: long values capped, whitespace collapsed.

    capped("x" * 3000, 20)          -> "xxxxxxxxxxxxxxxxxxxx… (2,980 more characters)"
    collapsed("a" + " " * 3000 + "b") -> "a [3,000 spaces] b"

Escaping and look-alikes are `course.show`'s (`printable`, `shown`, `lookalikes`): the decision
log, below this layer, marks them the same way. `collapsed` and `capped` keep one value from
pushing the rest of a prompt off the screen.
"""

from __future__ import annotations

import unicodedata

from course.show import collapsed as collapsed  # the host's notes and the decision log collapse the same way


def cells(ch: str) -> int:
    """Terminal cells one character takes: two for a wide letter, one for every other."""
    return 2 if unicodedata.east_asian_width(ch) in "WF" else 1


def rows(line: str, columns: int = 80) -> int:
    """Rows `line` takes on a terminal `columns` wide, wrapped."""
    return max(1, -(-sum(map(cells, line)) // columns))


def capped(text: str, limit: int) -> str:
    """`text` cut to `limit` terminal cells, saying how many more characters there are.

    Cells, not characters: a wide letter (`Ａ`, `訂`) takes two, so 150 of them would fill four lines
    and push the tool off an 80x24 screen. Every other character counts as one.
    """
    used = 0
    for i, ch in enumerate(text):
        used += cells(ch)
        if used > limit:
            return f"{text[:i]}… ({len(text) - i:,} more characters)"
    return text
