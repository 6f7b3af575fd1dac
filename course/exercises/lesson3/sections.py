"""The check of `l3-sections`: markdown cut into sections at its `## ` headings, on documents made up to trip
a split (code blocks, deeper headings, odd headings, empty sections)."""


from __future__ import annotations

from course.exercises import NotYet, exercise
from course.exercises.lesson3.cases import flat, make_doc
from course.exercises.lesson3.given import GIVEN_SECTIONS
from course.exercises.seeds import draws

SECTION_HINTS = {  # (what is wrong, how to go about it)
    "intro": ("the text before the first `## ` heading was lost.",
              "it becomes a section of its own, with the heading \"Overview\", before the others: collect the "
              "lines from the start up to the first `## ` heading as that section's text."),
    "no-intro": ("there was an Overview section, though the document has no text before its first `## ` "
                 "heading.",
                 "make one only when that text is not empty (blank lines do not count): strip it, then test it."),
    "subheading": ("a `### ` heading started a section of its own.",
                   "Only `## ` starts a section (does your test also match \"### \"? line.startswith(\"## \") "
                   "does not); deeper headings stay in the text."),
    "fence": ("a `## ` line inside a code block (between two ``` lines) was taken for a heading.",
              "Keep track of whether you are inside a block: a line starting with ``` opens or closes one."),
    "odd": ("a heading was not read right",
            "a heading is the rest of its `## ` line, stripped of spaces, whatever it contains (digits, '#', "
            "punctuation)."),
    "empty-section": ("a `## ` section with no text was lost.",
                      "keep it, with the text \"\": a section starts at its heading, whether lines follow or not."),
    "blank-lines": ("blank lines inside a section ended it or lost the text after them.",
                    "a section ends only at the next `## `: keep blank lines with the section's other lines."),
}


def _sections_of(split_sections, doc) -> list:
    from course.search import Section

    if {"parse_markdown", "load_sections"} & set(getattr(getattr(split_sections, "__code__", None), "co_names", ())):
        raise NotYet("split_sections hands the work to the course's parse_markdown/load_sections.",
                     "this exercise is to write the split yourself, line by line.")
    got = split_sections(doc.name, doc.markdown)
    if got is None:
        raise NotYet("split_sections returns None.",
                     "return the list of Section objects.")
    if not isinstance(got, list):
        raise NotYet(f"split_sections returns a {type(got).__name__}, not a list.",
                     "collect the sections in a list.")
    wrong = [s for s in got if not isinstance(s, Section)]
    if wrong:
        raise NotYet(f"the list holds a {type(wrong[0]).__name__}.",
                     "make each section with Section(doc, title, heading, text).")
    return list(got)


def _compare_sections(got: list, doc) -> None:
    if any(s.doc != doc.name for s in got):
        raise NotYet("a section's `doc` is not the `doc` argument.",
                     "every section of the document gets the name you were given.")
    if any(s.title != doc.title for s in got):
        seen = next(s.title for s in got if s.title != doc.title)
        raise NotYet(f"a section's title is {seen!r:.60}.",
                     "the title is the text of the document's `# ` line, without the '# ' (and the same for "
                     "every section of the document).")
    want = [(h, flat(t)) for h, t in doc.expected]
    have = [(s.heading, flat(s.text)) for s in got]
    if have == want:
        return
    headings = [h for h, _ in want]
    if [s.heading for s in got] != headings:
        if "Overview" == headings[0] and "intro" in doc.features and "Overview" not in [s.heading for s in got]:
            problem, how = SECTION_HINTS["intro"]
            raise NotYet(problem, how)
        if "intro" not in doc.features and got and got[0].heading == "Overview" and "Overview" not in headings:
            problem, how = SECTION_HINTS["no-intro"]
            raise NotYet(problem, how)
        if len(got) > len(want):
            for feature in ("subheading", "fence"):
                if feature in doc.features:
                    problem, how = SECTION_HINTS[feature]
                    raise NotYet(problem, how)
        if len(got) < len(want):
            for feature in ("empty-section", "blank-lines"):
                if feature in doc.features:
                    problem, how = SECTION_HINTS[feature]
                    raise NotYet(problem, how)
        if sorted(s.heading for s in got) == sorted(headings):
            raise NotYet("the sections are not in the order of the document.",
                         "keep them in the order they come.")
        if "odd" in doc.features or any(h.strip() != h or h.startswith("#") for h in (s.heading for s in got)):
            problem, how = SECTION_HINTS["odd"]
            raise NotYet(f"{problem}: you have {[s.heading for s in got]!r:.120}.", how)
        raise NotYet(f"expected {len(want)} sections, one per `## ` heading (plus Overview for any text before the "
                     f"first one), with the headings {headings!r:.160}; got {len(got)}: "
                     f"{[s.heading for s in got]!r:.160}.",
                     "compare the two lists of headings: the first one that differs shows where your split went wrong.")
    for (heading, text), section in zip(want, got, strict=True):
        mine = flat(section.text)
        if mine == text:
            continue
        if mine.startswith("#"):
            raise NotYet("a section's text starts with a heading line.",
                         "the `## ` line gives the heading and is not part of the text (nor is the `# ` title "
                         "line).")
        if text and text in mine:
            raise NotYet("a section's text runs on past its end.",
                         "a section ends where the next `## ` heading starts.")
        if "###" in text and "###" not in mine:
            raise NotYet("a `### ` line is missing from its section's text.",
                         "deeper headings are part of the text.")
        if "```" in text and "```" not in mine:
            raise NotYet("a code block's lines are missing from their section's text.",
                         "they are part of it.")
        raise NotYet(f"the text of a section (heading {heading!r:.40}) is not the lines between its heading and the "
                     f"next: expected {text!r:.120}, got {mine!r:.120}.",
                     "join those lines with \"\\n\" and strip the result; compare the two texts from their start to "
                     "find the first line that differs.")


@exercise("l3-sections", lesson=3, given=GIVEN_SECTIONS)
def check_sections(split_sections):
    from course.paths import DATA
    from course.search import parse_markdown

    rng = draws()
    docs = [make_doc(rng, "intro"), make_doc(rng), make_doc(rng, "intro", "subheading"),
            make_doc(rng, "fence"), make_doc(rng, "odd", rng.choice(["intro", "blank-lines"])),
            make_doc(rng, "empty-section", "blank-lines"), make_doc(rng, "intro", "subheading", "fence", "odd")]
    for doc in docs:
        _compare_sections(_sections_of(split_sections, doc), doc)
    refunds = (DATA / "refunds.md").read_text()
    got = [(s.doc, s.title, s.heading, flat(s.text)) for s in _sections_of(split_sections, _Given("refunds", refunds))]
    want = [(s.doc, s.title, s.heading, flat(s.text)) for s in parse_markdown("refunds", refunds)]
    if got != want:
        raise NotYet("refunds.md does not split into its Overview and its five `## ` sections.",
                     "compare split_sections('refunds', ...) with load_sections(DATA) for the refunds document.")
    return f"refunds.md and {len(docs)} documents the check wrote (odd headings, code blocks, ### ...) split right."


class _Given:
    """A real document, given as it is (its expected sections come from the course's parser)."""

    def __init__(self, name: str, markdown: str):
        self.name, self.markdown = name, markdown
