"""One switch for the model: scripted offline, or a real one (lesson 1).

    client, model = connect(offline=stories.order_status)

- nothing set: the scripted model follows `offline` (a script or a rule);
- `OPENAI_API_KEY`: OpenAI's API;
- `OPENAI_BASE_URL` (with or without a key): any OpenAI-compatible server,
  e.g. Ollama at http://localhost:11434/v1;
- `COURSE_BACKEND=scripted` forces the scripted model even when a key is set
  (`make test` does this, so tests never spend money).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

import openai

from course.model_id import MODEL, model_id  # re-exported: course.backend.MODEL, model_id
from course.scripted import Rule, ScriptedModel, Turn

__all__ = ["MODEL", "connect", "model_id"]


def backend_kind() -> str:
    """`scripted`, `openai` or `compatible`, from the environment."""
    if os.environ.get("COURSE_BACKEND") == "scripted":
        return "scripted"
    if os.environ.get("OPENAI_BASE_URL"):
        return "compatible"
    return "openai" if os.environ.get("OPENAI_API_KEY") else "scripted"


@dataclass(frozen=True)
class Backend:
    """What `connect` returns; unpacks as `client, model = connect(...)`."""

    client: Any  # openai.OpenAI or openai.AsyncOpenAI
    model: str
    kind: str  # "scripted", "openai" or "compatible"
    scripted: ScriptedModel | None = None  # the fake, when offline: its `.requests` show what was sent

    def __iter__(self):
        return iter((self.client, self.model))


def connect(offline: list[Turn] | Rule | None = None, *, asynchronous: bool = False, quiet: bool = False,
            **options: Any) -> Backend:
    """Return the client and model id for the selected backend, and say which one it is.

    `offline` is what the scripted model does when no real model is configured; with a
    real model it is ignored. `options` go to the client (e.g. `max_retries=0`).
    """
    kind = backend_kind()
    if kind != "scripted":
        cls = openai.AsyncOpenAI if asynchronous else openai.OpenAI
        # Local servers ignore the key, but the SDK refuses to start without one.
        key = os.environ.get("OPENAI_API_KEY") or "not-needed-for-local-servers"
        client = cls(api_key=key, **options)
        where = "OpenAI" if kind == "openai" else f"OpenAI-compatible server at {client.base_url}"
        problem = preflight(key, str(client.base_url))
        if problem is None:
            if not quiet:
                print(f"Backend: {where}; model: {model_id()}")
            return Backend(client, model_id(), kind)
        print(f"Could not use {where}: {problem}\nUsing the scripted model instead, so the lesson still runs.")
    fake = ScriptedModel(offline if offline is not None else _no_script)
    client = fake.async_client(**options) if asynchronous else fake.client(**options)
    if not quiet:
        print(f"Backend: offline: the scripted model (set OPENAI_API_KEY or OPENAI_BASE_URL for a real one); "
              f"model: {model_id()}")
    return Backend(client, model_id(), "scripted", fake)


def preflight(key: str, base_url: str) -> str | None:
    """One cheap request (list models) so a wrong key or a server that is not running gets a clear
    message here, not a traceback in the middle of a lesson. None when the backend answers."""
    probe = openai.OpenAI(api_key=key, base_url=base_url, max_retries=0, timeout=10)
    try:
        probe.models.list()
    except openai.AuthenticationError:
        return "the API key was rejected (401). Check OPENAI_API_KEY, or unset it to work offline."
    except openai.APIConnectionError:
        return (f"nothing answered at {base_url}. Is the server running (e.g. `ollama serve`)? Check "
                "OPENAI_BASE_URL (it usually ends in /v1), or unset it to work offline.")
    except openai.APIStatusError:
        return None  # some compatible servers have no model list; the lesson's own requests will tell
    finally:
        probe.close()
    return None


def _no_script(body: dict) -> str:
    return ("(scripted model) I have no script for this conversation. Pass one to "
            "connect(offline=...) or set OPENAI_API_KEY to talk to a real model.")
