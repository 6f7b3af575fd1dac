"""The three document tools: their results, and a clear error for every bad input."""

import json

import pytest

from course.doctools import DocTools, ReadSection, SearchDocs
from course.errors import ToolFailure
from course.paths import DATA
from course.search import DocIndex


@pytest.fixture(scope="module")
def tools():
    return DocTools(DocIndex(DATA, embedder="lexical"))  # lexical: fast, and the tools do not care


def test_search_docs_names_document_section_score_and_a_short_excerpt(tools):
    hits = tools.search_docs("gift card expiry balance", k=2)
    assert len(hits) == 2 and set(hits[0]) == {"document", "section", "score", "excerpt", "match"}
    assert (hits[0]["document"], hits[0]["section"]) == ("gift-cards", "Validity and balance")
    assert hits[0]["score"] >= hits[1]["score"]
    assert 20 < len(hits[0]["excerpt"]) <= 165 and "\n" not in hits[0]["excerpt"]


def test_read_section_returns_the_full_text_and_how_to_cite_it(tools):
    result = tools.read_section("refunds", "Time limits")
    assert result["title"] == "Refund Policy" and result["cite_as"] == "refunds › Time limits"
    assert "30 days" in result["text"] and "31 January" in result["text"]  # the whole section, not an excerpt


def test_read_section_forgives_case_a_markdown_prefix_and_a_file_suffix(tools):
    assert tools.read_section("refunds.md", "## time LIMITS")["section"] == "Time limits"


def test_list_documents_gives_every_document_with_title_and_sections(tools):
    docs = {d["document"]: d for d in tools.list_documents()}
    assert len(docs) >= 10 and docs["warranty"]["title"] == "Warranty"
    assert "How long you are covered" in docs["warranty"]["sections"]


@pytest.mark.parametrize("query, k, message", [
    ("", 3, "query is empty"), ("  \n", 3, "query is empty"),
    ("refunds", 0, "from 1 to 5"), ("refunds", 6, "from 1 to 5"), ("refunds", True, "from 1 to 5"),
    ("refunds", "3", "from 1 to 5"),
])
def test_bad_search_input_gets_an_actionable_error(tools, query, k, message):
    with pytest.raises(ToolFailure, match=message):
        tools.search_docs(query, k)


@pytest.mark.parametrize("doc", ["../secrets", "/etc/passwd", "..", "data/refunds", "~root", "C:\\x", "C:refunds"])
def test_path_like_document_names_are_refused_as_not_a_name(tools, doc):
    with pytest.raises(ToolFailure, match="not a document name: use a plain name"):
        tools.read_section(doc, "Time limits")


def test_a_file_next_to_the_folder_cannot_be_read_through_a_tool(tmp_path):
    (tmp_path / "secrets.md").write_text("# Secrets\n## Keys\nsk-do-not-read\n")
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "ok.md").write_text("# Ok\n## Fine\nPublic text.\n")
    doctools = DocTools(DocIndex(tmp_path / "docs", embedder="lexical"))
    for doc in ("../secrets", str(tmp_path / "secrets"), "secrets"):
        with pytest.raises(ToolFailure):
            doctools.read_section(doc, "Keys")
    assert "sk-do-not-read" not in json.dumps(doctools.list_documents())


def test_an_unknown_document_lists_the_documents_that_exist(tools):
    with pytest.raises(ToolFailure, match=r"no document 'refund'\. Documents: account, .*refunds, returns"):
        tools.read_section("refund", "Time limits")


def test_an_unknown_section_lists_that_documents_sections(tools):
    with pytest.raises(ToolFailure, match=r"'refunds' has no section 'Deadline'\. Its sections: Overview; Time "):
        tools.read_section("refunds", "Deadline")


def test_an_empty_section_name_is_refused(tools):
    with pytest.raises(ToolFailure, match="section name is empty"):
        tools.read_section("refunds", " ## ")


def test_the_toolbox_offers_three_read_tools_with_pydantic_schemas(tools):
    box = tools.toolbox()
    assert set(box.tools) == {"search_docs", "read_section", "list_documents"}
    assert all(t.risk == "read" for t in box.tools.values())
    schema = SearchDocs.model_json_schema()["properties"]["k"]
    assert (schema["minimum"], schema["maximum"], schema["default"]) == (1, 5, 3)
    assert ReadSection.model_json_schema()["required"] == ["document", "section"]


def test_the_toolbox_runs_a_search_then_a_read_as_a_model_would(tools):
    box = tools.toolbox()
    hits = json.loads(box.execute("search_docs", '{"query": "descale the kettle with vinegar", "k": 1}'))
    assert hits[0]["document"] == "product-care"
    text = json.loads(box.execute("read_section", json.dumps({"document": hits[0]["document"],
                                                               "section": hits[0]["section"]})))
    assert "citric acid" in text["text"]
    assert json.loads(box.execute("list_documents", "{}"))[0]["document"] == "account"


