"""A failed model call, or an unusable answer, as one sentence that says what to do (lesson 2)."""

from __future__ import annotations

from typing import Any

import openai

MODEL_ERRORS = (openai.APIError,)  # timeouts, connection errors, every HTTP error status


def describe_error(error: BaseException) -> str:
    """A model error as one sentence that says what happened and what to do."""
    body = getattr(error, "body", None)
    detail = body.get("message") if isinstance(body, dict) and body.get("message") else getattr(error, "message", "")
    if isinstance(error, openai.APITimeoutError):
        return "the model did not answer in time (request timed out, after the SDK's retries). Try again later."
    if isinstance(error, openai.APIConnectionError):
        return (f"could not reach the model at {error.request.url} ({error.__cause__ or detail}). "
                "Is the server running and OPENAI_BASE_URL right?")
    if isinstance(error, openai.RateLimitError):
        return f"rate limited (HTTP 429: {detail}), even after the SDK's retries. Wait a little and run again."
    if isinstance(error, openai.InternalServerError):
        return f"the model's server failed (HTTP {error.status_code}: {detail}), even after retries. Try again later."
    if isinstance(error, openai.AuthenticationError):
        return f"the API key was refused (HTTP 401: {detail}). Check OPENAI_API_KEY."
    if isinstance(error, openai.BadRequestError):
        return f"the API rejected the request (HTTP 400: {detail}). Retrying will not help: fix the request."
    if isinstance(error, openai.APIStatusError):
        return f"the API answered HTTP {error.status_code}: {detail}"
    return f"{type(error).__name__}: {detail or error}"


def empty_answer(response: Any) -> str:
    """Why an answer with neither text nor tool calls is unusable, and what to do."""
    why = response.choices[0].finish_reason
    cut = " (cut off at the length limit)" if why == "length" else ""
    return f"the model sent an empty answer{cut}, finish_reason={why!r}. Try again, or ask differently."
