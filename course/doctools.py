"""Three read-only tools over a `DocIndex`: search_docs, read_section, list_documents (lesson 3).

The model searches first (short excerpts, cheap in tokens), then reads the one section
it needs in full, and cites it as `document › section`. Every bad input becomes a
`ToolError` that says what to do instead. The tools answer only from the index's
sections, which were loaded from inside its folder: a name from the model is never
turned into a file path.
"""

from __future__ import annotations

import re
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from course.search import DocIndex
from course.tools import Tool, Toolbox, ToolError

MAX_K = 5
NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9 _.-]*$")


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


def check_name(kind: str, name: str) -> str:
    """A document or section name, never a path: '../secrets' and '/etc/passwd' are refused."""
    if not isinstance(name, str) or not name.strip():
        raise ToolError(f"The {kind} name is empty. Use a name from list_documents.")
    name = name.strip()
    if "/" in name or "\\" in name or ".." in name or name.startswith("~") or not NAME.match(name):
        raise ToolError(f"{name!r} is not a {kind} name: use a plain name such as 'refunds' from "
                        "list_documents, not a file path.")
    return name


class DocTools:
    """The tools a model uses to answer from the shop's documents."""

    def __init__(self, index: DocIndex):
        self.index = index

    def search_docs(self, query: str, k: int = 3) -> list[dict]:
        if not isinstance(query, str) or not query.strip():
            raise ToolError("The query is empty. Describe what you are looking for in a few words, "
                            "for example 'refund time limit'.")
        if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= MAX_K:
            raise ToolError(f"k must be a whole number from 1 to {MAX_K} (got {k!r}). Use 3 unless you "
                            "need more.")
        return [{"document": h.doc, "section": h.heading, "score": round(h.score, 3), "excerpt": h.excerpt}
                for h in self.index.search(query, k)]

    def read_section(self, doc: str, section: str) -> dict:
        doc = check_name("document", doc).removesuffix(".md")
        section = section.strip().lstrip("#").strip() if isinstance(section, str) else section
        if not section:
            raise ToolError("The section name is empty. Use a section name from search_docs or "
                            "list_documents.")
        docs = self.index.documents()
        if doc not in docs:
            raise ToolError(f"There is no document {doc!r}. Documents: {', '.join(docs)}.")
        found = self.index.section(doc, section)
        if found is None:
            headings = "; ".join(s.heading for s in docs[doc])
            raise ToolError(f"The document {doc!r} has no section {section!r}. Its sections: {headings}.")
        return {"document": found.doc, "title": found.title, "section": found.heading, "text": found.text,
                "cite_as": found.label}

    def list_documents(self) -> list[dict]:
        return [{"document": doc, "title": sections[0].title, "sections": [s.heading for s in sections]}
                for doc, sections in self.index.documents().items()]

    def toolbox(self) -> Toolbox:
        """The three tools for the agent loop; all of them only read."""
        return Toolbox(
            Tool("search_docs",
                 "Search Northwind Goods' policy documents (refunds, returns, shipping, warranty, payments, "
                 "privacy, ...) by meaning. Returns the best sections with a short excerpt. Use it before "
                 "answering any question about the shop's rules, then read the best section.",
                 SearchDocs, lambda a: self.search_docs(a.query, a.k), risk="read"),
            Tool("read_section",
                 "Read one section of a policy document in full, by the document and section names that "
                 "search_docs or list_documents returned. Cite it in your answer as 'document › section'.",
                 ReadSection, lambda a: self.read_section(a.document, a.section), risk="read"),
            Tool("list_documents",
                 "List every policy document with its title and section names. Use it when a search "
                 "finds nothing useful, or to see what the shop has written down.",
                 ListDocuments, lambda a: self.list_documents(), risk="read"),
        )
