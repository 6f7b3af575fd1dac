"""One whole user request, recorded: the JSON-RPC messages on the wire and what the host and model did (lesson 8).

    trace = Trace()
    llm = ScriptedModel(trace.model(desk)).async_client()        # the model's turns go into the trace
    await host.connect("docs", trace.server(build_server(), mode="auto"), allow={"read_section"})
    trace.user(question)
    result = await arun_agent(llm, model, question, tools=host.tools(), execute=trace.execute(host))
    trace.answer(result.answer)
    print(sequence_diagram(trace))                                 # mermaid, made from the events

The server runs in this process, but behind a real JSON-RPC stream (the SDK's `InMemoryTransport`),
so every message is the one a stdio or HTTP client would send. `mode="legacy"` records the
handshake era (`initialize`) instead of 2026-07-28 (`server/discover`, `_meta` on every request).
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

# The SDK's own JSON-RPC-over-memory transport (what `Client(server, mode="legacy")` uses inside).
from mcp.client._memory import InMemoryTransport

from course.host.redaction import redact
from course.host.servers import InMemory
from course.scripted import Rule, ToolCall
from course.servers.wire import recorded
from course.show import lookalike_note, printable

__all__ = ["Trace", "sequence_diagram"]

# What the model and the host do, between the wire messages ("->" host to server, "<-" back).
USER, ASKS_MODEL, MODEL_SAYS, CHECK, ANSWER = "user", "asks model", "model says", "check", "answer"


@dataclass
class Trace:
    """Events in the order they happened: (kind, payload)."""

    events: list[tuple[str, Any]] = field(default_factory=list)

    def server(self, server: Any, *, mode: str = "auto") -> InMemory:
        """Where a host connects to have every message with `server` recorded here."""
        return InMemory(recorded(InMemoryTransport(server), self.events), mode)

    def model(self, rule: Rule) -> Rule:
        """A scripted model's rule that also records each request and each turn."""

        def traced(body: dict) -> Any:
            self.events.append((ASKS_MODEL, {"messages": len(body.get("messages", [])),
                                             "tools": [t["function"]["name"] for t in body.get("tools") or []]}))
            turn = rule(body)
            self.events.append((MODEL_SAYS, turn))
            return turn

        return traced

    def execute(self, host: Any) -> Callable[[str, str], Awaitable[str]]:
        """`host.execute`, with the host's decision recorded before the messages it led to."""

        async def execute(name: str, arguments: str) -> str:
            at, logged = len(self.events), len(host.log)
            reply = await host.execute(name, arguments)
            for entry in list(host.log)[logged:]:
                self.events.insert(at, (CHECK, {"tool": entry.tool, "decision": entry.decision,
                                                "by": entry.decided_by}))
                at += 1
            return reply

        return execute

    def user(self, text: str) -> None:
        self.events.append((USER, text))

    def answer(self, text: str) -> None:
        self.events.append((ANSWER, text))

    def wire(self) -> list[tuple[str, dict]]:
        """Only the JSON-RPC messages, as they travelled."""
        return [(kind, message) for kind, message in self.events if kind in ("->", "<-")]


def _is_subscription(message: dict) -> bool:
    """The 2026-07-28 change stream (`subscriptions/listen`) runs beside the request, in its own time."""
    method = str(message.get("method", ""))
    return (method.startswith(("subscriptions/", "notifications/subscriptions/"))
            or str(message.get("id", "")).startswith("listen-")
            or (method == "notifications/cancelled" and str(message.get("params", {}).get("requestId", ""))
                .startswith("listen-")))


def _short(text: object, limit: int = 60) -> str:
    """Text a peer chose, as one diagram label: on one line, escaped, cut (a newline would write a step of its own).

    What `redact` would hide is masked. Look-alike letters are named after the cut, so a cut cannot hide
    them (`іssue_refund` with a Cyrillic `і`).
    """
    # Secrets masked first, as in the host's messages (the diagram is saved with the notebook), then on one line.
    flat = printable(" ".join(redact(str(text)).split())).replace('"', "'").replace(";", ",")  # mermaid ends at ";"
    flat = flat if len(flat) <= limit else flat[:limit - 1] + "…"
    flat += lookalike_note(text)
    # Mermaid takes the rest of a line after "#" for a comment, and draws <br> as a line break (a forged second
    # line under a step): entity codes instead, which it shows as the characters.
    return flat.replace("#", "#35;").replace("<", "#lt;").replace(">", "#gt;")


