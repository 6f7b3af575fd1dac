"""The agent loop with limits: steps, a token budget, a clock, repeated calls, a controlled finish (lesson 2).

    result = run_agent(client, model, "Where is my latest order?", tools=toolbox.definitions(),
                       execute=toolbox.execute, limits=Limits(max_steps=5))
    result.show()

One job per module: `loop.py` holds every decision, in a generator that never touches the
network; `drivers.py` runs it, sync (`run_agent`) or async (`arun_agent`); `limits.py` says
how far a run may go (and what is guaranteed); `tokens.py` counts; `repeats.py` spots a call
made twice; `model_errors.py` words a failed model call; `result.py` is what a run returns;
`notes.py` what the loop writes into the conversation; `inputs.py` checks what you pass.
"""

from course.agent.drivers import arun_agent, run_agent
from course.agent.inputs import as_messages, check_execute, check_limits, check_tools
from course.agent.limits import STOP_REASONS, Limits, limit_reached, why_stopped
from course.agent.loop import (
                               ModelRequest,
                               Request,
                               Run,
                               ToolRequest,
                               agent_loop,
                               answered,
                               finish,
                               finished,
                               next_limit,
                               run_tool_calls,
                               stopped_without_model,
)
from course.agent.model_errors import MODEL_ERRORS, describe_error, empty_answer
from course.agent.notes import APP_NOTE, FINISH_NOTE, REPEAT_NOTE
from course.agent.repeats import call_key, checked_key, unhashable_part
from course.agent.result import Result, Step
from course.agent.tokens import estimate_tokens, prompt_estimate, used_tokens

__all__ = [
    "APP_NOTE", "FINISH_NOTE", "MODEL_ERRORS", "REPEAT_NOTE", "STOP_REASONS", "Limits", "ModelRequest", "Request",
    "Result", "Run", "Step", "ToolRequest", "agent_loop", "answered", "arun_agent", "as_messages", "call_key",
    "check_execute", "check_limits", "check_tools", "checked_key", "describe_error", "empty_answer",
    "estimate_tokens", "finish", "finished", "limit_reached", "next_limit", "prompt_estimate", "run_agent",
    "run_tool_calls", "stopped_without_model", "unhashable_part", "used_tokens", "why_stopped",
]
