"""Re-execute notebooks and store their outputs (`make notebooks`, or `python -m tools.refresh [--force] NB...`).

The stored outputs are what nbval compares in `make test`, so refresh after changing
what a notebook shows. Refuses to overwrite a notebook with uncommitted changes (a
learner's work) unless `--force`.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient

from course import offline

ROOT = Path(__file__).resolve().parents[1]  # the repository: an authoring tool, not part of the course package

KERNEL = "course"


def has_local_changes(path: str) -> bool:
    """Edited since the last commit, or not in git at all (a learner's copy): someone's work."""
    tracked = subprocess.run(["git", "ls-files", "--error-unmatch", "--", path], cwd=ROOT, capture_output=True)
    if tracked.returncode != 0:
        return True
    done = subprocess.run(["git", "diff", "--quiet", "--", path], cwd=ROOT, capture_output=True)
    return done.returncode == 1


def sanitizers() -> list[tuple[re.Pattern, str]]:
    """The regex/replace pairs of notebooks/sanitize.cfg, read as nbval reads them."""
    from nbval.plugin import get_sanitize_patterns

    text = (ROOT / "notebooks/sanitize.cfg").read_text()
    return [(re.compile(regex), replace) for regex, replace in get_sanitize_patterns(text)]


def comparable(outputs: list, rules: list[tuple[re.Pattern, str]]) -> str:
    """What nbval compares: streams merged per name, data per MIME type, then sanitized."""
    parts: dict[str, str] = {}
    for out in outputs:
        if out.get("output_type") == "stream":
            parts[out["name"]] = parts.get(out["name"], "") + out["text"]
        for mime, value in out.get("data", {}).items():
            if not mime.startswith(("image/", "application/vnd.jupyter.widget")):
                parts[mime] = parts.get(mime, "") + (value if isinstance(value, str) else repr(value))
        if out.get("output_type") == "error":
            parts["error"] = out["ename"]
    for mime, text in parts.items():  # each text on its own, as nbval does: a rule may anchor at a line's end
        for pattern, replacement in rules:
            text = pattern.sub(replacement, text)
        parts[mime] = text
    return repr(sorted(parts.items()))


def refresh(path: str) -> float:
    nb = nbformat.read(path, as_version=4)
    old = [cell.get("outputs", []) for cell in nb.cells]
    start = time.perf_counter()
    NotebookClient(nb, timeout=120, kernel_name=KERNEL,
                   resources={"metadata": {"path": os.path.dirname(os.path.abspath(path))}}).execute()
    rules = sanitizers()
    for cell, before in zip(nb.cells, old, strict=True):
        cell.metadata.pop("execution", None)  # timestamps: noise in diffs
        # Keep the stored output when only timings and the like differ: diffs show real changes only.
        if cell.cell_type == "code" and comparable(before, rules) == comparable(cell.outputs, rules):
            cell.outputs = before
    nb.metadata.pop("widgets", None)  # widget state has random ids: churn in diffs, and nbval ignores it
    nb.metadata["kernelspec"] = {"name": KERNEL, "display_name": "Python (course)", "language": "python"}
    nbformat.write(nb, path)
    return time.perf_counter() - start


def main(args: list[str]) -> int:
    force = "--force" in args
    paths = [a for a in args if a != "--force"]
    offline.scripted(forget=["CI"])  # stored outputs are what a learner sees, not CI's
    for path in paths:
        if has_local_changes(path) and not force:
            print(f"{path}: has uncommitted changes (your work?). Commit or copy them, "
                  "or run `make notebooks FORCE=1` to overwrite.")
            return 1
        print(f"{path}: {refresh(path):.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
