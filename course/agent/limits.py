"""How far one run may go, and the limit that stops it (lesson 2).

- `max_steps`: at most this many model calls may use tools. When they are used up, one
  more call with `tool_choice="none"` writes the answer (the controlled finish), so a run
  makes at most `max_steps + 1` model calls.
- `max_tokens`: tokens are the sum of the responses' `usage.total_tokens`. Before each
  request the loop estimates its cost: the prompt at 4 characters per token (the JSON of
  messages and tools, the scripted model's own count) plus `reply_tokens` for the reply.
  A tool step is sent only if the budget also leaves room for one more request of the same
  size (the finish); the finish is sent only if it fits, otherwise the loop answers without
  the model. So a run stays within `max_tokens` as long as the estimate is not too low:
  exact for the scripted model when replies stay under `reply_tokens`; a real tokenizer can
  count more, and then a run can overshoot by that error (the loop stops as soon as it sees
  the budget used up). `reply_tokens` is only a guess: the loop does not send the API's
  `max_completion_tokens`, so nothing cuts a reply off at that size.
- `max_seconds`: checked between steps; a model call in progress is not interrupted (set the
  client's `timeout=` for that), and the finish call comes on top.
"""

from __future__ import annotations

from dataclasses import dataclass

STOP_REASONS = ("done", "max_steps", "max_tokens", "max_seconds", "model_error")


@dataclass(frozen=True)
class Limits:
    """How far one run may go. `reply_tokens` is what the budget keeps free for each reply.

    `reply_tokens` is an estimate, not a cap: to really cut replies short, the API's
    `max_completion_tokens` option would have to be sent, which this loop does not do.
    """

    max_steps: int = 8
    max_tokens: int = 20_000
    max_seconds: float | None = None
    reply_tokens: int = 400

    def __post_init__(self) -> None:
        if not isinstance(self.max_steps, int) or self.max_steps < 0:
            raise ValueError(f"max_steps must be a whole number >= 0, not {self.max_steps!r}.")
        if not isinstance(self.max_tokens, int) or self.max_tokens <= 0:
            raise ValueError(f"max_tokens must be a whole number > 0, not {self.max_tokens!r}.")
        if self.max_seconds is not None and not self.max_seconds > 0:
            raise ValueError(f"max_seconds must be > 0 seconds, or None for no clock; not {self.max_seconds!r}.")
        if not isinstance(self.reply_tokens, int) or self.reply_tokens < 0:
            raise ValueError(f"reply_tokens must be a whole number >= 0, not {self.reply_tokens!r}.")


def limit_reached(limits: Limits, *, tool_steps: int, tokens: int, elapsed: float, next_cost: int) -> str | None:
    """Before the next tool step: the limit that stops the run, or None to go on."""
    if tool_steps >= limits.max_steps:
        return "max_steps"
    if tokens + 2 * next_cost > limits.max_tokens:  # this step, and room for a finish as big
        return "max_tokens"
    if limits.max_seconds is not None and elapsed >= limits.max_seconds:
        return "max_seconds"
    return None


def why_stopped(reason: str, limits: Limits) -> str:
    """The limit that stopped a run, in words (for the model's note and the loop's own answer)."""
    if reason == "max_steps":
        n = limits.max_steps
        return ("the assistant may not use tools here" if n == 0 else
                "the assistant has used the one tool step it is allowed" if n == 1 else
                f"the assistant has used all {n} tool steps it is allowed")
    if reason == "max_tokens":
        return f"the token budget ({limits.max_tokens} tokens) does not allow another step"
    return f"the time limit of {limits.max_seconds} seconds is reached"
