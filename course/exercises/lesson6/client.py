"""The check of `l6-list-tools`: every page of a server's tool list, through an allowlist; and what lesson 6's
other checks share (`awaited`, `DOCS_ALLOW`)."""

from __future__ import annotations

import inspect
from typing import Any

from course.exercises import NotYet, exercise, run_async
from course.exercises.lesson6.cases import READ, docs_server, in_memory, made_server
from course.exercises.lesson6.given import GIVEN_LIST
from course.exercises.seeds import draws

DOCS_ALLOW = {"search_docs", "read_section", "list_documents", "get_order_record", "create_ticket", "issue_refund"}


def awaited(value: Any, what: str) -> Any:
    if not inspect.isawaitable(value):
        raise NotYet(f"{what} is not an `async def` function.",
                     "make it `async def`: it awaits the client, and the check awaits it.")
    return value


def names(tools: Any, what: str) -> list[str]:
    import mcp.types as types

    if not isinstance(tools, list | tuple):
        raise NotYet(f"{what} returned a {type(tools).__name__}, not a list of tools.",
                     "collect the tools of every page in a list and return it.")
    if any(isinstance(t, str) for t in tools):
        raise NotYet(f"{what} returned names; return the `Tool` objects themselves (page.tools holds them).",
                     "the next steps need their schema and annotations.")
    found = [t.name for t in tools] if all(isinstance(t, types.Tool) for t in tools) else None
    if found is None or not all(isinstance(name, str) for name in found):
        raise NotYet(f"{what} returned something other than the pages' `Tool` objects.",
                     "keep the objects in page.tools as they are (filter them, do not rebuild them).")
    return found


# -- l6-list-tools --------------------------------------------------------------------------------------
def listed(list_tools: Any, server: Any, allow: set[str]) -> tuple[list[str], set[str]]:
    """The names the learner's `list_tools` returned, and `allow` afterwards."""
    mine = set(allow)

    async def talk(client: Any) -> Any:
        return await awaited(list_tools(client, mine), "list_tools(client, allow)")

    try:
        tools = run_async(lambda: in_memory(server, talk), limit=10,
                          hint=" (does the loop pass each page's next_cursor as the next cursor, and stop when it "
                               "is None?)")
    except AttributeError as e:
        if "coroutine" in str(e):
            raise NotYet("client.list_tools is async.",
                         "`page = await client.list_tools(cursor=cursor)`, inside an `async def`.") from None
        raise
    return names(tools, "list_tools(client, allow)"), mine


@exercise("l6-list-tools", lesson=6, given=GIVEN_LIST)
def check_list_tools(list_tools):
    with docs_server() as (server, _):
        got, after = listed(list_tools, server, DOCS_ALLOW)
    if after != DOCS_ALLOW:
        raise NotYet("list_tools changed the `allow` set it was given.",
                     "only read it.")
    judge_listing(got, sorted(DOCS_ALLOW), DOCS_ALLOW)
    if sorted(got) != sorted(DOCS_ALLOW):
        raise NotYet(f"for the document server and the notebook's ALLOW, list_tools returned {sorted(got)}.",
                     f"return the {len(DOCS_ALLOW)} tools on ALLOW (cancel_order is not): every page's tools whose "
                     "name is in allow.")
    rng = draws()
    kinds = [READ] * rng.randint(6, 9)
    for empty_page in (False, True, False):
        made = made_server(rng, kinds, pages=rng.randint(3, 4), empty_page=empty_page)
        every = made.names()
        allow = set(rng.sample(every, rng.randint(3, len(every) - 2)))
        allow.add(made.pages[-1][-1])  # a tool on the last page is always wanted
        near = next(n for n in every if n not in allow)
        allow |= {near[:-1], "export_customers"}  # part of a listed name, and a name the server does not list
        got, _ = listed(list_tools, made.server, allow)
        missing = judge_listing(got, [n for n in every if n in allow], allow, listed=every)
        if missing:
            asked = len(made.cursors_asked)
            if asked == 1:
                raise NotYet("only the first page's tools are there.",
                             "A server may send its list in pages: call "
                             "client.list_tools(cursor=page.next_cursor) again until next_cursor is None.")
            empty_at = next((i for i, p in enumerate(made.pages) if not p), None)
            if empty_at is not None and asked == empty_at + 1:
                raise NotYet("the list stopped at a page with no tools.",
                             "a page may be empty and still have a next_cursor. Stop only when next_cursor is "
                             "None.")
            if asked < len(made.pages):
                raise NotYet("the last page's tools are missing.",
                             "keep going while next_cursor is not None (the last page is the one without a "
                             "next_cursor, and it holds tools too).")
            raise NotYet("some tools on `allow` are missing from the result.",
                         "keep every tool of every page whose name is in allow.")
    return "Every page, and only the tools you chose: a new tool stays hidden until you add it."


def judge_listing(got: list[str], want: list[str], allow: set[str], listed: list[str] | None = None) -> list[str]:
    """The wanted names missing from `got`, once `got` holds nothing it must not (when `listed` is given: only
    tools the server lists)."""
    if any(n not in allow for n in got):
        raise NotYet("the result holds tools that are not on `allow`.",
                     "the allowlist must hide every other tool the server lists. Keep a tool only if `tool.name "
                     "in allow` (the whole name).")
    if len(got) != len(set(got)):
        raise NotYet("the result lists a tool twice.",
                     "ask for each page once, with the cursor the previous page gave you.")
    if listed is not None and any(n not in listed for n in got):
        raise NotYet("the result holds a tool the server does not list.",
                     "Return only the Tool objects from its pages (page.tools), never one you make up from "
                     "`allow`.")
    return [n for n in want if n not in got]
