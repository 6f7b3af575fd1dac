"""Handshake-era sessions on the class server: a cap per learner, and a short idle timeout (issue 21).

A 2025-era client (`initialize`, then an `mcp-session-id`) holds a session on the server until it
says goodbye (DELETE) or has been idle for the SDK's `session_idle_timeout`. The SDK caps open
sessions for the whole server (10,000) and keeps idle ones 30 minutes: one learner opening
sessions in a loop filled the cap in four minutes, and every other learner's `initialize` got
503 for half an hour (and the server grew by 430 MB). Here:

- each learner (the token's owner) may hold `PER_LEARNER` sessions at once; their next
  `initialize` is refused (503, as the SDK refuses one at its cap) until one of theirs ends, so
  the server's cap is never reached: it is `PER_LEARNER` times the number of learners;
- a session with no request in flight and no open stream ends after `IDLE_SECONDS`. A live
  handshake-era client keeps its GET stream open, so it is never idle; a notebook that
  vanished without a DELETE frees its sessions within two minutes.

The 2026 protocol (the course's `Client` by default) opens no session at all: none of this applies.
The hook is the SDK's session manager (`StreamableHTTPSessionManager._admit_session`, mcp 2.3),
checked when the app is built, so an SDK that renamed it fails loudly here, not silently open.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any

PER_LEARNER = 16  # a learner's notebooks, open at once, each with a connection or two
IDLE_SECONDS = 120.0
SDK_LOGGER = "mcp.server.streamable_http_manager"
SDK_REFUSAL = "Refusing to open a new session"  # the SDK's warning, which names its server-wide count
QUIET_SECONDS = 60.0  # one line per learner per minute in the teacher's terminal, not one per refusal


class _Refusals(logging.Filter):
    """Rewrites the SDK's refusal warning to name the learner and their cap, once a minute per learner."""

    def __init__(self, per_learner: int):
        super().__init__()
        self.per_learner = per_learner
        self.learner: str | None = None  # refused by the cap just now: the SDK's warning follows
        self._said: dict[str, float] = {}

    def filter(self, record: logging.LogRecord) -> bool:
        if not str(record.msg).startswith(SDK_REFUSAL) or self.learner is None:
            return True
        learner, self.learner = self.learner, None
        now = time.monotonic()
        if now - self._said.get(learner, -QUIET_SECONDS) < QUIET_SECONDS:
            return False
        self._said[learner] = now
        record.msg, record.args = ("class server: %s holds %d open sessions, their share; their new sessions are "
                                   "refused (503) until one ends (idle ones end after %g s). Said once a minute.",
                                   (learner, self.per_learner, IDLE_SECONDS))
        return True


def sessions_of(manager: Any, owner: Any) -> int:
    """How many open sessions of `manager` were opened with `owner`'s credential."""
    return sum(1 for known in manager._session_owners.values() if known == owner)


def cap_per_learner(manager: Any, per_learner: int = PER_LEARNER,
                    on_refused: Callable[[str, str, str | None, str], None] | None = None) -> None:
    """Refuse a learner's new session while they hold `per_learner` open ones (the manager is the SDK's);
    `on_refused(learner, "initialize", None, "sessions")` hears of each refusal (the class server's call log)."""
    admit = getattr(manager, "_admit_session", None)
    if admit is None or not hasattr(manager, "_session_owners"):
        raise RuntimeError("This mcp version's session manager has no _admit_session/_session_owners: the class "
                           "server cannot cap sessions per learner. Use the pinned mcp (requirements.lock).")

    refusals = _Refusals(per_learner)
    logging.getLogger(SDK_LOGGER).addFilter(refusals)

    def admit_within_share(requestor: Any) -> Any:
        if requestor is not None and sessions_of(manager, requestor) >= per_learner:
            refusals.learner = requestor.get("client_id") or "a learner"
            if on_refused is not None and requestor.get("client_id"):
                on_refused(requestor["client_id"], "initialize", None, "sessions")
            return None  # the SDK answers 503 "Too many open sessions", to this learner only
        return admit(requestor)

    manager._admit_session = admit_within_share
