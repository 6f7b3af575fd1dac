"""Embeddings on disk: unchanged sections are never embedded twice (lesson 3).

Vectors are keyed by the model (its name includes a fingerprint of its files) and the
text, so building the index again does not run the model, and another model never
reuses these vectors. A class can share one cache that the teacher built (`shared`,
read-only): a learner copies the vectors they need from it into their own cache instead
of computing them; what it lacks (another model, a changed section) they embed themselves.
"""

from __future__ import annotations

import hashlib
import os
import re
import sys
import time
from pathlib import Path

import numpy as np

from course.search.embeddings import Embedder, normalize


def epoch_day() -> int:
    """Days since 1970: when a cache entry was last used."""
    return int(time.time() // 86400)


class EmbeddingCache:
    """Vectors on disk, keyed by sha256(model name + text): unchanged sections are never embedded twice.

    Each entry remembers the day it was last used; saving drops entries unused for `KEEP_DAYS`
    (sections that were edited or deleted), so the file does not grow for ever. Several
    folders can share one cache: an entry in use somewhere stays.
    """

    KEEP_DAYS = 30

    def __init__(self, folder: Path, model: str, shared: Path | None = None):
        name = re.sub(r"[^A-Za-z0-9_.-]+", "_", model) + ".npz"
        self.path = Path(folder) / name
        self.shared = Path(shared) / name if shared is not None else None  # read, never written
        self.model = model
        self.vectors, self.used = read_cache(self.path)  # used: key -> day it was last used

    def key(self, text: str) -> str:
        return hashlib.sha256(f"{self.model}\n{text}".encode()).hexdigest()

    def copy_shared(self, keys: list[str]) -> int:
        """Take the vectors of `keys` that the shared cache holds into this one; how many it had."""
        if not keys or self.shared is None or self.shared == self.path:
            return 0
        shared, _ = read_cache(self.shared)
        found = [k for k in keys if k in shared]
        self.vectors.update((k, shared[k]) for k in found)
        return len(found)

    def touch(self, keys: list[str]) -> bool:
        """Mark `keys` as used today; True if the dates on disk are a week out of date (worth a save)."""
        now = epoch_day()
        stale = any(self.used.get(k, now) < now - 7 for k in keys)
        self.used.update(dict.fromkeys(keys, now))
        return stale

    def save(self) -> None:
        cutoff = epoch_day() - self.KEEP_DAYS
        keys = [k for k in self.vectors if self.used.get(k, epoch_day()) >= cutoff]
        if not keys:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_suffix(f".{os.getpid()}.tmp.npz")
        np.savez(tmp, keys=np.array(keys), vectors=np.stack([self.vectors[k] for k in keys]),
                 used=np.array([self.used.get(k, epoch_day()) for k in keys], dtype=np.int64))
        os.replace(tmp, self.path)  # atomic: a reader never sees half a file


def read_cache(path: Path) -> tuple[dict[str, np.ndarray], dict[str, int]]:
    """(vectors, day each was last used) from a cache file; empty when it is missing, damaged or unreadable."""
    if not path.is_file():
        return {}, {}
    try:
        with np.load(path) as data:  # allow_pickle=False (numpy's default): a file is data, never code
            keys = data["keys"].tolist()
            vectors = dict(zip(keys, data["vectors"], strict=True))
            days = data["used"].tolist() if "used" in data.files else [epoch_day()] * len(keys)
            return vectors, dict(zip(keys, days, strict=True))
    except PermissionError:  # a cache it may not read only costs a re-embedding
        print(f"Cannot read the embedding cache {path} (permission denied).", file=sys.stderr)
    except Exception as e:
        print(f"Ignoring the damaged embedding cache {path} ({type(e).__name__}).", file=sys.stderr)
    return {}, {}


def embed_all(texts: list[str], embedder: Embedder, cache: EmbeddingCache, batch: int = 16) -> np.ndarray:
    """Vectors for `texts`: from the cache, else the shared cache, else from the model (with a progress bar)."""
    from tqdm.auto import tqdm

    keys = [cache.key(t) for t in texts]
    absent = list(dict.fromkeys(k for k in keys if k not in cache.vectors))
    cache.copy_shared(absent)
    missing = [k for k in absent if k not in cache.vectors]
    if missing:
        todo = dict(zip(keys, texts, strict=True))
        # One batch is one step: a bar would jump from 0 to done (and a notebook would store it at 0).
        with tqdm(total=len(missing), desc="Embedding sections", unit="section", file=sys.stderr,
                  disable=len(missing) <= batch) as bar:
            for start in range(0, len(missing), batch):
                chunk = missing[start:start + batch]
                vectors = normalize(embedder.encode([todo[k] for k in chunk]))
                if len(vectors) != len(chunk):
                    raise ValueError(f"an embedder must return one vector per text: got {len(vectors)} for "
                                     f"{len(chunk)} texts")
                cache.vectors.update(zip(chunk, vectors, strict=True))
                bar.update(len(chunk))
    if cache.touch(keys) or absent:
        cache.save()
    return np.stack([cache.vectors[k] for k in keys])
