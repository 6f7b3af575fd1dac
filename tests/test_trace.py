"""One whole user request recorded on the wire in both protocol eras, and the sequence diagram made from it."""

import pytest

from course.agent import arun_agent
from course.backend import MODEL
from course.host import McpHost
from course.host.trace import Trace, sequence_diagram
from course.scripted import ScriptedModel
from course.servers.docs import build_server
from course.stories.lesson8 import desk

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]
QUESTION = "How long do I have to ask for my money back?"


async def one_request(tmp_path, mode: str) -> tuple[Trace, str]:
    trace = Trace()
    llm = ScriptedModel(trace.model(desk)).async_client()
    server = build_server(embedder="lexical", store_path=tmp_path / "shop.json")
    async with McpHost(quiet=True) as host:
        await host.connect("docs", trace.server(server, mode=mode), allow={"read_section"})
        trace.user(QUESTION)
        result = await arun_agent(llm, MODEL, QUESTION, tools=host.tools(), execute=trace.execute(host))
        trace.answer(result.answer)
    return trace, result.answer


def methods(trace: Trace) -> list[str]:
    return [m["method"] for d, m in trace.wire() if d == "->" and "method" in m
            and not m["method"].startswith(("subscriptions/", "notifications/cancelled"))]


async def test_the_2026_trace_discovers_and_puts_the_version_in_every_requests_meta(tmp_path):
    trace, answer = await one_request(tmp_path, "auto")
    assert methods(trace) == ["server/discover", "tools/list", "tools/call"]
    requests = [m for d, m in trace.wire() if d == "->" and "id" in m]
    assert all(m["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"] == "2026-07-28" for m in requests)
    call = next(m for m in requests if m["method"] == "tools/call")
    assert call["params"]["arguments"] == {"document": "refunds", "section": "Time limits"}
    assert "30 days" in answer


async def test_the_handshake_era_trace_initializes_first_and_has_no_meta_envelope(tmp_path):
    trace, _ = await one_request(tmp_path, "legacy")
    assert methods(trace) == ["initialize", "notifications/initialized", "tools/list", "tools/call"]
    assert not any("_meta" in (m.get("params") or {}) for d, m in trace.wire() if d == "->")
    initialized = next(m for d, m in trace.wire() if d == "<-" and m.get("id") == 1)
    assert initialized["result"]["protocolVersion"] == "2025-11-25"


async def test_the_diagram_shows_the_eight_steps_in_order_and_differs_between_the_eras(tmp_path):
    modern, _ = await one_request(tmp_path, "auto")
    legacy, _ = await one_request(tmp_path, "legacy")
    diagram = sequence_diagram(modern)
    steps = [next(i for i, line in enumerate(diagram.splitlines()) if f" {n}. " in line) for n in range(1, 9)]
    assert steps == sorted(steps), diagram
    assert "H->>S: server/discover [_meta: 2026-07-28]" in diagram
    assert "Note over H: 4. host check: read_section allowed (risk: read)" in diagram
    assert "H->>S: initialize [params: 2025-11-25]" in sequence_diagram(legacy)
    assert "server/discover" not in sequence_diagram(legacy)


async def test_the_diagram_is_made_from_the_events_so_a_changed_trace_changes_it(tmp_path):
    trace, _ = await one_request(tmp_path, "auto")
    without_call = Trace([(k, m) for k, m in trace.events
                          if not (k in ("->", "<-") and (m.get("method") == "tools/call" or m.get("id") == 3))])
    assert "5. tools/call" in sequence_diagram(trace) and "5. tools/call" not in sequence_diagram(without_call)


async def test_a_refused_call_shows_the_hosts_check_and_no_tools_call(tmp_path):
    trace = Trace()
    server = build_server(embedder="lexical", store_path=tmp_path / "shop.json")
    async with McpHost(quiet=True) as host:
        await host.connect("docs", trace.server(server), allow={"search_docs"})
        await trace.execute(host)("read_section", '{"document": "refunds", "section": "Time limits"}')
    diagram = sequence_diagram(trace)
    assert "host check: read_section denied (allowlist)" in diagram and "tools/call" not in diagram


