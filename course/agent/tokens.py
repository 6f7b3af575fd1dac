"""Counting tokens without a tokenizer: 4 characters per token (lesson 2).

The loop budgets with this estimate, and the scripted model reports usage with it, so a
run against the scripted model keeps exactly to its budget.
"""

from __future__ import annotations

import json
from typing import Any

from course.conversation import estimate_tokens  # one estimate, below the loop and the scripted model


def prompt_estimate(messages: list[dict], tools: list[dict]) -> int:
    """Tokens a request's prompt will cost: 4 characters per token of its JSON."""
    return estimate_tokens(json.dumps(messages) + json.dumps(tools))


def used_tokens(response: Any, messages: list[dict], tools: list[dict]) -> int:
    """usage.total_tokens; servers that send no usage get our estimate, so the budget still holds."""
    usage = getattr(response, "usage", None)
    if usage is not None and usage.total_tokens is not None:
        return usage.total_tokens
    message = response.choices[0].message
    return prompt_estimate(messages, tools) + estimate_tokens(message.model_dump_json(exclude_none=True))
