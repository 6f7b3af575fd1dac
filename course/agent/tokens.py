"""Counting tokens without a tokenizer: 4 characters per token (lesson 2).

The loop budgets with this estimate, and the scripted model reports usage with it, so a
run against the scripted model keeps exactly to its budget.
"""

from __future__ import annotations

import math


def estimate_tokens(text: str) -> int:
    """Tokens in `text`, estimated at 4 characters per token (about right for English)."""
    return math.ceil(len(text) / 4)
