"""Secrets out of what a server wrote, before a human (or a saved notebook) reads it (lesson 6, lesson 8).

A crashing server's stderr is shown to the person running the host, and a notebook keeps it in
its outputs. `redact` replaces what looks like a secret with `***`: the patterns of a maintained
detector (`detect-secrets`' plugins: AWS, GitHub, Slack, Stripe, JWT, private keys, keyword
assignments, ...) and the spellings servers print — `DB_PASSWORD=...`, `OPENAI_API_KEY: ...`,
JSON `"password": "..."` (also escaped inside a string), `<password>...</password>`, `Authorization:
Bearer ...` however quoted, a bare `Bearer ...`, `postgres://user:password@host` (also `redis://:pw@`,
and a password holding `/` or `@`), a token as a URL's user (any user but a plain lower-case name),
a name and its value with only a tab or wide space between (`DB_PASSWORD<TAB>...`), `=>`,
`curl -u user:pw`, `?key=` / `?sig=`, env names ending in `_KEY` / `_AUTH`, OpenAI-style `sk-...` keys;
and base64 whose decoded text would be redacted (`cGFzc3dvcmQ9...` is `password=...`).
It is a screen for accidents, not a guarantee: a secret with no telling name or shape passes.
"""

from __future__ import annotations

import base64
import functools
import re

__all__ = ["MASK", "redact"]

MASK = "***"
# scheme://user:password@host: the user may be empty (redis://:pw@), the password may hold an unencoded `/` or `@`
# (the last `@` before something shaped like a host ends it); a long user with no password is a token (x@git...).
_URL_PASSWORD = re.compile(r"(\b[a-zA-Z][\w+.-]*://[^\s:/@]*:)[^\s?#]*?@(?=[\w.-]+(?:[:/?#\s]|$))")
# A URL's user before `@` (or before `:password@`): a token unless it is a plain lower-case name (`git@`, `john.doe@`).
_URL_USER = re.compile(r"(?i)(\b[a-z][\w+.-]*://)([\w.~%!$&'*+,;=-]+)(?=@|:[^\s@/]*@)")
_PLAIN_USER = re.compile(r"[a-z]+(?:[._-][a-z]+)*")
_QUERY = re.compile(r"(?i)([?&](?:key|sig|signature|x-amz-signature|auth)=)[^\s&#]+")
_CURL_USER = re.compile(r"((?<![\w-])(?:-u|--user)\s+[^\s:]+:)\S+")
_ENV_NAMED = re.compile(r"(\b(?:[A-Z][A-Z0-9_]*_(?:KEY|AUTH|SIG|SIGNATURE)|AUTH)(?:\s*[=:]\s*|[^\S\r\n]*\t\s*)"
                        r")(\S+)")  # STRIPE_KEY=, STRIPE_KEY<TAB>
_XML = re.compile(r"(?i)(<\s*[\w:.-]*(?:password|passwd|passphrase|secret|token|api[_-]?key)[\w:.-]*\s*>)[^<]+")
_OPENAI_KEY = re.compile(r"\bsk-(?:[a-z]+-)?[A-Za-z0-9_-]{20,}")
_BASE64 = re.compile(r"(?<![\w+/-])[A-Za-z0-9+/_-]{16,}={0,2}(?![\w+/=-])")
# A name that says "secret" (also inside DB_PASSWORD or OPENAI_API_KEY: `_` defeats \b), then = or :,
# then the value, quoted or not; JSON keys are quoted. Matched over the whole text, not line by line:
# pretty-printed JSON puts `"password":` on one line and its value on the next.
_SECRET_NAME = (r"(?:password|passwd|passphrase|pwd|(?<![a-z])pass(?![a-z])|secret|token|api[_-]?key|access[_-]?key"
                r"|private[_-]?key|credentials?|auth[_-]?key|client[_-]?secret|session[_-]?id|cookie)")
# Or no sign at all, only whitespace a sentence does not put between two words: a tab (`DB_PASSWORD<TAB>hunter2`,
# as `env`-style tables print), another odd space, or two and more spaces (aligned columns). One space is prose.
_GAP = r"[^\S\r\n]*[^\S\r\n ][^\S\r\n]*|[ ]{2,}"
_NAMED = re.compile(rf"""(?ix)
    ( \\? ["']? [\w.-]*? {_SECRET_NAME} [\w.-]* \\? ["']? (?: \s* (?:=>|->|[=:]) \s* | {_GAP} ) )
    ( \\"(?:[^\\\n]|\\[^"])*\\" | "[^"\n]*" | '[^'\n]*' | [^\s"',;&\\]+ )""")  # \"..\": JSON inside a string
# A command line's flag: `--password hunter2`, `--api-key=...` (a space or = between flag and value).
_FLAG = re.compile(rf"(?i)((?<![\w-])--?[\w-]*?{_SECRET_NAME}(?:\s+|=))(?!-)(\S+)")
# Authorization however quoted (a header, JSON, a dict's repr, a URL's %20); a Bearer token anywhere (RFC 6750 shape).
_AUTHORIZATION = re.compile(r"(?i)\b(authorization[\"']?\s*[=:]\s*[\"']?(?:bearer|basic|token|digest)(?:\s+|%20))"
                            r"[^\s\"',;&]+")
_BEARER = re.compile(r"(?i)\b(bearer(?:\s+|%20))[A-Za-z0-9._~+/-]{8,}=*")
_COLOR = re.compile(r"\x1b\[[0-9;:]*m")  # SGR: colors and bold, nothing that moves the cursor or erases
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


def _user(match: re.Match) -> str:
    user = match.group(2)
    return match.group(0) if len(user) < 20 and _PLAIN_USER.fullmatch(user) else match.group(1) + MASK


def _line(line: str) -> str:
    line = _AUTHORIZATION.sub(rf"\1{MASK}", _URL_PASSWORD.sub(rf"\1{MASK}@", _URL_USER.sub(_user, line)))
    line = _BEARER.sub(rf"\1{MASK}", line)
    for pattern in (_FLAG, _QUERY, _CURL_USER, _ENV_NAMED, _XML):
        line = pattern.sub(rf"\1{MASK}", line)
    line = _BASE64.sub(_encoded, _OPENAI_KEY.sub(MASK, line))
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


def _encoded(match: re.Match) -> str:
    """A base64 (or base64url) word whose decoded text holds a secret, masked whole; any other word as it was."""
    word = match.group(0)
    try:
        decoded = base64.b64decode(word.replace("-", "+").replace("_", "/") + "=" * (-len(word) % 4),
                                   validate=True).decode()
    except (ValueError, UnicodeDecodeError):
        return word
    # Redacted as any text is (the decoded text is shorter, so the recursion ends).
    return MASK if decoded.isprintable() and _line(_NAMED.sub(_quoted, decoded)) != decoded else word


def redact(text: str) -> str:
    """`text` with what looks like a secret replaced by ***, line by line."""
    if not text:
        return text
    # Colors out (structlog, rich, loguru): `\x1b[36mpassword\x1b[0m=...` puts a code between a name and its value,
    # and escaped for a human they are only noise. Other escapes (`\x1b[2K` rewrites a line) stay, to be shown.
    text = _COLOR.sub("", text)
    # A URL's user first: `https://abc123token:@host` would otherwise read as a name ("...token") and its value.
    return "\n".join(_line(line) for line in _NAMED.sub(_quoted, _URL_USER.sub(_user, text)).split("\n"))
