"""Lesson 6's story: the lesson 2 loop answers the refund question through the lesson 5 server, via the host."""

import pytest

from course.agent import Limits, arun_agent
from course.approval import ScriptedApprover
from course.host import McpHost, in_memory
from course.scripted import ScriptedModel
from course.servers.docs import build_server
from course.store import ShopStore
from course.stories.lesson6 import refund_desk

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]
QUESTION = "The mugs from my order A1002 arrived broken. What does your policy say? Can I get my money back?"
ALLOW = {"search_docs", "read_section", "get_order_record", "issue_refund"}


async def run_story(tmp_path, answers, allow=ALLOW):
    store = tmp_path / "shop.json"
    model = ScriptedModel(refund_desk)
    host = McpHost(approver=ScriptedApprover(answers), quiet=True)
    try:
        await host.connect("docs", in_memory(build_server(embedder="lexical", store_path=store)), allow=allow)
        result = await arun_agent(model.async_client(max_retries=0), "gpt-4.1-mini", QUESTION, tools=host.tools(),
                                  execute=host.execute, limits=Limits(max_steps=6))
    finally:
        await host.close()
    return result, ShopStore(store).refunded("A1002"), model


async def test_an_approved_refund_is_paid_and_the_answer_cites_the_policy(tmp_path):
    result, refunded, _ = await run_story(tmp_path, [True])
    assert result.stop_reason == "done" and refunded == 32.5
    assert "damaged-items › Replacement or refund" in result.answer and "refunded 32.50 EUR" in result.answer


async def test_a_rejected_refund_moves_no_money_and_the_answer_says_so(tmp_path):
    result, refunded, _ = await run_story(tmp_path, [False])
    assert refunded == 0 and "not approved" in result.answer


async def test_without_the_refund_tool_on_the_allowlist_the_model_never_sees_it(tmp_path):
    result, refunded, model = await run_story(tmp_path, [], allow=ALLOW - {"issue_refund"})
    offered = {t["function"]["name"] for t in model.requests[0]["tools"]}
    assert "issue_refund" not in offered and refunded == 0 and result.stop_reason == "done"
