"""Three read-only tools over a `DocIndex`: search_docs, read_section, list_documents (lesson 3).

The model searches first (short excerpts, cheap in tokens), then reads the one section
it needs in full, and cites it as `document › section`. Every bad input becomes a
`ToolFailure` that says what to do instead. The tools answer only from the index's
sections, which were loaded from inside its folder: a name from the model is only
looked up among them, never turned into a file path.
"""

from __future__ import annotations

import re
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from course import paths
from course.errors import ToolFailure
from course.search import DocIndex
from course.tools import Tool, Toolbox

__all__ = ["DocTools"]

MAX_K = 5
PATH_LIKE = re.compile(r"[/\\]|\.\.|^~|^[A-Za-z]:")  # a separator, a parent, a home or a drive


class SearchDocs(BaseModel):
    model_config = ConfigDict(extra="forbid")
    query: Annotated[str, Field(min_length=1, max_length=500,
                                description="What to look for, in plain words, e.g. 'how long do refunds take'")]
    k: Annotated[int, Field(ge=1, le=MAX_K, description="How many sections to return (1-5)")] = 3


class ReadSection(BaseModel):
    model_config = ConfigDict(extra="forbid")
    document: Annotated[str, Field(min_length=1, max_length=100,
                                   description="Document name from search_docs or list_documents, e.g. 'refunds'")]
    section: Annotated[str, Field(min_length=1, max_length=200,
                                  description="Section heading exactly as listed, e.g. 'Time limits'")]


class ListDocuments(BaseModel):
    model_config = ConfigDict(extra="forbid")


def reject_path(kind: str, name: str, example: str) -> None:
    """A path-like name ('../secrets', '/etc/passwd', 'C:x') gets an error that says so.

    This only chooses the message: the tools look names up among the loaded sections and never
    open a file by name, so safety does not depend on it.
    """
    name = name.strip()
    if PATH_LIKE.search(name):
        raise ToolFailure(f"{name!r} is not a {kind} name: use a plain name from list_documents, such as "
                          f"{example!r}, not a file path.")


class DocTools:
    """The tools a model uses to answer from the shop's documents."""

    def __init__(self, index: DocIndex):
        self.index = index

    def search_docs(self, query: str, k: int = 3) -> list[dict]:
        """The best `k` sections. Scores are rounded to 2 decimals: enough to compare, and the same on
        every machine. In keyword mode each hit says `"match": "keywords"` (its score is BM25, not a
        similarity from 0 to 1). An empty query is refused by `DocIndex.search`."""
        if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= MAX_K:
            raise ToolFailure(f"k must be a whole number from 1 to {MAX_K} (got {k!r}). Use 3 unless you "
                              "need more.")
        hits = self.index.search(query, k)
        extra = {"match": "keywords"} if self.index.mode == "lexical" else {}  # read after: it may fall back
        return [{"document": h.doc, "section": h.heading, "score": round(h.score, 2), "excerpt": h.excerpt,
                 **extra} for h in hits]

    def find_document(self, name: str) -> str | None:
        """The loaded document called `name` (or `name.md`, or the same name in another case), else None."""
        docs = self.index.documents()
        for candidate in (name, name.removesuffix(".md")):
            if candidate in docs:
                return candidate
        folded = [d for d in docs if d.casefold() == name.removesuffix(".md").casefold()]
        return folded[0] if len(folded) == 1 else None

    def read_section(self, doc: str, section: str) -> dict:
        if not isinstance(doc, str) or not doc.strip():
            raise ToolFailure("The document name is empty. Use a name from list_documents.")
        docs = self.index.documents()
        name = self.find_document(doc.strip())
        if name is None:
            reject_path("document", doc, example=next(iter(docs)))  # a path gets its own message
            raise ToolFailure(f"There is no document {doc.strip()!r}. Documents: {', '.join(docs)}.")
        doc = name
        section = section.strip().lstrip("#").strip() if isinstance(section, str) else section
        if not section:
            raise ToolFailure("The section name is empty. Use a section name from search_docs or "
                              "list_documents.")
        found = self.index.section(doc, section)
        if found is None:
            headings = "; ".join(s.heading for s in docs[doc])
            raise ToolFailure(f"The document {doc!r} has no section {section!r}. Its sections: {headings}.")
        return {"document": found.doc, "title": found.title, "section": found.heading, "text": found.text,
                "cite_as": found.label}

    def list_documents(self) -> list[dict]:
        return [{"document": doc, "title": sections[0].title, "sections": [s.heading for s in sections]}
                for doc, sections in self.index.documents().items()]

    def describe_search(self) -> str:
        """search_docs' description: what it searches, and how (by meaning, or by keywords in fallback)."""
        if self.index.folder.resolve() == paths.DATA.resolve():
            what = ("Search Northwind Goods' policy documents (refunds, returns, shipping, warranty, payments, "
                    "privacy, ...)")
        else:
            what = f"Search the markdown documents of the folder '{self.index.folder.name}'"
        if self.index.mode == "lexical":
            how = (" by keywords (word matches only, the embedding model is not in use): use words the "
                   "documents would contain. Each hit says \"match\": \"keywords\"; its score counts shared "
                   "words and is not a similarity.")
        else:
            how = (" by meaning. Scores are cosine similarities: higher is closer, and below about 0.3 "
                   "little matches.")
        return (what + how + " Returns the best sections with a short excerpt. Use it before answering, then "
                "read the best section.")

    def toolbox(self) -> Toolbox:
        """The three tools for the agent loop; all of them only read."""
        return Toolbox(
            Tool("search_docs", self.describe_search(),
                 SearchDocs, lambda a: self.search_docs(a.query, a.k), risk="read"),
            Tool("read_section",
                 "Read one section of a document in full, by the document and section names that "
                 "search_docs or list_documents returned. Cite it in your answer as 'document › section'.",
                 ReadSection, lambda a: self.read_section(a.document, a.section), risk="read"),
            Tool("list_documents",
                 "List every document with its title and section names. Use it when a search "
                 "finds nothing useful, or to see what is written down.",
                 ListDocuments, lambda a: self.list_documents(), risk="read"),
        )
