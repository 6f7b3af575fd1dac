"""The class server's learners: a token each, and a workspace each (store, call log, credit budget).

    anna  3q0vS1...      # tokens.txt: one learner a line, "name token"; '#' starts a comment
    ben   Zk81fP...

"Shared server, per-tenant workspace": one server process serves the class, and every request
is served from the workspace of the learner whose token it carries. The token is checked by the
HTTP layer (no token, or an unknown one: 401) before any tool runs; the tools never take a
learner's name as an argument, so no call can name someone else's workspace. A token is a
bearer secret: whoever holds it is that learner, so hand each learner their own line only.
Lesson 8's small shared server (`workspaces.py`) and its gateway use the same token check and
lookup (`LearnerTokens`, `token_auth`, `LearnerMiddleware`) with workspaces of their own.
"""

from __future__ import annotations

import contextvars
import hmac
import json
import os
import re
import secrets
import sys
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from course.servers.auth import bearer_auth
from course.store import ShopStore

NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,39}$")  # also a folder name: no '/', no '..'
MIN_TOKEN_CHARS = 16


class TokensFileError(ValueError):
    """The tokens file cannot be used as it is; the message says which line and how to fix it."""


def new_tokens(names: Iterable[str]) -> str:
    """The text of a tokens file: one line per learner, each with a fresh random token."""
    lines = ["# The class MCP server's learners: 'name token'. Give each learner their own line only."]
    seen: set[str] = set()
    for name in names:
        if not NAME.match(name):
            raise TokensFileError(f"{name!r} cannot be a learner's name: use letters, digits, '.', '_' or '-'.")
        if name in seen:  # the file would be refused at the server's start: say so now, while it is unwritten
            raise TokensFileError(f"{name} appears twice: every learner needs a name of their own.")
        seen.add(name)
        lines.append(f"{name} {secrets.token_urlsafe(18)}")
    return "\n".join(lines) + "\n"


def read_names(path: Path) -> list[str]:
    """The learners' log-in names from a file, one a line ('#' starts a comment, blank lines skipped).
    A line of two words is one person's full name, not two learners: refused with the line's number
    (splitting it would make two accounts, neither of them the name the learner types)."""
    names = []
    for number, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
        name = line.split("#", 1)[0].strip()
        if not name:
            continue
        if not NAME.match(name):
            raise TokensFileError(f"{path}, line {number}: {name!r} cannot be a log-in name (one word of letters, "
                                  "digits, '.', '_' or '-', e.g. ben.smith for Ben Smith).")
        names.append(name)
    if not names:
        raise TokensFileError(f"{path} holds no name: the learners' log-in names, one a line.")
    return names


def write_tokens(path: Path, text: str) -> None:
    """Write a tokens file readable by its owner only from its first byte: made 0600 under a temporary
    name, then renamed into place (a file written, then chmod-ed, can be read in between)."""
    path = Path(path)
    temp = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)  # the mode is the file's from the start
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.chmod(temp, 0o600)  # the umask can only take rights away; this says what the file is, whatever it was
        os.replace(temp, path)
    except BaseException:
        temp.unlink(missing_ok=True)
        raise


