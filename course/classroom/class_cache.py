"""The class's embedding cache: the teacher embeds the documents once, every learner reads it (`make class-cache`).

    python -m course.classroom.class_cache [--out DIR]    # default .cache/class-embeddings, where the hub looks

On a hub of 30, each learner's first `DocIndex()` in lesson 3 runs the model over every section
(~17 CPU-seconds each, all at once). Built here once, the vectors go to DIR, readable by everyone
and writable by its owner only; `jupyterhub_config.py` gives the learners' kernels
`COURSE_SHARED_EMBEDDINGS=DIR` when DIR holds a cache, and `DocIndex` copies what it needs from
it into the learner's own cache instead of running the model. Nothing a learner runs writes to
DIR. After an edit of `data/`, or another model, the changed sections' entries are not in DIR:
learners embed those themselves (their own cache) until the teacher builds it again.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from course import paths

DEFAULT_OUT = paths.ROOT / ".cache" / "class-embeddings"


def build(out: Path, folder: Path = paths.DATA, embedder: Any = "auto") -> tuple[int, Path]:
    """Embed `folder`'s sections into `out` with lesson 3's model (or `embedder`); (sections, cache file)."""
    from course.search import DocIndex, EmbeddingCache

    index = DocIndex(folder, cache_dir=out, embedder=embedder, shared_cache=None)
    if index.mode != "embeddings" or index.embedder is None:
        raise SystemExit("The embedding model did not load (the message above says why): nothing was built. "
                         "`make doctor` checks the model.")
    out.chmod(0o755)  # learners (other users on a real hub) may read, never write
    cache = EmbeddingCache(out, index.embedder.name).path
    cache.chmod(0o644)
    return len(index.sections), cache


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m course.classroom.class_cache", description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help=f"the shared folder (default {DEFAULT_OUT})")
    args = parser.parse_args(argv)
    out = args.out.expanduser().resolve()
    sections, cache = build(out)
    print(f"{sections} sections embedded into {cache} ({cache.stat().st_size // 1024} KB), readable by everyone.\n"
          f"Learners' kernels use it with {paths.SHARED_EMBEDDINGS_ENV}={out}: `make hub` sets it"
          + ("" if out == DEFAULT_OUT else f" when started with {paths.SHARED_EMBEDDINGS_ENV}={out}") + ".")


if __name__ == "__main__":
    main()
