"""What one model turn says, whichever provider said it (lesson 7).

The loop never reads a provider's wire format: an adapter turns each answer into a
`ModelTurn` (text, `ToolCall`s, why it stopped, tokens) and each `ToolResult` back into
the provider's format. The error flag travels in the text: neither a Chat Completions
`tool` message nor a Responses `function_call_output` has an `is_error` field, so a failed
call always reaches the model as text that starts with "Error".
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

ERROR = "Error"


@dataclass(frozen=True)
class ToolCall:
    """One call the model asked for. `arguments` is the JSON text as the model wrote it."""

    id: str  # the id the result must quote (`tool_call_id` / `call_id`)
    name: str
    arguments: str

    def parsed(self) -> object:
        """The arguments as Python, or None when the model wrote something that is not JSON."""
        try:
            return json.loads(self.arguments or "{}")
        except json.JSONDecodeError:
            return None


@dataclass(frozen=True)
class ToolResult:
    """What a call returned, and whether it failed."""

    call_id: str
    text: str
    is_error: bool = False

    @classmethod
    def from_text(cls, call_id: str, text: str) -> ToolResult:
        """A result read back from a transcript: the flag is the "Error" prefix."""
        return cls(call_id, text, text.startswith(ERROR))

    def for_model(self) -> str:
        """The text the model reads; a failure always says so first."""
        if self.is_error and not self.text.startswith(ERROR):
            return f"{ERROR}: {self.text}"
        return self.text


@dataclass(frozen=True)
class Usage:
    input_tokens: int = 0
    output_tokens: int = 0

    @property
    def total(self) -> int:
        return self.input_tokens + self.output_tokens


@dataclass(frozen=True)
class ModelTurn:
    """One answer: text, or calls to make (or both), and why the model stopped."""

    text: str | None
    calls: tuple[ToolCall, ...] = ()
    stop: str = "done"  # "done", "tool_calls", "length" (cut at the token limit) or "refused"
    usage: Usage = field(default_factory=Usage)
