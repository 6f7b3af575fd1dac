"""What the application and any model, the scripted one too, agree on in a conversation (lessons 1 and 2).

Kept below both the loop (course.agent) and the scripted model (course.scripted), so that neither imports the
other: the token estimate the loop budgets with and the scripted model reports usage with, and the mark on
the notes the loop adds as user messages, which a story must not take for the customer speaking.
"""

from __future__ import annotations

import math

# Notes the application adds as user messages (the controlled finish) start with this, so that
# whoever reads the conversation (the scripted model's stories too) can tell them from the customer.
APP_NOTE = "(Note from the application, not from the customer:"


def estimate_tokens(text: str) -> int:
    """Tokens in `text`, estimated at 4 characters per token (about right for English)."""
    return math.ceil(len(text) / 4)
