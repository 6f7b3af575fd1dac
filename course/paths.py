"""Where the course keeps things: the shop's documents (read-only, in the install) and `WORK`,
everything a learner's run creates (the shop's stores, the embedding cache, servers' logs).

`WORK` is per user, so that the users of one install (a JupyterHub, a shared lab machine) never
share a store, a cache or a log:

1. `COURSE_WORK`, when set (a teacher's choice; the tests point it at a temporary folder);
2. else `$XDG_STATE_HOME/llm-mcp-course` (the freedesktop place for state a program keeps);
3. else `~/.local/state/llm-mcp-course`, where `~` is the user's home (`HOME`; on Windows
   `USERPROFILE`). A JupyterHub gives every user their own `HOME`, hence their own `WORK`.

Lesson 3's embedding cache (`WORK/embeddings`) is per user too: each learner embeds the documents
once (~17 CPU-seconds). On a hub the teacher can build one for the class instead (`make
class-cache`): `COURSE_SHARED_EMBEDDINGS` names that folder, which learners read and never write.
Its entries are keyed by sha256(model fingerprint + text), so a vector is never picked for another
text or model: a stale shared cache is simply not used for what changed (course/search/cache.py).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

__all__ = ["DATA", "ROOT", "WORK"]

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "data"  # the shop's policy documents (lesson 3)
APP = "llm-mcp-course"
WORK_ENV = "COURSE_WORK"
SHARED_EMBEDDINGS_ENV = "COURSE_SHARED_EMBEDDINGS"


def work_dir(environ: Mapping[str, str] | None = None) -> Path:
    """Where this user's state goes, from `environ` (default: this process's environment)."""
    environ = os.environ if environ is None else environ
    if environ.get(WORK_ENV):
        return Path(environ[WORK_ENV]).expanduser().resolve()
    state = environ.get("XDG_STATE_HOME")
    if state and Path(state).is_absolute():  # the spec says a relative value is to be ignored
        return Path(state) / APP
    home = environ.get("HOME") or environ.get("USERPROFILE")
    return (Path(home) if home else Path.home()) / ".local" / "state" / APP


def shared_embeddings(environ: Mapping[str, str] | None = None) -> Path | None:
    """The class's read-only embedding cache (`COURSE_SHARED_EMBEDDINGS`), if the teacher set one."""
    environ = os.environ if environ is None else environ
    folder = environ.get(SHARED_EMBEDDINGS_ENV)
    return Path(folder).expanduser().resolve() if folder else None


WORK = work_dir()  # state the lessons create: the shop's stores, caches, logs
SHARED_EMBEDDINGS = shared_embeddings()  # the teacher's embedding cache, read-only; None: each learner's own


def lesson_notebook(folder: Path, lesson: int) -> Path | None:
    """A learner's saved notebook of `lesson` in `folder`: the one named as the course names it before any copy
    (`02_agent_loop-Copy1.ipynb` sorts before `02_agent_loop.ipynb`), else the first by name. Lesson 8's
    assemble step and the grader pick with this, so both read the same notebook."""
    found = sorted(folder.glob(f"{lesson:02d}_*.ipynb"),
                   key=lambda p: (not (ROOT / "notebooks" / p.name).is_file(), p.name))
    return found[0] if found else None
