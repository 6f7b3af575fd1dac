# EXERCISE l3-sections
from course.search import Section


def split_sections(doc, markdown):
    """Cut one markdown document into Sections at its `## ` headings."""
    title, heading, lines = "", "Overview", []
    parts = []  # (heading, lines), in document order
    in_code = False
    for line in markdown.splitlines():
        if line.startswith("```"):
            in_code = not in_code  # a "## " line inside a code block is text, not a heading
        if not in_code and line.startswith("# ") and not title:
            title = line[2:].strip()
        elif not in_code and line.startswith("## "):
            parts.append((heading, lines))
            heading, lines = line[3:].strip(), []
        else:
            lines.append(line)
    parts.append((heading, lines))
    sections = []
    for heading, body in parts:
        text = "\n".join(body).strip()
        if heading != "Overview" or text:  # no Overview when nothing comes before the first heading
            sections.append(Section(doc, title, heading, text))
    return sections
