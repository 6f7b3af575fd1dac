"""Evaluating the agent and the search: held-out questions, hybrid ranking, the agent's table."""

import asyncio
import json
from pathlib import Path
from types import SimpleNamespace

import numpy as np

from course.adapters import ChatCompletionsAdapter, ResponsesAdapter, host_execute
from course.evaluation import Question, evaluate, failures, load_questions, summary
from course.evaluation.ranking import Hybrid
from course.host import McpHost, in_memory
from course.scripted import ScriptedModel, call
from course.search import DocIndex
from course.servers.docs import build_server
from course.stories.lesson7 import policy_desk

TESTS = Path(__file__).parent
HELDOUT = TESTS / "search_questions_heldout.json"


def test_the_held_out_questions_name_real_sections_and_differ_from_the_course_set():
    heldout = json.loads(HELDOUT.read_text())["questions"]
    course = {q["question"] for q in json.loads((TESTS / "search_questions.json").read_text())["questions"]}
    sections = {(s.doc, s.heading) for s in DocIndex(embedder="lexical").sections}
    assert len(heldout) >= 25 and not course & {q["question"] for q in heldout}
    for q in heldout:
        assert (q["doc"], q["section"]) in sections, q
        assert all((q["doc"], s) in sections for s in q.get("also", [])), q


class FakeIndex:
    """Two rankings that disagree: embeddings rank a b c d, BM25 d b c a; both put b second."""

    sections = tuple(SimpleNamespace(doc="d", heading=h, text=h) for h in "abcd")

    def scores(self, query):
        return np.array([0.9, 0.8, 0.7, 0.1])

    def lexical_scores(self, query):
        return np.array([0.0, 5.0, 4.0, 6.0])


def test_hybrid_ranking_puts_first_what_both_rankings_like():
    hits = Hybrid(FakeIndex()).search("q", 4)
    assert [h.heading for h in hits] == ["b", "a", "d", "c"]  # a and d tie: document order


def test_a_question_counts_as_cited_only_with_its_document_and_section():
    q = Question("?", "refunds", "Time limits", also=("Overview",))
    assert q.cited("... (Source: refunds › Time limits)") and q.cited("(Source: refunds › Overview)")
    assert not q.cited("(Source: returns › Time limits)") and not q.cited(None)


def agent_rows(script, adapter, questions, tmp_path):
    async def go():
        async with McpHost(quiet=True) as host:
            server = build_server(embedder="lexical", store_path=tmp_path / "shop.json")
            await host.connect("docs", in_memory(server), allow={"search_docs", "read_section"})
            fake = ScriptedModel(script)
            return await evaluate(lambda: adapter(fake.async_client(max_retries=0), "gpt-5.5"), questions,
                                  host.tools(), host_execute(host))
    return asyncio.run(go())


def test_the_agents_table_counts_success_tool_choice_steps_tokens_and_stops(tmp_path):
    questions = load_questions(HELDOUT)[:4]
    rows = agent_rows(policy_desk, ChatCompletionsAdapter, questions, tmp_path)
    s = summary(rows)
    assert s["questions"] == 4 and s["tool choice"] == 1.0 and s["stop reasons"] == {"done": 4}
    assert s["mean steps"] == 3 and s["mean tokens"] > 0
    assert s["task success"] == sum(r.success for r in rows) / 4
    assert [r.question for r in failures(rows)] == [r.question for r in rows if not r.success]


def test_an_agent_that_answers_without_tools_fails_both_measures(tmp_path):
    questions = [Question("How long do refunds take?", "refunds", "Time limits")]
    rows = agent_rows(lambda body: "About a week, I think.", ResponsesAdapter, questions, tmp_path)
    assert summary(rows)["task success"] == 0 and summary(rows)["tool choice"] == 0


def test_a_wrong_tool_counts_against_tool_choice_even_when_the_answer_cites(tmp_path):
    def reads_directly(body):
        if body["messages"][-1]["role"] == "tool":
            return "See (Source: refunds › Time limits)"
        return call("read_section", document="refunds", section="Time limits")
    rows = agent_rows(reads_directly, ChatCompletionsAdapter,
                      [Question("How long do refunds take?", "refunds", "Time limits")], tmp_path)
    assert (rows[0].success, rows[0].right_tools, rows[0].steps) == (True, False, 2)
