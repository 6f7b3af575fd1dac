"""The three document tools: their results, and a clear error for every bad input."""

import json

import pytest

from course.doctools import DocTools, ReadSection, SearchDocs
from course.paths import DATA
from course.search import DocIndex
from course.tools import ToolError


@pytest.fixture(scope="module")
def tools():
    return DocTools(DocIndex(DATA, embedder="lexical"))  # lexical: fast, and the tools do not care


def test_search_docs_names_document_section_score_and_a_short_excerpt(tools):
    hits = tools.search_docs("gift card expiry balance", k=2)
    assert len(hits) == 2 and set(hits[0]) == {"document", "section", "score", "excerpt"}
    assert (hits[0]["document"], hits[0]["section"]) == ("gift-cards", "Validity and balance")
    assert hits[0]["score"] == round(hits[0]["score"], 3) and hits[0]["score"] >= hits[1]["score"]
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
    with pytest.raises(ToolError, match=message):
        tools.search_docs(query, k)


@pytest.mark.parametrize("doc", ["../secrets", "/etc/passwd", "..", "data/refunds", "~root", "C:\\x", "C:refunds"])
def test_path_like_document_names_are_refused_as_not_a_name(tools, doc):
    with pytest.raises(ToolError, match="not a document name: use a plain name"):
        tools.read_section(doc, "Time limits")


def test_a_file_next_to_the_folder_cannot_be_read_through_a_tool(tmp_path):
    (tmp_path / "secrets.md").write_text("# Secrets\n## Keys\nsk-do-not-read\n")
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "ok.md").write_text("# Ok\n## Fine\nPublic text.\n")
    doctools = DocTools(DocIndex(tmp_path / "docs", embedder="lexical"))
    for doc in ("../secrets", str(tmp_path / "secrets"), "secrets"):
        with pytest.raises(ToolError):
            doctools.read_section(doc, "Keys")
    assert "sk-do-not-read" not in json.dumps(doctools.list_documents())


def test_an_unknown_document_lists_the_documents_that_exist(tools):
    with pytest.raises(ToolError, match=r"no document 'refund'\. Documents: account, .*refunds, returns"):
        tools.read_section("refund", "Time limits")


def test_an_unknown_section_lists_that_documents_sections(tools):
    with pytest.raises(ToolError, match=r"'refunds' has no section 'Deadline'\. Its sections: Overview; Time "):
        tools.read_section("refunds", "Deadline")


def test_an_empty_section_name_is_refused(tools):
    with pytest.raises(ToolError, match="section name is empty"):
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
    return run_agent(fake.client(max_retries=0), "m", question, tools=box.definitions(), execute=box.execute,
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
