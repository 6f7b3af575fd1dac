"""The class MCP server: the course's servers once for the whole class, a workspace per learner.

    python -m course.classroom --new-tokens 30 --tokens tokens.txt     # once: a token per learner
    python -m course.classroom --tokens tokens.txt [--port 8000] [--host 127.0.0.1]
        [--allow-host NAME ...] [--embedder auto|lexical] [--api URL] [--budget 20] [--data DIR]

Two endpoints over Streamable HTTP, each needing `Authorization: Bearer <a learner's token>` (401
otherwise): `/mcp`, the document server of lesson 5 (documents, orders, refunds), and `/web/mcp`,
its web tools (`make stub-api` first). Each learner gets their own shop store and call log in
`--data` (default WORK/class/<learner>/, `class_data.py`: inspecting and resetting it), and a web
credit budget. The document index is loaded once and shared: the documents are the same for
everyone, and read-only.

Every learner gets the same share, whatever another one sends (`limits.py`, `sessions.py`): 4 of
their requests served at once and 8 more waiting, the rest refused with an error that says so;
their store's tools in a thread of their own, never one of the shared pool; 16 open
handshake-era sessions each, ended after 2 minutes idle. With embeddings, the class's concurrent
questions are embedded together and repeated ones come from a cache (course/search/batching.py).

A learner connects with `COURSE_MCP_URL=http://<host>:<port>/mcp COURSE_MCP_TOKEN=<their token>`
(lesson 6 then uses this server instead of starting its own).
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import gc
import ipaddress
import os
import socket
import sys
import threading
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Any

from course import paths
from course.classroom.class_data import DEFAULT_DATA, class_data
from course.classroom.learners import (
    ForLearner,
    LearnerMiddleware,
    LearnerTokens,
    TokensFile,
    TokensFileError,
    Workspaces,
    current,
    new_tokens,
    read_names,
    write_tokens,
)
from course.classroom.limits import IN_FLIGHT, WAITING, InFlightLimit, StoreLanes
from course.classroom.sessions import IDLE_SECONDS, PER_LEARNER, cap_per_learner
from course.processes import HOST
from course.servers.serving import DEFAULT_PORT, PATH

LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")
WEB_PREFIX = "/web"


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def transport_security(host: str, allow_hosts: list[str]) -> Any:
    """The DNS-rebinding protection for `host`: loopback as the SDK does it; beyond loopback, the
    names learners type (`--allow-host`, and `host` itself unless it is a wildcard) are the only
    `Host` headers and browser `Origin`s accepted (421 / 403 otherwise)."""
    from mcp.server.transport_security import TransportSecuritySettings

    names = list(LOOPBACK_NAMES)
    if not is_loopback(host) and host not in ("0.0.0.0", "::"):
        names.append(f"[{host}]" if ":" in host else host)
    names += [n for n in allow_hosts if n not in names]
    return TransportSecuritySettings(enable_dns_rebinding_protection=True,
                                     allowed_hosts=[f"{n}:*" for n in names],
                                     allowed_origins=[f"{scheme}://{n}:*" for n in names
                                                      for scheme in ("http", "https")])


# The SDK's server-wide session cap must never bind before the per-learner one: room for learners added live.
LATE_LEARNERS = 20


def build_app(learners: dict[str, str] | TokensFile, *, data: Path, host: str = HOST, allow_hosts: Sequence[str] = (),
              embedder: str = "auto", api_url: str | None = None, budget: int = 20,
              in_flight: int = IN_FLIGHT, waiting: int = WAITING, sessions: int = PER_LEARNER,
              idle_seconds: float = IDLE_SECONDS) -> Any:
    """The class server as an ASGI app: `/mcp` (documents and the shop) and `/web/mcp` (web tools).

    Fair shares (`limits.py`, `sessions.py`): `in_flight` requests of a learner served at once and
    `waiting` more queued, the rest refused; the store's tools in a thread lane per learner;
    `sessions` open handshake-era sessions per learner, each ended after `idle_seconds` idle, and as many
    open `subscriptions/listen` streams (2026-07-28), which take no turn."""
    from starlette.applications import Starlette
    from starlette.routing import Mount

    from course.servers import docs, webapi

    verifier = LearnerTokens(learners)
    known = learners.learners() if isinstance(learners, TokensFile) else learners
    api_url = api_url or os.environ.get(webapi.API_URL_ENV, webapi.DEFAULT_API_URL)
    api_key = os.environ.get(webapi.API_KEY_ENV)
    spaces = Workspaces(data, make_api=lambda: webapi.WebAPI(api_url, budget=budget, api_key=api_key))
    library = docs.Library(paths.DATA, class_embedder(embedder))  # one index for the class: read-only documents
    shop: Any = ForLearner("store")  # has ShopStore's read_tools/write_tools
    servers = [docs.build_server(store=shop, library=library, token=verifier),
               webapi.build_server(ForLearner("api"), token=verifier)]
    StoreLanes(lambda: current().learner).take(servers[0], [t.name for t in shop.read_tools() + shop.write_tools()])
    security = transport_security(host, list(allow_hosts))
    def refused(learner: str, method: str, tool: str | None, limit: str) -> None:
        """In the learner's call log, so `make class-status` shows the teacher who floods."""
        spaces[learner].record(method, tool, False, 0.0, refused=limit)

    # One for both endpoints: the share is the learner's.
    share = InFlightLimit(in_flight, waiting, streams=sessions, on_refused=refused)
    apps = []
    for server in servers:
        server.middleware.extend([share, LearnerMiddleware(spaces)])  # a refused request costs no workspace work
        apps.append(server.streamable_http_app(streamable_http_path=PATH, transport_security=security, host=host,
                                               session_idle_timeout=idle_seconds,
                                               max_sessions=sessions * (len(known) + LATE_LEARNERS)))
        cap_per_learner(server.session_manager, sessions, on_refused=refused)

    @contextlib.asynccontextmanager
    async def lifespan(app: Any) -> AsyncIterator[None]:
        async with contextlib.AsyncExitStack() as stack:  # each endpoint's session manager runs in its lifespan
            for inner in apps:
                await stack.enter_async_context(inner.router.lifespan_context(inner))
            yield

    app = Starlette(routes=[Mount(WEB_PREFIX, app=apps[1]), Mount("", app=apps[0])], lifespan=lifespan)
    app.state.workspaces = spaces
    app.state.share = share
    app.state.library = library
    app.state.session_managers = [server.session_manager for server in servers]
    return app


