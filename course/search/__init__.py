"""Search a folder of markdown documents by meaning (lesson 3).

| module | holds |
|---|---|
| `documents` | markdown files cut into `Section`s at their `## ` headings |
| `embeddings` | the MiniLM model, loaded offline, and the fingerprint of its files |
| `batching` | many threads' questions embedded in one batch, repeated ones cached (the class server) |
| `cache` | embeddings on disk, so unchanged sections are never embedded twice; a class's shared cache, read-only |
| `lexical` | keyword search (BM25): the fallback and the comparison |
| `index` | `DocIndex`: sections, their vectors, `search()` -> `Hit`s |
| `evaluation` | hit@1 / hit@3 on a question set |
| `display` | the notebook's heat map |
"""

from course.offline import MODEL_DIR_VARIABLE
from course.search.batching import BatchingEmbedder
from course.search.cache import EmbeddingCache, embed_all, epoch_day
from course.search.display import heatmap
from course.search.documents import OVERVIEW, Section, excerpt, load_sections, parse_markdown
from course.search.embeddings import (
    INSTALL_HINT,
    MODEL_ID,
    Embedder,
    MiniLM,
    ModelUnavailable,
    cosine,
    load_model,
    model_available,
    model_dir,
    model_fingerprint,
    normalize,
)
from course.search.evaluation import evaluate
from course.search.index import DocIndex, Hit
from course.search.lexical import BM25, words

__all__ = ["BM25", "INSTALL_HINT", "MODEL_DIR_VARIABLE", "MODEL_ID", "OVERVIEW", "BatchingEmbedder", "DocIndex",
           "Embedder", "EmbeddingCache", "Hit", "MiniLM", "ModelUnavailable", "Section", "cosine", "embed_all",
           "epoch_day", "evaluate", "excerpt", "heatmap", "load_model", "load_sections", "model_available", "model_dir",
           "model_fingerprint", "normalize", "parse_markdown", "words"]
