"""`python -m course.scripted module:rule [port]`: serve a story until interrupted."""

from __future__ import annotations

import importlib
import sys
import threading

from course.scripted import ScriptedModel


def main(argv: list[str]) -> None:
    if not argv or ":" not in argv[0]:
        sys.exit("usage: python -m course.scripted course.stories.lesson1:order_status [port]")
    module, _, attr = argv[0].partition(":")
    rule = getattr(importlib.import_module(module), attr)
    with ScriptedModel(rule).serve(int(argv[1]) if len(argv) > 1 else 0) as url:
        print(f"Scripted model serving at {url}", flush=True)
        try:
            threading.Event().wait()
        except KeyboardInterrupt:
            pass


if __name__ == "__main__":
    main(sys.argv[1:])