def freeze_when_loaded(library: Any) -> None:
    """Once the index and its model are loaded, keep their objects out of Python's garbage collections.

    With the model, the server holds half a million objects (torch, transformers), all of them for
    its life; each full collection walked them all, with the event loop stopped: 7 of them, ~600 ms
    each, in a 30 s class-scale run (bench class_search), the p95 of everyone's calls. `gc.freeze()`
    moves what exists now to a generation no collection visits; what requests create is still collected."""
    library.loaded()
    gc.collect()  # garbage of the load is freed, not kept for good
    gc.freeze()


def class_embedder(embedder: str) -> Any:
    """"lexical", or lesson 3's model behind a batcher and a query cache: the whole class's concurrent
    questions are embedded together (course/search/batching.py). "auto" when the model is missing,
    so `DocIndex` says why and falls back to keywords."""
    from course.search import BatchingEmbedder, MiniLM, model_available

    if embedder != "auto" or model_available():
        return embedder
    return BatchingEmbedder(MiniLM())


def warn_beyond_loopback(host: str, port: int, allow_hosts: list[str]) -> None:
    names = ", ".join(allow_hosts or [host])
    print("\n".join(["", "!" * 78,
                     f"!!  The class server listens on {host}:{port}: other machines can reach it.",
                     "!!  Plain HTTP: anyone on this network can read the tokens and answers that pass by.",
                     "!!  Use it on a network you trust (the classroom's), never on a public one;",
                     "!!  for anything else put it behind HTTPS (a reverse proxy) or use a JupyterHub.",
                     f"!!  Learners' URL: http://{names.split(', ')[0]}:{port}{PATH}  (accepted Host names: {names})",
                     "!" * 78, ""]), file=sys.stderr, flush=True)