def _request_label(message: dict) -> str:
    method, params = _short(message["method"]), message.get("params") or {}
    meta = params.get("_meta") or {}
    version = meta.get("io.modelcontextprotocol/protocolVersion") or params.get("protocolVersion")
    label = method
    if method == "tools/call":
        label += f" {_short(params.get('name'), 40)}({_short(json.dumps(params.get('arguments', {})), 40)})"
    if version:
        label += f" [{'_meta' if meta else 'params'}: {_short(version)}]"
    return label


def _result_label(message: dict, asked: str) -> str:
    if "error" in message:
        return f"error {_short(message['error'].get('code'), 12)}: {_short(message['error'].get('message', ''))}"
    result = message.get("result") or {}
    if asked == "server/discover":
        return f"supportedVersions {', '.join(result.get('supportedVersions', []))} + capabilities"
    if asked == "initialize":
        return f"protocolVersion {result.get('protocolVersion')} + capabilities"
    if asked == "tools/list":  # not "7 tools": a number first would read as a step
        return f"the tool list ({len(result.get('tools', []))} tools)"
    if asked == "tools/call":
        size = sum(len(c.get("text", "")) for c in result.get("content", []))
        return f"result: {size} characters{' (isError)' if result.get('isError') else ''}"
    return "result"


def sequence_diagram(trace: Trace, *, server: str = "docs server") -> str:
    """A mermaid sequence diagram of the trace, with the eight steps of a request numbered."""
    lines = ["sequenceDiagram", "    participant U as User", "    participant H as Host",
             "    participant M as Model", f"    participant S as {server}"]
    asked: dict[Any, str] = {}
    streams = 0
    connected = tool_called = False
    for kind, payload in trace.events:
        if kind in ("->", "<-") and isinstance(payload, dict) and _is_subscription(payload):
            streams += kind == "->" and payload.get("method") == "subscriptions/listen"
            continue
        if kind == "->" and isinstance(payload, dict):
            if "method" not in payload:
                continue
            if not connected:
                lines.append("    Note over H,S: 1. discovery")
                connected = True
            if "id" in payload:
                asked[payload["id"]] = payload["method"]
                step = "5. " if payload["method"] == "tools/call" else ""
                lines.append(f"    H->>S: {step}{_request_label(payload)}")
                if payload["method"] == "tools/call":
                    lines.append("    Note over S: 6. execution")
            else:
                lines.append(f"    H-)S: {_short(payload['method'])} (notification)")
        elif kind == "<-" and isinstance(payload, dict):
            method = asked.get(payload.get("id"), "")
            if method:
                step = "7. " if method == "tools/call" else ""
                lines.append(f"    S-->>H: {step}{_result_label(payload, method)}")
            elif "method" in payload:
                lines.append(f"    S-)H: {_short(payload['method'])} (notification)")
        elif kind == USER:
            lines.append(f"    U->>H: 2. {_short(payload)}")
        elif kind == ASKS_MODEL:
            step = "8. " if tool_called else "3. "  # asked again with the result: the answer's step
            count, tools = payload["messages"], len(payload["tools"])
            lines.append(f"    H->>M: {step}{count} message{'s' * (count != 1)} + {tools} tool{'s' * (tools != 1)}")
        elif kind == MODEL_SAYS:
            calls = payload if isinstance(payload, list) else [payload]
            if all(isinstance(c, ToolCall) for c in calls):
                tool_called = True
                named = ", ".join(f"{_short(c.name, 40)}({_short(c.arguments, 40)})" for c in calls)
                lines.append(f"    M-->>H: 4. tool call {named}")
            else:
                lines.append(f"    M-->>H: 8. the answer ({len(str(payload))} characters)")
        elif kind == CHECK:
            lines.append(f"    Note over H: 4. host check: {_short(payload['tool'])} {payload['decision']} "
                         f"({_short(payload['by'])})")
        elif kind == ANSWER:
            lines.append(f"    H->>U: 8. {_short(payload)}")
    if streams:
        lines.append(f"    Note over H,S: beside it: {streams} subscriptions/listen stream for list changes")
    return "\n".join(lines)
