"""Re-execute notebooks and store their outputs (`make notebooks`).

The stored outputs are what nbval compares in `make test`, so refresh after changing
what a notebook shows. Refuses to overwrite a notebook with uncommitted changes (a
learner's work) unless `--force`.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time

import nbformat
from nbclient import NotebookClient

from course.paths import ROOT

KERNEL = "course"
OFFLINE_ENV = {"COURSE_BACKEND": "scripted", "COURSE_APPROVER": "scripted", "HF_HUB_OFFLINE": "1",
               "HF_HUB_DISABLE_PROGRESS_BARS": "1", "TOKENIZERS_PARALLELISM": "false"}


def has_local_changes(path: str) -> bool:
    done = subprocess.run(["git", "diff", "--quiet", "--", path], cwd=ROOT, capture_output=True)
    return done.returncode == 1


def refresh(path: str) -> float:
    nb = nbformat.read(path, as_version=4)
    start = time.perf_counter()
    NotebookClient(nb, timeout=120, kernel_name=KERNEL,
                   resources={"metadata": {"path": os.path.dirname(os.path.abspath(path))}}).execute()
    for cell in nb.cells:
        cell.metadata.pop("execution", None)  # timestamps: noise in diffs
    nb.metadata["kernelspec"] = {"name": KERNEL, "display_name": "Python (course)", "language": "python"}
    nbformat.write(nb, path)
    return time.perf_counter() - start


def main(args: list[str]) -> int:
    force = "--force" in args
    paths = [a for a in args if a != "--force"]
    os.environ.update(OFFLINE_ENV)
    for var in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "CI"):
        os.environ.pop(var, None)
    for path in paths:
        if has_local_changes(path) and not force:
            print(f"{path}: has uncommitted changes (your work?). Commit or copy them, "
                  "or run `make notebooks FORCE=1` to overwrite.")
            return 1
        print(f"{path}: {refresh(path):.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
