"""The shop's document tools (lesson 3) and write tools (lesson 4) as one MCP server (lesson 5).

    python -m course.servers.docs [--transport stdio|streamable-http] [--port 8000] [--docs DIR]
                                  [--store FILE] [--embedder auto|lexical]

Reading tools are annotated read-only. Tools that change the shop's records say
`read_only_hint=False`; those that can destroy or overwrite (refund, cancel) also say
`destructive_hint=True`, while `create_ticket` only adds a record. A client should ask
before either. Every expected failure is raised as the SDK's `ToolError`, whose message
reaches the model; anything else reaches it only as "Error executing tool <name>". The
search index (and its embedding model, ~5 s) loads in a background thread when the server
starts, so `tools/list` answers at once. Lesson 8 adds the documents as resources and a prompt
(`course/servers/policy_resources.py`).
"""

from __future__ import annotations

import asyncio
import inspect
import sys
import threading
from collections.abc import Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Annotated, Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations
from pydantic import Field

from course import paths
from course import tools as course_tools
from course.servers.auth import bearer_auth
from course.servers.descriptions import described
from course.servers.policy_resources import add_prompts, add_resources
from course.servers.serving import command_line, serve
from course.servers.strict import StrictServer

__all__ = ["add_document_tools", "build_server", "index_in_background", "run_course_tool"]

READ = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False)
# Changes something, destroys nothing: a new ticket leaves every existing record as it was.
ADD = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=False, open_world_hint=False)
# Can destroy or overwrite: money paid out, an order cancelled.
WRITE = ToolAnnotations(read_only_hint=False, destructive_hint=True, idempotent_hint=False, open_world_hint=False)
ADDS_ONLY = {"create_ticket"}
LOAD_TIMEOUT = 60.0  # seconds a search may wait for the index to finish loading
LOAD_DELAY = 0.5  # seconds after start-up before the index loads, unless a search asks sooner


class Library:
    """The `DocTools` of lesson 3, built in a background thread on first `start()`."""

    def __init__(self, folder: Path, embedder: str):
        self.folder, self.embedder = Path(folder), embedder
        self._ready = threading.Event()
        self._started = threading.Lock()
        self._thread: threading.Thread | None = None
        self._doctools: Any = None
        self._error: str | None = None

    def start(self) -> None:
        with self._started:
            if self._thread is None:
                self._thread = threading.Thread(target=self._load, name="doc-index", daemon=True)
                self._thread.start()

    def _load(self) -> None:
        try:
            from course.doctools import (
                DocTools,  # imports numpy: kept off the start-up path
            )
            from course.search import DocIndex

            index = DocIndex(self.folder, embedder=self.embedder)
            if index.mode == "embeddings":
                index.scores("warm up")  # load the model now rather than during the first question
            self._doctools = DocTools(index)
        except Exception as e:  # reported to the model by the first call, and to the operator on stderr
            self._error = f"{type(e).__name__}: {e}"
            print(f"course-docs: the document index did not load: {self._error}", file=sys.stderr)
        finally:
            self._ready.set()

    def loaded(self, timeout: float | None = None) -> bool:
        """Wait (at most `timeout` seconds) for the load, started by someone else, to end, whether it worked or not."""
        return self._ready.wait(timeout)

    def tools(self) -> Any:
        """The loaded `DocTools`, waiting for the background load if needed."""
        self.start()
        if not self._ready.wait(LOAD_TIMEOUT):
            raise ToolError("The document index is still loading. Try again in a few seconds.")
        if self._error:
            raise ToolError(f"The shop's documents are unavailable ({self._error}). Tell the user you cannot "
                            "look the policies up right now; do not retry.")
        return self._doctools


def run_course_tool(fn, *args) -> Any:
    """Call course code; its ToolFailure (lesson 1) becomes the SDK's ToolError, so the model reads the advice."""
    from course.errors import StoreError, ToolFailure

    try:
        return fn(*args)
    except (ToolFailure, StoreError) as e:
        raise ToolError(str(e)) from None


def add_course_tool(mcp: MCPServer, tool: course_tools.Tool, annotations: ToolAnnotations) -> None:
    """Serve a lesson-4 `Tool` (a Pydantic params model + a function) with the model's fields as parameters.

    The SDK builds `inputSchema` from a function's signature, so we give the wrapper a signature
    made of the params model's fields: the same constraints and descriptions, and flat arguments
    (`{"order_id": ...}`, not `{"args": {"order_id": ...}}`).
    """
    params = [inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, annotation=Annotated[f.annotation, f],
                                default=inspect.Parameter.empty if f.is_required() else f.default)
              for name, f in tool.params.model_fields.items()]

    def call(**arguments: Any) -> dict[str, Any]:
        return run_course_tool(tool.fn, tool.params.model_validate(arguments))

    # The SDK builds the schema from the signature: give it the tool model's fields as parameters.
    call.__signature__ = inspect.Signature(params, return_annotation=dict[str, Any])  # type: ignore[attr-defined]
    call.__name__ = call.__qualname__ = tool.name  # the schema's title: "<name>Arguments"
    mcp.add_tool(call, name=tool.name, description=tool.description, annotations=annotations)


