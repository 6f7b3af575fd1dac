"""A REST API wrapped as agent tools: web search, news and page reading with a credit budget (lesson 5).

    python -m course.servers.webapi [--api http://127.0.0.1:8765] [--budget 20] [--budget-file FILE]
    (start the API first: `make stub-api`, or python -m course.servers.stub_api)

The pattern for any paid API: check arguments before spending anything, give the model only
the fields it needs (and no more hits than it asked for), cap what it reads, give a reserved
credit back only when the provider cannot have charged it, and turn every failure into advice
the model can follow (stop, slow down, use another source, try later) instead of a stack trace.
This module is the MCP server: the tools and their arguments. The client it calls is
`web_client.WebAPI`, with `credits.CreditBudget` and the trimming in `web_answers`. The API itself
is `course.servers.stub_api` here, so the lesson runs offline.
"""

from __future__ import annotations

import os
from typing import Annotated, Any

from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations
from pydantic import Field, StringConstraints

from course.servers.auth import bearer_auth
from course.servers.credits import CreditBudget, NotCharged
from course.servers.descriptions import described
from course.servers.serving import command_line, serve
from course.servers.strict import StrictServer
from course.servers.url_guard import check_url
from course.servers.web_answers import URL_CHARS
from course.servers.web_client import API_KEY_ENV, API_URL_ENV, DEFAULT_API_URL, WebAPI

# What this module held before it was split stays importable from here: lessons 5 and 8, the class server and the
# tests import these names from course.servers.webapi.
__all__ = ["API_KEY_ENV", "API_URL_ENV", "DEFAULT_API_URL", "CreditBudget", "NotCharged", "WebAPI", "build_server",
           "check_url", "main"]

Query = Annotated[str, StringConstraints(strip_whitespace=True, min_length=2, max_length=200),
                  Field(description="Search words, 2-200 characters, e.g. 'kettle recall'.")]
Count = Annotated[int, Field(ge=1, le=10, description="How many results to return (1-10).")]
Url = Annotated[str, Field(pattern=r"^https?://\S+$", max_length=URL_CHARS,
                           description="A public http(s) URL, as found in search or news results.")]

WEB = ToolAnnotations(read_only_hint=True, open_world_hint=True, idempotent_hint=True)


def build_server(api: Any = None, *, token: Any = None) -> MCPServer:
    """The web tools as an MCP server. `api` holds the budget (`budget_left` in every answer). Over stdio
    every client starts its own server process, so the budget is per session; over HTTP all clients of
    one process share it. `api` is a `WebAPI` or, on the class server, a stand-in that finds each
    learner's own; `token` a bearer token or a verifier (`bearer_auth`)."""
    api = api or WebAPI(os.environ.get(API_URL_ENV, DEFAULT_API_URL), api_key=os.environ.get(API_KEY_ENV))
    mcp = StrictServer("course-web", instructions="Web search, news and page reading. A search or news call costs 2 "
                    "credits, reading a page 1, from a small budget: prefer the shop's own documents "
                    "when they answer the question.",
                    log_level="WARNING", **bearer_auth(token))
    tool = described(mcp)

    @tool(annotations=WEB)
    async def search(query: Query, n: Count = 5) -> dict[str, Any]:
        """Search the public web. Returns title, URL and a short snippet per result.
        Use it for facts outside the shop's own documents (consumer law, carriers, product news).
        For recent events prefer `news`; to read a result in full use `read_page`. Costs 2 credits."""
        return await api.search(query, n)

    @tool(annotations=WEB)
    async def news(query: Query, n: Count = 5,
                   days: Annotated[int, Field(ge=1, le=30, description="Only articles from the last N days.")] = 7,
                   ) -> dict[str, Any]:
        """Recent news articles (newest first): title, source, date, URL and a one-line summary.
        Use it for current events such as strikes, recalls or delays; for background use `search`.
        Costs 2 credits."""
        return await api.news(query, n, days)

    @tool(annotations=WEB)
    async def read_page(url: Url,
                        start: Annotated[int, Field(ge=0, description="Character offset to read from; "
                                                    "pass the previous answer's next_start to continue.")] = 0,
                        max_chars: Annotated[int, Field(ge=200, le=8000, description="Read at most this "
                                                        "many characters.")] = 2000) -> dict[str, Any]:
        """Read the text of one web page, at most `max_chars` characters from `start`.
        If `truncated` is true, call again with `start=next_start` only if you need more.
        Use URLs from `search` or `news` results. Costs 1 credit per call."""
        return await api.read_page(url, start, max_chars)

    return mcp


def main(argv: list[str] | None = None) -> None:
    parser = command_line(__doc__.splitlines()[0], "course.servers.webapi")
    parser.add_argument("--api", default=os.environ.get(API_URL_ENV, DEFAULT_API_URL), help="the REST API's URL")
    parser.add_argument("--budget", type=int, default=20, help="credits one session may spend")
    parser.add_argument("--budget-file", default=None, help="keep what was spent in this file, across restarts")
    args = parser.parse_args(argv)
    serve(build_server, args, api=WebAPI(args.api, budget=args.budget, api_key=os.environ.get(API_KEY_ENV),
                                         budget_file=args.budget_file))


if __name__ == "__main__":
    main()
