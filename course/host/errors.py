"""Turn what goes wrong between a host and a server into a sentence a learner can act on (lesson 6).

The SDK reports most failures as an `ExceptionGroup` around an `MCPError` ("Connection
closed", "Server returned an error response") that does not say *why*. `explain` looks at
the leaf exceptions and at what the host observed (the child's stderr, the HTTP status,
text the server wrote to stdout) and says what is wrong and what to check.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from urllib.parse import urlsplit

import httpx2
from mcp import MCPError
from mcp.types import CONNECTION_CLOSED, INTERNAL_ERROR, REQUEST_TIMEOUT  # -32000, -32603, -32001

from course.errors import CallRejected, ServerError
from course.host.redaction import redact
from course.show import printable


@dataclass
class Observed:
    """What the host saw of a connection, besides the exception itself."""

    stderr: str = ""  # the tail of a stdio child's stderr
    http_status: int | None = None  # the last HTTP error status, if any
    token_sent: bool = False
    stdout_noise: list[str] = field(default_factory=list)  # lines a stdio server wrote that are not JSON-RPC
    mangled: bool = False  # one of those lines held an MCP message: text printed without a newline ran into it


def leaves(exc: BaseException) -> Iterator[BaseException]:
    """The exceptions inside (nested) exception groups, innermost first."""
    if isinstance(exc, BaseExceptionGroup):
        for inner in exc.exceptions:
            yield from leaves(inner)
    else:
        yield exc


def _unreachable(found: list[BaseException], server: str, where: str) -> ServerError | None:
    """The error for a server that could not be started or reached at all, if that is what happened."""
    for e in found:
        if isinstance(e, FileNotFoundError | PermissionError) and not isinstance(e, httpx2.HTTPError):
            return ServerError(server, f"could not start `{where}`: {e.strerror or e}.",
                               "the command exists and is executable. For a Python server use "
                               "stdio('module.name') or stdio('path/to/server.py'): they run this course's "
                               "interpreter (sys.executable).")
        if isinstance(e, httpx2.UnsupportedProtocol):
            return ServerError(server, f"{where} is not a URL the client can use ({sentence(e)})",
                               "the URL must start with http:// (or https://), e.g. http://127.0.0.1:8000/mcp.")
        if isinstance(e, httpx2.ConnectError | httpx2.ConnectTimeout):
            return ServerError(server, f"nothing answers at {where} ({e}).",
                               "is the server running? Start it first (for the course's server: "
                               "`python -m course.servers.docs --transport streamable-http --port N`), "
                               "then check the host name and port in the URL.")
    return None


STDOUT_INTRO = "It wrote this to stdout, which is reserved for MCP messages"


def _mangled(seen: Observed, server: str, where: str, during: str) -> ServerError | None:
    """The reply arrived glued to printed text: waiting longer would never help."""
    if not seen.mangled:
        return None
    return ServerError(server, f"text the server printed to stdout ran into an MCP reply while {during}, "
                               "so the reply could not be read.",
                       "a stdio server must print nothing to stdout (here: text printed without a newline "
                       f"before the reply); log to stderr instead. Run `{where}` in a terminal to see it.",
                       _quote("\n".join(seen.stdout_noise), STDOUT_INTRO))


def explain(exc: BaseException, server: str, where: str, seen: Observed, *, during: str = "connecting") -> ServerError:
    """A `ServerError` for `exc`, raised while `during` (e.g. "connecting", "calling lookup")."""
    found = list(leaves(exc))
    codes = {e.code for e in found if isinstance(e, MCPError)}
    stderr = _quote(seen.stderr, "Its last lines on stderr")
    noise = _quote("\n".join(seen.stdout_noise), STDOUT_INTRO)

    early = _unreachable(found, server, where) or _mangled(seen, server, where, during)
    if early is not None:
        return early
    status = seen.http_status
    if status == 401:
        problem = ("the server requires a bearer token (401 Unauthorized) and the token was rejected."
                   if seen.token_sent else "the server requires a bearer token (401 Unauthorized) and none was sent.")
        return ServerError(server, problem, "pass the token the server expects: http(url, token=...). "
                                            "Tokens usually come from an environment variable, never from code.")
    if status == 403:
        return ServerError(server, "the server refused the request (403 Forbidden).",
                           "the token's permissions (scopes), or the Origin the server accepts.")
    if status == 404:
        if urlsplit(where).path in ("", "/"):  # the most common slip: the URL of the server, not of its endpoint
            check = f"the URL has no path: add /mcp, e.g. {where.rstrip('/')}/mcp."
        else:
            check = "the path: Streamable HTTP servers usually answer at /mcp, e.g. http://127.0.0.1:8000/mcp."
        return ServerError(server, f"there is no MCP endpoint at {where} (404 Not Found).", check)
    if status == 413 and during != "connecting":  # turned away for its size before it ran
        return CallRejected(server, "the server refused the call as too large (HTTP 413 Content Too Large).",
                            "the server's request size limit; a tool that needs more data should read it itself.")
    if status == 421:
        return ServerError(server, "the server rejected the Host header (421): DNS-rebinding protection.",
                           "connect with the host name the server was started with (127.0.0.1 or localhost).")
    if REQUEST_TIMEOUT in codes or any(isinstance(e, TimeoutError) for e in found):
        what = "answer its first MCP request" if during == "connecting" else f"answer while {during}"
        over_http = where.startswith(("http://", "https://"))  # nothing to run in a terminal: busy or stuck
        return ServerError(server, f"the server did not {what} in time.",
                           "the server's own terminal or log: it may be busy or still starting (a class server "
                           "loads its index at its start). Raise the timeout if it is just slow." if over_http else
                           "a stdio server must print nothing to stdout and start quickly; run "
                           f"`{where}` in a terminal to see what it does. Raise the timeout if the tool is "
                           "just slow.", "" if over_http else noise + stderr)
    if CONNECTION_CLOSED in codes or any(isinstance(e, httpx2.RemoteProtocolError) for e in found):
        if during == "connecting":
            return ServerError(server, "the server stopped before it answered its first MCP request.",
                               _start_hint(seen.stderr, where), noise + stderr)
        return ServerError(server, f"the server stopped while {during} (it crashed or was killed); "
                                   "the connection is gone.",
                           ("the server's stderr above" if stderr else f"the server's log (or run `{where}` "
                            "in a terminal and repeat the call)") + "; fix the server, then connect again.", stderr)
    if INTERNAL_ERROR in codes:
        said = next(e.message for e in found if isinstance(e, MCPError) and e.code == INTERNAL_ERROR)
        return ServerError(server, f"the server failed while {during} (internal error -32603).",
                           "the server's log; the call may be worth repeating once the server is fixed.",
                           _quote(str(said), "It said") + stderr)
    if status is not None:
        return ServerError(server, f"the server answered HTTP {status}.", f"the URL {where} and the server's log.")
    first = found[0] if found else exc
    if isinstance(first, MCPError):  # the code is ours to repeat; the message is the server's
        return ServerError(server, f"{during} failed: MCP error {first.code}.", "the server's log and the address "
                           + where, _quote(first.message, "It said") + stderr)
    return ServerError(server, f"{during} failed: {sentence(f'{type(first).__name__}: {first}')}",
                       "the server's log and the address " + where, stderr)


def sentence(text: object) -> str:
    """`text` ending in exactly one period."""
    return str(text).rstrip().rstrip(".") + "."


CLEAR_WORDS = 300  # characters: a server's refusal is a sentence or two, never a page


def one_line(text: object) -> str:
    """A server's message redacted, then on one line. In that order: "DB_PASSWORD<TAB>hunter2" flattened first
    reads as prose ("DB_PASSWORD hunter2"), which `redact` leaves alone, and the secret reaches the model."""
    return " ".join(redact(str(text)).split())


def clear_words(text: object) -> str | None:
    """A server's message as the model may read it: one plain line of at most `CLEAR_WORDS` characters,
    with nothing `redact` would hide and no control or invisible character; None when it is not that."""
    said = " ".join(str(text).split())  # redacted as written: "DB_PASSWORD<TAB>..." flattened reads as prose
    if not said or len(said) > CLEAR_WORDS or redact(str(text)) != str(text) or printable(said) != said:
        return None
    return sentence(said)


def _start_hint(stderr: str, where: str) -> str:
    if "No module named" in stderr:
        return f"the module name in `{where}`: the server's interpreter cannot import it."
    if "error: unrecognized arguments" in stderr or "error: argument" in stderr:
        return f"the arguments after the module or script in `{where}`: the server's usage line above lists them."
    if "can't open file" in stderr or "No such file" in stderr:
        return f"the script path in `{where}` (relative paths start from the current directory)."
    if stderr.strip():  # it said why it stopped: that is the lead, not how a server should behave
        return (f"its last lines on stderr above say why it stopped; fix that (a setting, a service it needs), "
                f"then run `{where}` in a terminal: it should wait for input.")
    return f"run `{where}` in a terminal: a stdio server should wait for input without printing to stdout."


def _quote(text: str, intro: str, limit: int = 6) -> str:
    lines = [line for line in redact(text).strip().splitlines() if line.strip()][-limit:]
    return f"\n  {intro}:\n" + "\n".join(f"    | {printable(line[:200])}" for line in lines) if lines else ""
