"""Checks for lesson 3's exercises (notebooks/03_document_search.ipynb), in the order the lesson builds things.

Every check tries the learner's code on the lesson's example and on cases it makes up as it
runs (markdown documents with odd headings, random vectors, a tiny word-count embedder,
question sets), so only code that does the job in general passes. None loads the embedding
model: they run in milliseconds. Hints say what is wrong, then how to go about it.

| module | holds |
|---|---|
| `given` | what the notebook has imported before each exercise cell |
| `cases` | made-up documents, vectors, a word-count embedder and question sets |
| `sections` | `l3-sections` |
| `ranking` | `l3-rank`, `l3-search-docs` |
| `hits` | `l3-hit-at-k`, `l3-best-per-doc` |
"""

# Importing the check modules registers their checks, in the order the lesson builds things.
from course.exercises.lesson3 import sections, ranking, hits  # isort: skip

__all__ = ["sections", "ranking", "hits"]
