"""What a run returns: its answer, why it stopped, and a trace of every step (lesson 2)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class Step:
    """One answered model call and the tool calls it asked for (as `name(arguments)`)."""

    number: int
    tool_calls: list[str]
    tokens: int
    seconds: float
    forced: bool = False  # the controlled finish: tools were switched off for this call
    empty: bool = False  # the model sent neither text nor a tool call


@dataclass
class Result:
    answer: str
    stop_reason: str  # one of STOP_REASONS
    steps: int  # answered model calls, the finish included (a call that failed is not counted)
    tokens: int  # sum of the responses' usage.total_tokens
    trace: list[Step]
    # The whole conversation. It ends with `answer` as an assistant message (the model's, or the
    # loop's own when the model could not give one), so it can be continued; after a
    # "model_error" it ends before the call that failed instead, so that call can be retried.
    messages: list[dict]
    error: str | None = None  # what went wrong: a model call failed, or its answer was unusable
    seconds: float = 0.0

    def show(self) -> None:
        """Print the trace as a plain-text table, then how the run ended."""
        # Times go last and unpadded, so that notebooks/sanitize.cfg can replace them without
        # leaving a different number of spaces behind.
        rows = [(s, s.tool_calls or [("-> empty answer" if s.empty else "-> answer")
                                     + (" (tools off)" if s.forced else "")]) for s in self.trace]
        width = max([len("tool calls"), *(len(c) for _, calls in rows for c in calls)])
        print(f"{'step':>4}  {'tokens':>6}  {'tool calls':<{width}}  time")
        for s, calls in rows:
            print(f"{s.number:>4}  {s.tokens:>6}  {calls[0]:<{width}}  {s.seconds * 1000:.1f} ms")
            for more in calls[1:]:
                print(f"{'':>4}  {'':>6}  {more}")
        print(f"stop: {self.stop_reason} · {self.steps} model calls · {self.tokens} tokens · "
              f"{self.seconds * 1000:.1f} ms")
        if self.error:
            print(f"error: {self.error}")