def read_tokens(path: Path) -> dict[str, str]:
    """token -> learner, from a tokens file; a clear error for a bad line, a short or repeated token."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise TokensFileError(f"{path}: no such file. Make one with "
                              f"python -m course.classroom --new-tokens 30 --tokens {path}") from None
    learners: dict[str, str] = {}
    for number, line in enumerate(text.splitlines(), 1):
        words = line.split("#", 1)[0].split()
        if not words:
            continue
        if len(words) != 2 or not NAME.match(words[0]):
            raise TokensFileError(f"{path}, line {number}: expected 'name token' (a name of letters, digits, "
                                  "'.', '_' or '-'), got something else.")
        name, token = words
        if len(token) < MIN_TOKEN_CHARS:
            raise TokensFileError(f"{path}, line {number}: the token of {name} is shorter than "
                                  f"{MIN_TOKEN_CHARS} characters; generate the file with --new-tokens.")
        if token in learners or name in learners.values():
            raise TokensFileError(f"{path}, line {number}: {name} or their token appears twice; "
                                  "every learner needs a name and a token of their own.")
        learners[token] = name
    if not learners:
        raise TokensFileError(f"{path} holds no learner; add lines 'name token' or use --new-tokens.")
    return learners


def add_learner(path: Path, name: str) -> str:
    """Add `name` with a fresh token to the tokens file (rewritten 0600, atomically); returns their line.
    A class server and a hub started with this file take the new learner at their next request."""
    path = Path(path)
    known = read_tokens(path)
    if name in known.values():
        raise TokensFileError(f"{name} is in {path} already; their line is there (hand them that one).")
    line = new_tokens([name]).splitlines()[-1]
    text = path.read_text(encoding="utf-8")
    write_tokens(path, text + ("" if text.endswith("\n") else "\n") + line + "\n")
    return line


class TokensFile:
    """The tokens file, read again whenever it changes: a learner added during the class
    (`make class-add`) is let in without restarting anything. A file that became unusable
    (a half-edited line) keeps the learners of its last good version, and says why once."""

    def __init__(self, path: Path):
        self.path = Path(path)
        self._seen: tuple[int, int, int] | None = None
        self._learners: dict[str, str] = {}
        self.learners()  # a bad file at the start is the teacher's to fix now: TokensFileError

    def learners(self) -> dict[str, str]:
        """token -> learner, as the file says now (one `stat` per call; read only when it changed)."""
        try:
            st = os.stat(self.path)
        except OSError:
            if self._seen is None:
                read_tokens(self.path)  # its TokensFileError says what is wrong and how to make the file
                raise
            return self._learners  # renamed away for a moment (an editor's save): the last good version
        seen = (st.st_mtime_ns, st.st_size, st.st_ino)
        if seen != self._seen:
            try:
                self._learners = read_tokens(self.path)
            except TokensFileError as e:
                if self._seen is None:
                    raise
                print(f"{e} Kept the {len(self._learners)} learners of its last good version.", file=sys.stderr)
            self._seen = seen
        return self._learners


class LearnerTokens:
    """A `TokenVerifier`: a token from the tokens file names its learner (the `client_id`); anything else
    is refused, and the SDK answers 401. Given a `TokensFile`, it follows the file's changes."""

    def __init__(self, learners: dict[str, str] | TokensFile):
        self._source = learners if isinstance(learners, TokensFile) else dict(learners)

    @property
    def learners(self) -> dict[str, str]:
        return self._source.learners() if isinstance(self._source, TokensFile) else self._source

    async def verify_token(self, token: str):
        from mcp.server.auth.provider import AccessToken

        name = None
        for known, learner in self.learners.items():  # every comparison in constant time: no timing leak
            if hmac.compare_digest(token.encode(), known.encode()):
                name = learner
        return AccessToken(token=token, client_id=name, scopes=[]) if name else None


def token_auth(learners: dict[str, str] | TokensFile) -> dict[str, Any]:
    """`MCPServer` keyword arguments: every HTTP request needs one of these bearer tokens ({token: name})."""
    return bearer_auth(LearnerTokens(learners))


@dataclass
class Workspace:
    """One learner's state on the class server: their shop, their call log, their web credits."""

    learner: str
    folder: Path
    store: ShopStore
    api: Any = None  # a `WebAPI` with the learner's own `CreditBudget`
    calls: int = field(default=0)

    @property
    def log(self) -> Path:
        return self.folder / "calls.jsonl"

    def record(self, method: str, tool: str | None, ok: bool | None, seconds: float, refused: str = "") -> None:
        """One line per request: what, whether it worked (None: the client left before the answer, as a
        session's `subscriptions/listen` does at its normal end), how long; `refused`: the limit of their
        share that refused it unserved ("in-flight", "streams", "sessions"). No arguments, no token."""
        self.calls += 1
        entry: dict[str, Any] = {"at": round(time.time(), 3), "method": method, "tool": tool, "ok": ok,
                                 "ms": round(seconds * 1000, 1)}
        if refused:
            entry["refused"] = refused
        self.folder.mkdir(parents=True, exist_ok=True)  # the teacher may have reset them during this request
        with self.log.open("a", encoding="utf-8") as f:
            f.write(json.dumps(entry) + "\n")


