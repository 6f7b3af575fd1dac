"""Small display helpers for the notebooks: show the package's real source, JSON, tables."""

from __future__ import annotations

import inspect
import json
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
    """
    return "".join(ch if (ch.isprintable() or ch == " ") and ch not in _IGNORABLE else _escape(ch) for ch in str(text))


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
