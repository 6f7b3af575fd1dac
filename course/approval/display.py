"""What an approval prompt shows of text a model or a server chose: long values capped, whitespace collapsed.

    capped("x" * 3000, 20)          -> "xxxxxxxxxxxxxxxxxxxx… (2,980 more characters)"
    collapsed("a" + " " * 3000 + "b") -> "a [3,000 spaces] b"

Escaping and look-alikes are `course.show`'s (`printable`, `shown`, `lookalikes`): the decision
log, below this layer, marks them the same way. `collapsed` and `capped` keep one value from
pushing the rest of a prompt off the screen.
"""

from __future__ import annotations

import re

SPACES = re.compile(r"\s{4,}")


def collapsed(text: str) -> str:
    """Runs of whitespace (4 or more) as one note: 3,000 spaces cannot push the rest of a value away."""
    return SPACES.sub(lambda m: f" [{len(m.group(0)):,} spaces] ", text)


def capped(text: str, limit: int) -> str:
    """`text` cut to `limit` characters, saying how many more there are."""
    return text if len(text) <= limit else f"{text[:limit]}… ({len(text) - limit:,} more characters)"