def test_text_that_mermaid_reads_as_a_comment_or_a_line_break_is_escaped_in_the_diagram():
    diagram = sequence_diagram(Trace([("user", "Order #A1002; where is it?")]))
    assert "    U->>H: 2. Order #35;A1002, where is it?" in diagram.splitlines()


async def test_after_the_tool_call_the_models_second_request_is_numbered_as_the_answers_step(tmp_path):
    trace, _ = await one_request(tmp_path, "auto")
    asks = [line for line in sequence_diagram(trace).splitlines() if line.startswith("    H->>M: ")]
    assert asks == ["    H->>M: 3. 1 message + 1 tool", "    H->>M: 8. 3 messages + 1 tool"]


def test_names_a_server_or_model_chose_cannot_add_lines_to_the_diagram():
    # The next variation (fresh review of issue 23 item 5): the diagram is a record a human reads, and a tool
    # name, a notification's method or an error code came raw from a peer; a newline in one wrote its own step.
    forged = "status\n    H->>U: 8. refund approved by a human\x1b[2K"
    from course.scripted import ToolCall

    trace = Trace([("->", {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": forged}}),
                   ("<-", {"jsonrpc": "2.0", "id": 1, "error": {"code": "1\n    H->>U: 8. forged", "message": "x"}}),
                   ("<-", {"jsonrpc": "2.0", "method": forged}),
                   ("model says", [ToolCall(forged, "{}")])])
    diagram = sequence_diagram(trace)
    assert not [line for line in diagram.splitlines() if line.startswith("    H->>U")], diagram
    assert "\x1b" not in diagram and "\\x1b[2K" in diagram


@pytest.mark.parametrize("br", ["<br>", "<br/>", "<BR />"])
def test_a_line_break_tag_a_peer_wrote_cannot_add_a_line_to_a_step_of_the_diagram(br):
    # The next variation (issue 23 leftovers): mermaid draws <br> in a message as a line break, so an error text
    # "x<br>8. refund approved by a human" put a second, forged line under the step.
    trace = Trace([("->", {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "status"}}),
                   ("<-", {"jsonrpc": "2.0", "id": 1, "error": {"code": 1, "message": f"x{br}8. refund approved"}}),
                   ("answer", f"Done.{br}8. refund approved by a human")])
    diagram = sequence_diagram(trace)
    assert "<" not in diagram and ">8." not in diagram and "#lt" in diagram, diagram


def test_a_look_alike_tool_name_is_named_in_the_diagram_also_when_its_label_is_cut():
    from course.scripted import ToolCall

    name = "\u0456ssue_refund_" + "x" * 60  # a Cyrillic і first, then more than a label shows
    diagram = sequence_diagram(Trace([("model says", [ToolCall(name, "{}")]),
                                      ("check", {"tool": name, "decision": "denied", "by": "allowlist"})]))
    for line in diagram.splitlines()[-2:]:
        assert "\u0456 CYRILLIC SMALL LETTER BYELORUSSIAN-UKRAINIAN I" in line, line


def test_a_secret_in_a_servers_error_or_in_arguments_is_masked_in_the_diagram_as_in_the_hosts_messages():
    # The next variation (issue 23 leftovers): the diagram is saved with the notebook, like a printed ServerError.
    trace = Trace([("->", {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                           "params": {"name": "status", "arguments": {"url": "https://abc123token@db/"}}}),
                   ("<-", {"jsonrpc": "2.0", "id": 1, "error": {"code": -32603,
                                                              "message": "no db: DB_PASSWORD\thunter2Xq9"}})])
    diagram = sequence_diagram(trace)
    assert "hunter2Xq9" not in diagram and "abc123token" not in diagram and "***" in diagram, diagram