Name = Annotated[str, Field(min_length=1, max_length=100,
                            description="Document name as listed by search_docs or list_documents, e.g. 'refunds'.")]


def build_server(folder: Path | str = paths.DATA, *, store_path: Path | str | None = None,
                 embedder: str = "auto", token: Any = None, store: Any = None,
                 library: Library | None = None) -> MCPServer:
    """The document server. `store_path` defaults to WORK/shop.json; `embedder="lexical"` starts instantly;
    `token` (HTTP only) makes every request need `Authorization: Bearer <token>`. The class server
    passes its own `store` (each learner's) and one `library` for every learner."""
    from course.store import ShopStore

    library = library or Library(Path(folder), embedder)
    store = store or ShopStore(store_path)
    mcp = StrictServer("course-docs", instructions="Northwind Goods' policy documents and order records. Search the "
                    "documents before answering questions about the shop's rules, and cite 'document › section'. "
                    "Tools that change orders need the customer's clear request.",
                    lifespan=index_in_background(library), log_level="WARNING", **bearer_auth(token))
    add_document_tools(mcp, library)
    for read_tool in store.read_tools():
        add_course_tool(mcp, read_tool, READ)
    for write_tool in store.write_tools():
        add_course_tool(mcp, write_tool, ADD if write_tool.name in ADDS_ONLY else WRITE)
    add_resources(mcp, Path(folder))  # lesson 8: the documents as resources, and the desk's prompts
    add_prompts(mcp)
    return mcp


def index_in_background(library: Library) -> Callable[[MCPServer], Any]:
    """A lifespan that loads the search index once the server is serving, a moment later."""

    @asynccontextmanager
    async def lifespan(server: MCPServer):
        # Nothing the loader prints can then reach stdout. The delay: the loader imports numpy and holds
        # the GIL, which would slow the handshake and the first tools/list by ~0.2 s. A search that comes
        # sooner starts it at once (Library.tools).
        timer = asyncio.get_running_loop().call_later(LOAD_DELAY, library.start)
        try:
            yield {}
        finally:
            timer.cancel()

    return lifespan


def add_document_tools(mcp: MCPServer, library: Library) -> None:
    """Lesson 3's three tools, as the model sees them: the docstring is the description."""
    tool = described(mcp)

    # Results are plain dicts. A TypedDict return type would publish a detailed outputSchema, which
    # every client validates each result against: 3x the cost of the whole call (bench/mcp_server.py).
    @tool(annotations=READ)
    def search_docs(
        query: Annotated[str, Field(min_length=1, max_length=500, description="What to look for, in plain words, "
                                    "e.g. 'how long do refunds take'.")],
        k: Annotated[int, Field(ge=1, le=5, description="How many sections to return (1-5).")] = 3,
    ) -> dict[str, Any]:
        """Search the shop's policy documents (refunds, returns, shipping, warranty) by meaning
        (or by keywords, when the hits say "match": "keywords").
        Returns the best sections, each with a short excerpt and a score.
        Use it first for any question about the shop's rules, then read the best hit with read_section.
        Cheap: a few hundred characters per hit."""
        return {"hits": run_course_tool(library.tools().search_docs, query, k)}

    @tool(annotations=READ)
    def read_section(
        document: Name,
        section: Annotated[str, Field(min_length=1, max_length=200, description="Section heading exactly as "
                                      "listed, e.g. 'Time limits'.")],
    ) -> dict[str, Any]:
        """Read one section of a policy document in full, to quote or check the exact rule.
        Use names from search_docs or list_documents; cite the answer as the returned cite_as.
        Costs the section's full text (up to a few thousand characters): search first."""
        return run_course_tool(library.tools().read_section, document, section)

    @tool(annotations=READ)
    def list_documents() -> dict[str, Any]:
        """List every policy document with its title and section headings.
        Use it when search_docs finds nothing useful, or to show what the shop has written down.
        Cheap, but it returns no policy text: read a section for that."""
        return {"documents": run_course_tool(library.tools().list_documents)}


def main(argv: list[str] | None = None) -> None:
    parser = command_line(__doc__.splitlines()[0], "course.servers.docs")
    parser.add_argument("--docs", type=Path, default=paths.DATA, help="folder of markdown policy documents")
    parser.add_argument("--store", type=Path, default=None,
                        help="the shop's JSON store (default WORK/shop.json, course.paths)")
    parser.add_argument("--embedder", choices=["auto", "lexical"], default="auto",
                        help="lexical: word search, no model to load")
    args = parser.parse_args(argv)
    if not args.docs.is_dir():
        parser.error(f"--docs {args.docs}: no such folder (it should hold the policy *.md files)")
    serve(build_server, args, folder=args.docs, store_path=args.store, embedder=args.embedder)


if __name__ == "__main__":
    main()
