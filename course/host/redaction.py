"""Secrets out of what a server wrote, before a human (or a saved notebook) reads it (lesson 6, lesson 8).

A crashing server's stderr is shown to the person running the host, and a notebook keeps it in
its outputs. `redact` replaces what looks like a secret with `***`: the patterns of a maintained
detector (`detect-secrets`' plugins: AWS, GitHub, Slack, Stripe, JWT, private keys, keyword
assignments, ...) and the spellings servers print — `DB_PASSWORD=...`, `OPENAI_API_KEY: ...`,
JSON `"password": "..."`, `Authorization: Bearer ...`, `postgres://user:password@host`.
It is a screen for accidents, not a guarantee: a secret with no telling name or shape passes.
"""

from __future__ import annotations

import functools
import re

__all__ = ["MASK", "redact"]

MASK = "***"
_URL_PASSWORD = re.compile(r"(\b[a-zA-Z][\w+.-]*://[^\s:/@]+:)[^\s@/]+@")
# A name that says "secret" (also inside DB_PASSWORD or OPENAI_API_KEY: `_` defeats \b), then = or :,
# then the value, quoted or not; JSON keys are quoted. Matched over the whole text, not line by line:
# pretty-printed JSON puts `"password":` on one line and its value on the next.
_SECRET_NAME = (r"(?:password|passwd|pwd|(?<![a-z])pass(?![a-z])|secret|token|api[_-]?key|access[_-]?key"
                r"|private[_-]?key|credentials?|auth[_-]?key|client[_-]?secret|session[_-]?id|cookie)")
_NAMED = re.compile(rf"""(?ix)
    ( ["']? [\w.-]*? {_SECRET_NAME} [\w.-]* ["']? \s* [=:] \s* )
    ( "[^"\n]*" | '[^'\n]*' | [^\s"',;&]+ )""")
# A command line's flag: `--password hunter2`, `--api-key=...` (a space or = between flag and value).
_FLAG = re.compile(rf"(?i)((?<![\w-])--?[\w-]*?{_SECRET_NAME}(?:\s+|=))(?!-)(\S+)")
_AUTHORIZATION = re.compile(r"(?i)\b(authorization\s*[=:]\s*[\"']?(?:bearer|basic|token)\s+)[^\s\"',;]+")
_SKIPPED = {"Base64HighEntropyString", "HexHighEntropyString"}  # they flag every hash and id: unreadable logs


@functools.cache
def _detectors() -> tuple:
    """detect-secrets' plugins (loaded once, on first use: about half a second)."""
    from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class

    plugins: list[type] = list(get_mapping_from_secret_type_to_class().values())
    return tuple(cls() for cls in plugins if cls.__name__ not in _SKIPPED)


def _quoted(match: re.Match) -> str:
    value = match.group(2)
    return match.group(1) + (value[0] + MASK + value[0] if value[:1] in "\"'" and len(value) > 1 else MASK)


def _line(line: str) -> str:
    line = _AUTHORIZATION.sub(rf"\1{MASK}", _URL_PASSWORD.sub(rf"\1{MASK}@", line))
    line = _FLAG.sub(rf"\1{MASK}", line)
    found: set[str] = set()
    for detector in _detectors():
        for pattern in getattr(detector, "denylist", ()):  # the shape of a key: mask the whole match
            found.update(m.group(0) for m in pattern.finditer(line))
        if not getattr(detector, "denylist", ()):
            found.update(s.secret_value or "" for s in detector.analyze_line(filename="stderr", line=line,
                                                                              line_number=0))
    for secret in sorted((s for s in found if len(s) >= 4 and s != MASK), key=len, reverse=True):
        line = line.replace(secret, MASK)
    return line


def redact(text: str) -> str:
    """`text` with what looks like a secret replaced by ***, line by line."""
    if not text:
        return text
    return "\n".join(_line(line) for line in _NAMED.sub(_quoted, text).split("\n"))
