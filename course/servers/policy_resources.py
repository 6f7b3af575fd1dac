"""The policy documents as MCP resources, and the support desk's prompts (lesson 8).

    docs://index                   a fixed resource: every document and the URI of each section
    docs://{doc}/{section}         a resource template: one section, e.g. docs://refunds/time-limits
    refund_reply(order_id, tone)   a prompt: the start of a reply to a customer who wants money back

Who decides what: the **model** picks tools; the **application** (the host) picks which
resources go into the model's context; the **user** picks a prompt (a slash command in most
hosts). Documents are read from the folder at every request, so an edited file is served as
it now is: a resource is only as trustworthy as whoever can write that folder.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated

from mcp import MCPError
from mcp.server.mcpserver import MCPServer
from mcp.types import INVALID_PARAMS
from pydantic import Field

INDEX_URI = "docs://index"
SECTION_TEMPLATE = "docs://{doc}/{section}"
MARKDOWN = "text/markdown"


def slug(heading: str) -> str:
    """A section heading as it appears in a URI: `Time limits` -> `time-limits`."""
    return re.sub(r"[^a-z0-9]+", "-", heading.lower()).strip("-") or "section"


def section_uri(doc: str, heading: str) -> str:
    return SECTION_TEMPLATE.format(doc=doc, section=slug(heading))


def _sections(folder: Path) -> dict[str, list]:
    from course.search.documents import (
        load_sections,  # numpy-free, but kept off the server's start-up path
    )

    by_doc: dict[str, list] = {}
    for section in load_sections(folder):
        by_doc.setdefault(section.doc, []).append(section)
    return by_doc


def index_text(folder: Path) -> str:
    """The index resource: one line per section, with the URI that reads it."""
    lines = ["# Policy documents", ""]
    for doc, sections in _sections(folder).items():
        lines.append(f"## {sections[0].title} ({doc})")
        lines += [f"- {s.heading}: {section_uri(doc, s.heading)}" for s in sections]
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def not_found(message: str) -> MCPError:
    """What the spec answers for a resource that does not exist: -32602, with the choices to pick from."""
    return MCPError(INVALID_PARAMS, message)


def section_text(folder: Path, doc: str, section: str) -> str:
    """One section as markdown; an unknown document or section gets the list to choose from."""
    docs = _sections(folder)
    if doc not in docs:
        raise not_found(f"There is no document {doc!r}. Documents: {', '.join(docs)} (see {INDEX_URI}).")
    for s in docs[doc]:
        if slug(s.heading) == section:
            return f"# {s.title} › {s.heading}\n\n{s.text}\n"
    known = ", ".join(slug(s.heading) for s in docs[doc])
    raise not_found(f"The document {doc!r} has no section {section!r}. Its sections: {known}.")


def add_resources(mcp: MCPServer, folder: Path) -> None:
    """The index and the section template, read from `folder` at every request."""

    @mcp.resource(INDEX_URI, name="policy_index", title="Policy documents: index", mime_type=MARKDOWN,
                  description="Every policy document and the URI of each of its sections.")
    def policy_index() -> str:
        return index_text(folder)

    @mcp.resource(SECTION_TEMPLATE, name="policy_section", title="One section of a policy document",
                  mime_type=MARKDOWN, description="A section of a policy document, e.g. docs://refunds/time-limits. "
                  f"The section is its heading in lower case with dashes; {INDEX_URI} lists them all.")
    def policy_section(doc: str, section: str) -> str:
        return section_text(folder, doc, section)


OrderId = Annotated[str, Field(description="The order the customer wrote about, e.g. A1002.")]
TONES = ("friendly", "formal")
Tone = Annotated[str, Field(description="friendly (default) or formal.")]


def add_prompts(mcp: MCPServer) -> None:
    """The desk's prompts: templates a support agent picks, filled with arguments."""

    @mcp.prompt(name="refund_reply", title="Reply to a refund request",
                description="Draft a reply to a customer who wants their money back for an order.")
    def refund_reply(order_id: OrderId, tone: Tone = "friendly") -> str:
        if tone not in TONES:  # prompt arguments are strings on the wire: a bad one gets -32602, not a traceback
            raise MCPError(INVALID_PARAMS, f"tone must be one of {', '.join(TONES)}, not {tone!r}.")
        return (f"A customer asks for a refund for order {order_id}. Look the order up, read the refund policy "
                f"({section_uri('refunds', 'Time limits')}), and draft a {tone} reply that says whether a "
                "refund is possible and how long it takes, citing 'document › section'. Do not issue the "
                "refund yourself: a colleague approves it.")