class Workspaces:
    """Every learner's workspace, made on first use under `root/<learner>/`.

    A learner whose folder is gone (the teacher deleted it to reset them) gets a fresh workspace
    on their next request: a new shop and a new credit budget, not the old one from memory."""

    def __init__(self, root: Path, make_api: Callable[[], Any] | None = None):
        self.root = Path(root)
        self._make_api = make_api
        self._spaces: dict[str, Workspace] = {}

    def __getitem__(self, learner: str) -> Workspace:
        space = self._spaces.get(learner)
        if space is None or not space.folder.is_dir():
            folder = self.root / learner
            folder.mkdir(parents=True, exist_ok=True)
            api = self._make_api() if self._make_api else None
            space = self._spaces[learner] = Workspace(learner, folder, ShopStore(folder / "shop.json"), api)
        return space


# Any workspace object: the class server's `Workspace`, or lesson 8's small demo's (notes and credits).
_current: contextvars.ContextVar[Any] = contextvars.ContextVar("course_learner", default=None)


def current() -> Any:
    """The workspace of the learner (the tenant) whose request is being served."""
    space = _current.get()
    if space is None:  # only reachable if a tool runs outside a learner's request (a bug, not a learner's doing)
        from mcp.server.mcpserver.exceptions import ToolError

        raise ToolError("This server serves learners only: connect with your own token.")
    return space


class ForLearner:
    """Stands in for one learner's object (`store`, `api`): every attribute comes from the workspace of
    the learner being served. The course's tool builders take it where they take a `ShopStore` or a
    `WebAPI`, so the class server's tools are the lesson 5 tools, unchanged."""

    def __init__(self, part: str):
        self._part = part

    def __getattr__(self, name: str) -> Any:
        return getattr(getattr(current(), self._part), name)

    # ShopStore's tools are built by calling its methods on this stand-in.
    read_tools = ShopStore.read_tools
    write_tools = ShopStore.write_tools


def is_error(result: Any) -> bool:
    """Whether a result the middleware sees is a tool's error: the SDK hands it on as the wire's dict."""
    if isinstance(result, Mapping):
        return bool(result.get("isError"))
    return bool(getattr(result, "is_error", False))


class LearnerMiddleware:
    """MCP server middleware: serves each request from its learner's workspace and logs it there.

    The learner comes from the HTTP request this message arrived with (the token the auth layer
    verified), not from the session: a session id sent with someone else's token serves the
    token's owner, never the session's."""

    def __init__(self, workspaces: Workspaces | Mapping[str, Any]):
        self.workspaces = workspaces  # learner -> workspace; lesson 8's demo passes a dict of its own

    async def __call__(self, ctx: Any, call_next: Any) -> Any:
        user = getattr(ctx.request, "scope", {}).get("user") if ctx.request is not None else None
        learner = getattr(getattr(user, "access_token", None), "client_id", None)
        if learner is None:
            return await call_next(ctx)  # no learner: nothing to serve from (the HTTP layer refused it already)
        space = self.workspaces[learner]
        tool = (ctx.params or {}).get("name") if ctx.method == "tools/call" else None
        reset = _current.set(space)
        start = time.perf_counter()
        ok: bool | None = False
        try:
            result = await call_next(ctx)
            ok = not is_error(result)
            return result
        except BaseException as e:
            if not isinstance(e, Exception):  # cancelled: the client went away (a session's normal end), no failure
                ok = None
            raise
        finally:
            _current.reset(reset)
            if ctx.request_id is not None and isinstance(space, Workspace):  # only the class server keeps a call log
                space.record(ctx.method, tool, ok, time.perf_counter() - start)
