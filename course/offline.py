"""What "offline" means for the course, in one place: models load from local files, and runs
nobody watches use the scripted model, never a real one.

- `use_local_models()`: huggingface_hub reads its settings once, when it is imported, so the
  model loader calls this just before it imports sentence-transformers. Not at `import
  course.search`: importing a module should not change the environment of a process that may
  never load the model (a learner's kernel, the tests, a child server).
- `scripted()`: for a process that starts runs of the course by itself (tests, refreshing
  notebooks, benchmarks, grading). Its children and notebook kernels inherit the environment.
- `python -m course.offline MODULE [ARGS]` runs `python -m MODULE` that way (`make test`, `make bench`).
"""

from __future__ import annotations

import importlib.util
import os
import runpy
import sys
from collections.abc import Iterable, MutableMapping

MODEL_DIR_VARIABLE = "COURSE_EMBEDDING_MODEL_DIR"  # a folder with the embedding model, instead of the package's
LOCAL_MODELS = {"HF_HUB_OFFLINE": "1",  # weights come from an installed package, never from the Hub
                "HF_HUB_DISABLE_PROGRESS_BARS": "1",  # no "Loading weights" bar in notebook outputs
                "TOKENIZERS_PARALLELISM": "false"}  # no fork warning when a server or test starts a child
MODEL_VARIABLES = (*LOCAL_MODELS, MODEL_DIR_VARIABLE)  # what a child process needs to load the same model
SCRIPTED = {"COURSE_BACKEND": "scripted",  # the scripted model even if the shell has a key
            "COURSE_APPROVER": "scripted"}  # no human to click Approve
REAL_MODEL = ("OPENAI_API_KEY", "OPENAI_BASE_URL")  # removed: no run can spend money or leak a key


def use_local_models(environ: MutableMapping[str, str] = os.environ) -> None:
    """Load Hugging Face models from local files only, unless the user has set these already."""
    for name, value in LOCAL_MODELS.items():
        environ.setdefault(name, value)


def scripted(environ: MutableMapping[str, str] = os.environ, forget: Iterable[str] = ()) -> None:
    """Make `environ` (by default this process's, inherited by its children) offline: the scripted
    model and approver, local model files, no real model's key or URL, and none of `forget`."""
    for name in (*REAL_MODEL, *forget):
        environ.pop(name, None)
    environ.update(SCRIPTED)
    use_local_models(environ)


def main(argv: list[str]) -> None:
    if not argv or argv[0].startswith("-"):
        sys.exit("usage: python -m course.offline MODULE [ARGS...]  (runs `python -m MODULE` offline)")
    try:
        found = importlib.util.find_spec(argv[0])
    except ImportError:
        found = None
    if found is None:
        sys.exit(f"No module named {argv[0]!r}: give the name you would pass to `python -m`, e.g. pytest.")
    scripted()
    sys.argv = argv
    runpy.run_module(argv[0], run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main(sys.argv[1:])
