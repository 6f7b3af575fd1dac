"""Markdown documents cut into sections: the pieces the index searches (lesson 3).

A document is a markdown file: a `# Title`, then `## ` sections. Each section is one
chunk: small enough to be about one thing, big enough to make sense on its own, and
named, so an answer can cite it.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

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


def parse_markdown(doc: str, markdown: str) -> list[Section]:
    """Split one document into sections at its `## ` headings (deeper headings stay inside).

    Text before the first `## ` becomes a section called Overview. Lines inside a code fence
    (``` or ~~~) are text, even when they start with `#`.
    """
    title = doc.replace("-", " ").replace("_", " ").strip().capitalize() or doc
    heading = OVERVIEW
    lines: list[str] = []
    parts: list[tuple[str, list[str]]] = []  # (heading, its lines), in order
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
