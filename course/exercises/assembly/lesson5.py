"""Lesson 5's assemble step: the learner's four servers (`shipping`, `parcels`, `carriers`, a search server
from `build_search_server` whose provider answers through the learner's `trim`) behind one course host,
answering one customer who needs all of them, next to the same host with the reference servers."""

from __future__ import annotations

import contextlib
import io
import json
from collections.abc import Mapping
from typing import Any

from course.exercises.assembly.pieces import Assembly, gather, judged
from course.exercises.registry import exercise, run_async
from course.scripted import ToolCall, call, offered_tools, tool_results

PIECES = {"l5-constrained-tool": "shipping", "l5-annotations": "parcels", "l5-advice": "carriers",
          "l5-trim": "trim", "l5-budget": "build_search_server"}
QUESTION = ("What does a 2 kg parcel to FR cost? Where are my parcels P1002 and DHL123? "
            "And how do I descale a kettle?")
RAW = {"results": [{"title": f"Descaling a kettle, part {i}", "url": f"https://example.com/descale/{i}",
                    "snippet": "Fill with water and vinegar, boil, rinse. " * 8, "rank": i} for i in range(1, 6)]}
LOOKUPS: list[tuple[str, dict[str, Any]]] = [
    ("shipping_cost", {"weight_kg": 2, "country": "FR"}), ("parcel_status", {"number": "P1002"}),
    ("track", {"number": "DHL123"}), ("web_search", {"query": "descale a kettle"})]
# What the tools answer, by the lessons' own rules and data (4.90 EUR + 1.00 per kg; PARCELS; TRACKING; RAW cut to
# two results): the course's version of the answer, built by the same desk from these results.
FACTS = [
    {"role": "assistant", "tool_calls": [{"id": f"c{i}", "type": "function", "function": {"name": n, "arguments": "{}"}}
                                         for i, (n, _) in enumerate(LOOKUPS)]},
    {"role": "tool", "tool_call_id": "c0", "content": json.dumps({"country": "FR", "cost_eur": 6.9})},
    {"role": "tool", "tool_call_id": "c1", "content": "in transit"},
    {"role": "tool", "tool_call_id": "c2", "content": json.dumps({"number": "DHL123", "status": "in transit"})},
    {"role": "tool", "tool_call_id": "c3", "content": json.dumps(
        {"results": [{k: r[k] for k in ("title", "url")} for r in RAW["results"][:2]]})},
]
GIVEN = ""  # each piece's cell imports what it uses (lesson 5's GIVENs hold what the checks assume)


def parcel_desk(body: dict) -> str | ToolCall | list[ToolCall]:
    """One customer, four servers: every lookup at once, then an answer from what came back."""
    done, offered = tool_results(body), offered_tools(body)
    if not done and body.get("tool_choice") != "none":
        calls = [call(name, **arguments) for name, arguments in LOOKUPS if name in offered]
        if calls:
            return calls
    lines = []
    for name, text in done:
        data = _parsed(text)
        if name == "shipping_cost" and isinstance(data, dict) and "cost_eur" in data:
            lines.append(f"A 2 kg parcel to {data.get('country')} costs {data['cost_eur']:.2f} EUR.")
        elif name == "track" and isinstance(data, dict):
            lines.append(f"Parcel {data.get('number')} is {data.get('status')}.")
        elif name == "parcel_status" and data is None:
            lines.append(f"Parcel P1002 is {text}.")
        elif name == "web_search" and isinstance(data, dict):
            titles = [r.get("title") for r in data.get("results", [])]
            lines.append(f"On descaling, see: {'; '.join(map(str, titles))}.")
        else:
            lines.append(f"{name}: {text}")
    return " ".join(lines) or "I could not look anything up."


def _parsed(text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return None


class Provider:
    """The web API's answers, cut by `trim` as the lesson's server does before the model sees them."""

    def __init__(self, trim) -> None:
        self.trim = trim

    async def search(self, query: str) -> list[dict]:
        return self.trim(json.loads(json.dumps(RAW)), 2)["results"]


async def desk(p: Mapping[str, Any]) -> str:
    from course.agent import Limits, arun_agent
    from course.approval import ScriptedApprover
    from course.backend import MODEL
    from course.host import McpHost, in_memory
    from course.scripted import ScriptedModel

    servers = {"shipping": p["shipping"], "parcels": p["parcels"], "carriers": p["carriers"],
               "search": p["build_search_server"](Provider(p["trim"]), 3)}
    async with McpHost(approver=ScriptedApprover([True] * 4), quiet=True) as host:  # tools not marked read-only
        for name, server in servers.items():
            await host.connect(name, in_memory(server), allow={n for n, _ in LOOKUPS})
        result = await arun_agent(ScriptedModel(parcel_desk).async_client(), MODEL, QUESTION, tools=host.tools(),
                                  execute=host.execute, limits=Limits(max_steps=3))
    return result.answer


def assemble(namespace: Mapping[str, Any]) -> Assembly:
    pieces = gather(PIECES, namespace)
    with contextlib.redirect_stdout(io.StringIO()):
        got = run_async(lambda: desk({p.name: p.value for p in pieces}), limit=60)
    want = parcel_desk({"messages": [{"role": "user", "content": QUESTION}, *FACTS]})
    return Assembly("l5-assemble", pieces, got=got, want=want,
                    lines=[f"the customer: {QUESTION}", f"your servers, through the host: {got}"])


@exercise("l5-assemble", lesson=5, given=GIVEN, uses=tuple(PIECES))
def check_assemble(shipping, parcels, PARCELS, carriers, TRACKING, trim, build_search_server):  # noqa: N803
    return judged(assemble(dict(shipping=shipping, parcels=parcels, PARCELS=PARCELS, carriers=carriers,
                                TRACKING=TRACKING, trim=trim, build_search_server=build_search_server)))