def where_the_data_is(data: Path, names: set[str]) -> str:
    """What the start says about the data: the folder, whether an earlier class left data in it, the commands."""
    found = [r.name for r in class_data(data)]
    earlier = [n for n in found if n not in names]
    kept = (f"; {len(found)} learners already have data there" if found else "; empty so far") + \
           (f", {len(earlier)} of them not in this tokens file (an earlier class?)" if earlier else "")
    return (f"learners' data in {data} (a folder each: shop.json, calls.jsonl{kept})\n"
            f"`make class-status DATA={data}` sums it up; `rm -rf {data}/<name>` resets a learner, even now")


def port_taken(host: str, port: int) -> bool:
    """Whether another process listens on `host:port` (as uvicorn will bind it: SO_REUSEADDR, so a port
    left in TIME_WAIT by a server just stopped counts as free)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError as e:
            return e.errno == errno.EADDRINUSE
    return False


def the_share(in_flight: int, waiting: int, sessions: int, idle_seconds: float) -> str:
    """What the start says about each learner's fair share, and how to change it."""
    return (f"each learner: {in_flight} requests served at once, {waiting} more waiting, the rest refused; "
            f"{sessions} open connections (idle sessions end after {idle_seconds:g} s); --in-flight, --waiting, "
            "--sessions, --idle-seconds change them")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m course.classroom", description=__doc__.splitlines()[0])
    parser.add_argument("--tokens", type=Path, required=True, help="the tokens file: 'name token' per line")
    parser.add_argument("--new-tokens", type=int, metavar="N", help="write a tokens file for N learners and exit")
    parser.add_argument("--names", type=Path, help="with --new-tokens: a file of learners' names, one a line")
    parser.add_argument("--host", default=HOST, help="address to listen on (default 127.0.0.1: this machine only)")
    parser.add_argument("--allow-host", action="append", default=[], metavar="NAME",
                        help="a name or address learners use to reach this machine (repeat; needed for 0.0.0.0)")
    parser.add_argument("--port", type=int, default=DEFAULT_PORT)
    parser.add_argument("--embedder", choices=["auto", "lexical"], default="auto")
    parser.add_argument("--api", default=None, help="the web API's URL (default COURSE_WEBAPI_URL or the stub's)")
    parser.add_argument("--budget", type=int, default=20, help="web credits each learner may spend")
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA,
                        help=f"the class's data, a folder per learner (default {DEFAULT_DATA})")
    share = parser.add_argument_group("each learner's fair share (WORKSHOP.md, course/classroom/limits.py)")
    share.add_argument("--in-flight", type=int, default=IN_FLIGHT, metavar="N",
                       help=f"a learner's requests served at once (default {IN_FLIGHT})")
    share.add_argument("--waiting", type=int, default=WAITING, metavar="N",
                       help=f"more that wait for a turn; the rest are refused (default {WAITING})")
    share.add_argument("--sessions", type=int, default=PER_LEARNER, metavar="N",
                       help=f"open handshake-era sessions per learner (default {PER_LEARNER})")
    share.add_argument("--idle-seconds", type=float, default=IDLE_SECONDS, metavar="S",
                       help=f"an idle session ends after S seconds (default {IDLE_SECONDS:g})")
    args = parser.parse_args(argv)

    if args.new_tokens is not None:
        if args.tokens.exists():
            parser.exit(2, f"{args.tokens} exists: the learners may already have their tokens. "
                           "Delete it first, or choose another file.\n")
        try:
            names = (read_names(args.names) if args.names
                     else [f"learner-{i:02d}" for i in range(1, args.new_tokens + 1)])
        except OSError as e:
            parser.exit(2, f"{args.names}: {e.strerror} (--names: the learners' log-in names, one a line)\n")
        except TokensFileError as e:
            parser.exit(2, f"{e}\n")
        try:
            write_tokens(args.tokens, new_tokens(names))  # the teacher's eyes only: each line is a password
        except OSError as e:
            parser.exit(2, f"{args.tokens}: {e.strerror} (--tokens: where the tokens file goes)\n")
        except TokensFileError as e:
            parser.exit(2, f"{e}\n")
        differs = f" (the {len(names)} names in {args.names}, not {args.new_tokens})" if (
            args.names and len(names) != args.new_tokens) else ""
        print(f"wrote {len(names)} tokens to {args.tokens}{differs}: hand each learner their own line")
        return
    if min(args.in_flight, args.sessions) < 1 or args.waiting < 0 or args.idle_seconds <= 0:
        parser.error("a learner's share needs --in-flight and --sessions of 1 or more, --waiting of 0 or more "
                     "and --idle-seconds above 0")
    if args.host in ("0.0.0.0", "::") and not args.allow_host:
        parser.error(f"--host {args.host} listens everywhere: say which name or address learners type, "
                     "e.g. --allow-host 192.168.1.20 (others get 421)")
    try:
        tokens = TokensFile(args.tokens)  # read again when it changes: `make class-add` lets a late learner in
    except (TokensFileError, OSError) as e:
        parser.exit(2, f"{e}\n")
    learners = tokens.learners()
    if port_taken(args.host, args.port):  # before the index loads and the start says "class server: ... at"
        parser.exit(2, f"port {args.port} on {args.host} is in use (a class server already running? "
                       f"`ss -ltnp | grep :{args.port}` says which process): stop it, or choose another port, "
                       f"e.g. make class-server PORT={args.port + 1} (and COURSE_MCP_URL for the hub).\n")
    if not is_loopback(args.host):
        warn_beyond_loopback(args.host, args.port, args.allow_host)
    data = args.data.expanduser().resolve()
    app = build_app(tokens, data=data, host=args.host, allow_hosts=args.allow_host, embedder=args.embedder,
                    api_url=args.api, budget=args.budget, in_flight=args.in_flight, waiting=args.waiting,
                    sessions=args.sessions, idle_seconds=args.idle_seconds)
    shown = args.allow_host[0] if args.allow_host else args.host
    print(f"class server: {len(learners)} learners at http://{shown}:{args.port}{PATH} "
          f"(web tools at {WEB_PREFIX}{PATH})\n{where_the_data_is(data, set(learners.values()))}\n"
          f"{the_share(args.in_flight, args.waiting, args.sessions, args.idle_seconds)}",
          file=sys.stderr, flush=True)
    # This process is the class server's alone: its loaded index may be kept out of garbage collections.
    threading.Thread(target=freeze_when_loaded, args=(app.state.library,), name="gc-freeze", daemon=True).start()
    import uvicorn

    try:
        uvicorn.run(app, host=args.host, port=args.port, log_level="warning")
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()


@contextlib.contextmanager
def serving(tokens: Path, *args: str, port: int | None = None, timeout: float = 60.0):
    """Run the class server in a child process on 127.0.0.1 (tests, `make bench`); yield its `/mcp` URL."""
    from course.offline import MODEL_VARIABLES
    from course.processes import child_env, free_port, running

    port = port or free_port()
    env = child_env((*MODEL_VARIABLES, "COURSE_WORK", "COURSE_WEBAPI_URL", "PYTHONPATH"))
    with running([sys.executable, "-m", "course.classroom", "--tokens", str(tokens), "--port", str(port),
                  *args], env, port, timeout):
        yield f"http://{HOST}:{port}{PATH}"