@pytest.mark.parametrize("name, arguments, message", [
    ("search_docs", '{"query": "refunds", "k": 9}', "k: Input should be less than or equal to 5"),
    ("search_docs", '{"query": ""}', "query: String should have at least 1 character"),
    ("search_docs", '{"query": "   "}', "Error: The query is empty"),
    ("read_section", '{"document": "../secrets", "section": "Keys"}', "not a document name"),
    ("read_section", '{"document": "refunds"}', "section: Field required"),
    ("list_documents", '{"folder": "/etc"}', "folder: Extra inputs are not permitted"),
])
def test_bad_calls_through_the_toolbox_become_error_text(tools, name, arguments, message):
    reply = tools.toolbox().execute(name, arguments)
    assert reply.startswith("Error:") and message in reply


# -- the offline story (course/stories/lesson3.py) through the lesson 2 agent loop --------------
def run_story(tools, question, toolbox=None):
    from course.agent import Limits, run_agent
    from course.scripted import ScriptedModel
    from course.stories.lesson3 import document_search

    box = toolbox or tools.toolbox()
    fake = ScriptedModel(document_search)
    return run_agent(fake.client(max_retries=0), "gpt-4.1-mini", question, tools=box.definitions(), execute=box.execute,
                     limits=Limits(max_steps=4))


def test_the_story_searches_reads_the_top_hit_and_cites_it(tools):
    result = run_story(tools, "Where do I read how long refunds take?")
    calls = [c for step in result.trace for c in step.tool_calls]
    assert [c.split("(")[0] for c in calls] == ["search_docs", "read_section"]
    top = tools.search_docs("Where do I read how long refunds take?", 3)[0]
    assert f'"document": "{top["document"]}"' in calls[1]
    assert result.stop_reason == "done" and f"(Source: {top['document']} › {top['section']})" in result.answer


def test_the_story_admits_when_the_documents_have_nothing(tmp_path):
    (tmp_path / "mugs.md").write_text("# Mugs\n## Washing\nDishwasher safe.\n")
    doctools = DocTools(DocIndex(tmp_path, embedder="lexical"))

    class Nothing(DocTools):
        def search_docs(self, query, k=3):
            return []

    result = run_story(doctools, "Do you sell bicycles?", Nothing(doctools.index).toolbox())
    assert "could not find anything" in result.answer and result.steps == 2


# -- fixes after review ---------------------------------------------------------------------------
class WordEmbedder:
    """A tiny deterministic embedder: one dimension per letter of a word's start."""

    name = "word-test-embedder"

    def encode(self, texts):
        import numpy as np

        out = np.zeros((len(texts), 26), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in text.lower().split():
                if word[0].isalpha() and word[0].isascii():
                    out[row, ord(word[0]) - 97] += 1
        return out


def test_scores_are_rounded_to_two_decimals_so_every_machine_shows_the_same(tools):
    for hit in tools.search_docs("gift card expiry balance", k=5):
        assert hit["score"] == round(hit["score"], 2)


def test_keyword_mode_marks_every_hit_and_says_so_in_the_description(tools):
    assert all(hit["match"] == "keywords" for hit in tools.search_docs("gift card expiry", k=3))
    description = tools.toolbox().tools["search_docs"].description
    assert "by keywords" in description and "by meaning" not in description


def test_embedding_mode_hits_carry_no_match_key_and_the_description_says_by_meaning(tmp_path):
    doctools = DocTools(DocIndex(DATA, cache_dir=tmp_path, embedder=WordEmbedder()))
    assert all("match" not in hit for hit in doctools.search_docs("gift card", k=3))
    assert "by meaning" in doctools.toolbox().tools["search_docs"].description


def test_every_listed_document_can_be_read_even_with_an_unusual_name(tmp_path):
    (tmp_path / "Café notes (v2).md").write_text("# Café notes\n## Opening hours\nWe open at 8.\n")
    (tmp_path / "_index.md").write_text("## Only section\nbody\n")
    doctools = DocTools(DocIndex(tmp_path, embedder="lexical"))
    for doc in doctools.list_documents():
        for section in doc["sections"]:
            assert doctools.read_section(doc["document"], section)["section"] == section
    assert doctools.read_section("café NOTES (v2).md", "opening hours")["document"] == "Café notes (v2)"


def test_an_unknown_unusual_name_lists_the_documents_rather_than_calling_it_a_path(tools):
    with pytest.raises(ToolFailure, match=r"There is no document 'Café notes \(v3\)'\. Documents: account"):
        tools.read_section("Café notes (v3)", "Opening hours")


def test_descriptions_name_a_learners_folder_instead_of_the_shop(tmp_path):
    (tmp_path / "my_notes").mkdir()
    (tmp_path / "my_notes" / "a.md").write_text("# A\n## B\ntext\n")
    description = DocTools(DocIndex(tmp_path / "my_notes", embedder="lexical")).toolbox().tools["search_docs"]
    assert "'my_notes'" in description.description and "Northwind" not in description.description
