"""The agent loop: every stop reason, its limits hold, repeats never reach the tool, sync and async agree."""

import asyncio
import json
import time
from types import SimpleNamespace

import openai
import pytest

from course.agent import Limits, Result, arun_agent, call_key, prompt_estimate, run_agent
from course.backend import MODEL
from course.orders import shop_toolbox
from course.scripted import Fail, ScriptedModel, Timeout, call, raw_call
from course.stories.lesson2 import latest_order, restless, stubborn, thorough

TOOLBOX = shop_toolbox()
TOOLS = TOOLBOX.definitions()
QUESTION = "I'm mia@example.com, where is my latest order?"


class Counting:
    """An execute function that counts what reaches the tools."""

    def __init__(self, delay: float = 0.0):
        self.calls: list[tuple[str, str]] = []
        self.delay = delay

    def __call__(self, name: str, arguments: str) -> str:
        self.calls.append((name, arguments))
        time.sleep(self.delay)
        return TOOLBOX.execute(name, arguments)


def run(script, question=QUESTION, limits=Limits(), execute=None, **client_options):
    fake = ScriptedModel(script)
    client_options.setdefault("max_retries", 0)
    result = run_agent(fake.client(**client_options), MODEL, question, tools=TOOLS,
                       execute=execute or TOOLBOX.execute, limits=limits)
    return result, fake


def tool_steps(fake):
    """Requests in which the model was allowed to use tools."""
    return [r for r in fake.requests if r.get("tool_choice") != "none"]


# -- done ------------------------------------------------------------------------------------
def test_a_question_needing_two_lookups_ends_done_with_the_models_answer():
    result, fake = run(latest_order)
    assert result.stop_reason == "done" and result.error is None
    assert [s.tool_calls for s in result.trace] == [
        ['find_orders({"email": "mia@example.com"})'], ['get_order_status({"order_id": "A1001"})'], []]
    assert result.steps == 3 == len(fake.requests)
    assert "A1001" in result.answer and result.messages[-1] == {"role": "assistant", "content": result.answer,
                                                                 "annotations": []}


def test_a_plain_answer_takes_one_step_and_offers_the_tools():
    result, fake = run(["Hello! How can I help?"], "Hi")
    assert (result.answer, result.stop_reason, result.steps) == ("Hello! How can I help?", "done", 1)
    assert fake.requests[0]["tools"] == TOOLS and "tool_choice" not in fake.requests[0]


# -- max_steps -------------------------------------------------------------------------------
def test_a_model_that_keeps_calling_tools_stops_at_max_steps_with_a_forced_answer():
    execute = Counting()
    result, fake = run(restless, limits=Limits(max_steps=3), execute=execute)
    assert result.stop_reason == "max_steps" and len(execute.calls) == 3
    final = fake.requests[-1]
    assert final["tool_choice"] == "none" and final["tools"] == TOOLS  # tools listed, but switched off
    assert "used all 3 tool steps" in final["messages"][-1]["content"]
    assert result.answer.startswith("I looked up 3 orders") and result.trace[-1].forced


@pytest.mark.parametrize("max_steps", [0, 1, 2, 5])
def test_no_run_makes_more_tool_steps_than_max_steps(max_steps):
    result, fake = run(restless, limits=Limits(max_steps=max_steps))
    assert len(tool_steps(fake)) == max_steps and len(fake.requests) == max_steps + 1 == result.steps


# -- repeated calls --------------------------------------------------------------------------
def test_a_repeated_call_never_reaches_the_tool():
    execute = Counting()
    result, fake = run(stubborn, execute=execute)
    assert execute.calls == [("get_order_status", '{"order_id": "A1001"}')]
    told = [m["content"] for m in result.messages if m["role"] == "tool"][-1]
    assert told.startswith("Not run: you already called get_order_status")
    assert "Change the arguments, or answer" in told
    assert result.stop_reason == "done" and "[repeat: not run]" in result.trace[1].tool_calls[0]


def test_a_model_that_only_repeats_itself_runs_the_tool_once_and_ends_at_max_steps():
    execute = Counting()
    script = [call("find_orders", email="mia@example.com")] * 4 + ["I found your orders."]
    result, _ = run(script, limits=Limits(max_steps=4), execute=execute)
    assert len(execute.calls) == 1 and result.stop_reason == "max_steps"


def test_calls_differing_only_in_key_order_or_spacing_are_repeats_even_in_one_message():
    execute = Counting()
    script = [[raw_call("get_order_status", '{"order_id": "A1001"}'),
               raw_call("get_order_status", '{ "order_id" :"A1001" }')], "Done."]
    result, _ = run(script, execute=execute)
    assert len(execute.calls) == 1 and result.stop_reason == "done"
    assert call_key("f", '{"a": 1, "b": 2}') == call_key("f", '{"b":2,"a":1}') != call_key("g", '{"a": 1, "b": 2}')
    assert call_key("f", "{not json") == ("f", "{not json")


# -- max_tokens ------------------------------------------------------------------------------
def test_the_prompt_estimate_is_exactly_what_the_scripted_model_counts():
    messages = [{"role": "system", "content": "Be brief. " * 30}, {"role": "user", "content": QUESTION}]
    response = ScriptedModel(["ok"]).client().chat.completions.create(model=MODEL, messages=messages, tools=TOOLS)
    assert prompt_estimate(messages, TOOLS) == response.usage.prompt_tokens


def test_a_long_conversation_exhausts_the_token_budget_and_still_gets_an_answer():
    history = [{"role": "system", "content": "You are the support assistant of Northwind Goods."}]
    for i in range(6):
        history += [{"role": "user", "content": f"Earlier question {i}: " + "tell me more. " * 20},
                    {"role": "assistant", "content": "Here is more. " * 20}]
    history.append({"role": "user", "content": "Please check all my orders."})
    result, fake = run(thorough, history, limits=Limits(max_tokens=6000))
    assert result.stop_reason == "max_tokens" and result.tokens <= 6000
    assert fake.requests[-1]["tool_choice"] == "none" and result.answer.startswith("I checked")


@pytest.mark.parametrize("budget", [300, 700, 1000, 1500, 2200, 3000, 4000, 8000])
@pytest.mark.parametrize("rule", [restless, thorough, latest_order])
def test_no_run_exceeds_its_token_budget(rule, budget):
    result, fake = run(rule, limits=Limits(max_tokens=budget, max_steps=20))
    assert result.tokens <= budget
    assert result.stop_reason in {"done", "max_tokens"} and len(fake.requests) == result.steps


def test_when_not_even_the_final_answer_fits_the_loop_answers_without_the_model():
    result, fake = run(restless, limits=Limits(max_tokens=200))
    assert fake.requests == [] and result.tokens == 0 and result.stop_reason == "max_tokens"
    assert "token budget (200 tokens)" in result.answer


def test_tokens_reported_equal_the_sum_of_the_responses_usage(monkeypatch):
    fake = ScriptedModel(latest_order)
    client = fake.client()
    seen = []
    create = client.chat.completions.create

    def recording(**params):
        response = create(**params)
        seen.append(response.usage.total_tokens)
        return response

    monkeypatch.setattr(client.chat.completions, "create", recording)
    result = run_agent(client, MODEL, QUESTION, tools=TOOLS, execute=TOOLBOX.execute)
    assert len(seen) == 3 and result.tokens == sum(seen) == sum(s.tokens for s in result.trace)


class Overcounting:
    """A client whose tokenizer counts three times what the loop estimates, like a real one may."""

    def __init__(self, fake):
        inner = fake.client(max_retries=0)

        def create(**params):
            r = inner.chat.completions.create(**params)
            usage = r.usage.model_copy(update={"total_tokens": 3 * r.usage.total_tokens})
            return r.model_copy(update={"usage": usage})

        self.chat = SimpleNamespace(completions=SimpleNamespace(create=create))


@pytest.mark.parametrize("limits", [Limits(max_tokens=2000, max_steps=50), Limits(max_tokens=600, reply_tokens=0)])
def test_when_the_estimate_is_too_low_no_request_is_sent_after_the_budget_is_used(limits):
    fake = ScriptedModel(restless)
    result = run_agent(Overcounting(fake), MODEL, QUESTION, tools=TOOLS, execute=TOOLBOX.execute, limits=limits)
    assert result.stop_reason == "max_tokens" and len(fake.requests) == result.steps
    # The honest bound: the run overshoots by at most its last request.
    assert result.tokens - result.trace[-1].tokens < limits.max_tokens


def test_a_step_that_uses_up_the_budget_ends_the_run_at_once():
    fake = ScriptedModel(restless)
    result = run_agent(Overcounting(fake), MODEL, QUESTION, tools=TOOLS, execute=TOOLBOX.execute,
                       limits=Limits(max_tokens=600, reply_tokens=0))
    assert result.steps == 1 and result.tokens > 600 and "token budget (600 tokens)" in result.answer
    assert result.messages[-1] == {"role": "assistant", "content": result.answer} and continues(result.messages)


# -- max_seconds -----------------------------------------------------------------------------
def test_a_wall_clock_limit_stops_between_steps_and_still_answers():
    execute = Counting(delay=0.02)
    result, fake = run(restless, limits=Limits(max_seconds=0.1, max_steps=100), execute=execute)
    # Each step sleeps 20 ms, so by the 6th check at least 0.1 s have passed: never more than 5 steps.
    assert result.stop_reason == "max_seconds" and 1 <= len(execute.calls) <= 5
    assert fake.requests[-1]["tool_choice"] == "none" and result.answer.startswith("I looked up")


# -- model errors ----------------------------------------------------------------------------
@pytest.mark.parametrize("turn, retries, requests, says", [
    (Fail(429, retry_after=0.001), 2, 3, "rate limited (HTTP 429"),
    (Fail(500, retry_after=0.001), 1, 2, "server failed (HTTP 500"),
    (Timeout(), 0, 1, "did not answer in time"),
    (Fail(400, "Invalid 'messages'."), 2, 1, "rejected the request (HTTP 400: Invalid 'messages'.)"),
    (Fail(401, "Incorrect API key provided."), 0, 1, "API key was refused"),
])
def test_model_errors_end_the_run_with_a_clear_message(turn, retries, requests, says):
    result, fake = run([turn] * 3, max_retries=retries)
    assert result.stop_reason == "model_error" and says in result.error and says in result.answer
    assert len(fake.requests) == requests and result.steps == 0


def test_an_unreachable_server_is_a_model_error_that_names_the_address():
    client = openai.OpenAI(api_key="sk-test", base_url="http://127.0.0.1:9/v1", max_retries=0)
    result = run_agent(client, MODEL, "Hi", tools=TOOLS, execute=TOOLBOX.execute)
    assert result.stop_reason == "model_error" and "could not reach the model at http://127.0.0.1:9/" in result.error


def test_a_model_error_mid_run_keeps_the_conversation_so_far():
    result, fake = run([call("find_orders", email="mia@example.com"), Fail(500)])
    assert result.stop_reason == "model_error" and result.steps == 1
    assert result.messages[-1]["role"] == "tool" and "A1001" in result.messages[-1]["content"]


def test_a_failing_final_answer_keeps_the_limit_as_the_reason_and_reports_the_error():
    result, fake = run([call("find_orders", email="mia@example.com"), Fail(503)], limits=Limits(max_steps=1))
    assert result.stop_reason == "max_steps" and "HTTP 503" in result.error
    assert result.answer.startswith("I had to stop before I could answer") and "find_orders" in result.answer


# -- the async twin --------------------------------------------------------------------------
def summary(result: Result):
    return (result.answer, result.stop_reason, result.steps, result.tokens, result.error,
            [(s.number, s.tool_calls, s.tokens, s.forced) for s in result.trace], result.messages)


CASES = [(latest_order, Limits()), (restless, Limits(max_steps=3)), (stubborn, Limits()),
         (thorough, Limits(max_tokens=1500)), ([Fail(429)] * 3, Limits()),
         ([call("find_orders", email="mia@example.com"), ""], Limits(max_steps=1)),
         ([call("find_orders", email="mia@example.com"), ""], Limits())]


@pytest.mark.parametrize("script, limits", CASES)
def test_the_async_twin_gives_the_same_result_as_the_sync_loop(script, limits):
    sync = run_agent(ScriptedModel(script).client(max_retries=0), MODEL, QUESTION, tools=TOOLS,
                     execute=TOOLBOX.execute, limits=limits)

    async def main():
        async def execute(name, arguments):  # an async tool, as lessons 4 and 6 pass
            await asyncio.sleep(0)
            return TOOLBOX.execute(name, arguments)

        async with ScriptedModel(script).async_client(max_retries=0) as client:
            return await arun_agent(client, MODEL, QUESTION, tools=TOOLS, execute=execute, limits=limits)

    assert summary(asyncio.run(main())) == summary(sync)


# -- inputs and display ----------------------------------------------------------------------
def test_a_tool_that_raises_becomes_an_error_message_for_the_model():
    def broken(name, arguments):
        raise RuntimeError("database is down")

    result, _ = run(latest_order, execute=broken)
    assert "RuntimeError: database is down" in result.answer and result.stop_reason == "done"


def test_the_callers_message_list_is_never_changed():
    messages = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": QUESTION}]
    before = json.dumps(messages)
    result, fake = run(latest_order, messages)
    assert json.dumps(messages) == before and fake.requests[0]["messages"] == messages
    assert result.messages[:2] == messages and len(result.messages) == 7


@pytest.mark.parametrize("call_it, fragment", [
    # Each call gets something of the wrong type on purpose (what a learner might pass): mypy says so too.
    (lambda c: run_agent(c, MODEL, "Hi", tools=TOOLBOX, execute=TOOLBOX.execute),  # type: ignore[arg-type]
     "toolbox.definitions()"),
    (lambda c: run_agent(c, MODEL, [], tools=TOOLS, execute=TOOLBOX.execute), "non-empty list"),
    (lambda c: run_agent(c, MODEL, ["Hi"], tools=TOOLS, execute=TOOLBOX.execute),  # type: ignore[list-item]
     "dict with a 'role'"),
    (lambda c: run_agent(c, MODEL, "Hi", tools=TOOLS, execute=TOOLBOX.execute,
                         limits={"max_steps": 2}),  # type: ignore[arg-type]
     "Limits(max_steps=5)"),
    (lambda c: run_agent(c, MODEL, "Hi", tools=TOOLS, execute=TOOLBOX), "toolbox.execute"),  # type: ignore[arg-type]
    (lambda c: run_agent(ScriptedModel(["x"]).async_client(),  # type: ignore[arg-type]
                         MODEL, "Hi", tools=TOOLS, execute=TOOLBOX.execute),
     "await arun_agent"),
    (lambda c: asyncio.run(arun_agent(c, MODEL, "Hi", tools=TOOLS, execute=TOOLBOX.execute)), "use run_agent"),
])
def test_wrong_arguments_get_an_error_that_says_what_to_pass(call_it, fragment):
    with pytest.raises(TypeError, match=fragment.replace("(", r"\(").replace(")", r"\)")):
        call_it(ScriptedModel(["never"]).client())


def test_an_async_execute_in_the_sync_loop_is_refused_clearly():
    async def execute(name, arguments):
        return "x"

    with pytest.raises(TypeError, match="await arun_agent"):
        run(latest_order, execute=execute)


@pytest.mark.parametrize("kwargs", [{"max_steps": -1}, {"max_tokens": 0}, {"max_seconds": 0}, {"max_steps": 2.5}])
def test_impossible_limits_are_refused(kwargs):
    with pytest.raises(ValueError, match=next(iter(kwargs))):
        Limits(**kwargs)


def test_show_prints_one_row_per_model_call_and_how_the_run_ended(capsys):
    result, _ = run(restless, limits=Limits(max_steps=2))
    result.show()
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["step", "tokens", "tool", "calls", "time"]
    assert lines[1].split()[:3] == ["1", str(result.trace[0].tokens), 'get_order_status({"order_id":']
    assert "-> answer (tools off)" in lines[3] and lines[3].endswith(" ms")
    assert lines[4].startswith(f"stop: max_steps · 3 model calls · {result.tokens} tokens")


# -- servers that do not follow the rules, and answers the loop writes itself ---------------------
class IgnoresToolChoice:
    """A client for a server that drops tool_choice, as Ollama does (ollama/ollama#8421)."""

    def __init__(self, fake):
        inner = fake.client(max_retries=0)

        def create(**params):
            params.pop("tool_choice", None)
            return inner.chat.completions.create(**params)

        self.chat = SimpleNamespace(completions=SimpleNamespace(create=create))


def continues(messages):
    """The API accepts the conversation with one more question (the scripted model validates like it)."""
    follow_up = messages + [{"role": "user", "content": "Thanks. And my other orders?"}]
    ScriptedModel(["ok"]).client(max_retries=0).chat.completions.create(model=MODEL, messages=follow_up, tools=TOOLS)
    return True


def test_a_server_that_ignores_tool_choice_none_still_gives_an_answer_and_a_conversation_that_can_go_on(capsys):
    fake, execute = ScriptedModel(restless), Counting()
    result = run_agent(IgnoresToolChoice(fake), MODEL, QUESTION, tools=TOOLS, execute=execute,
                       limits=Limits(max_steps=2))
    assert result.stop_reason == "max_steps" and len(execute.calls) == 2 and len(fake.requests) == 3
    assert result.answer.startswith("I had to stop before I could answer: the assistant has used all 2 tool steps")
    assert "tool_choice='none' ignored" in result.error
    assert result.messages[-1] == {"role": "assistant", "content": result.answer}
    assert not any(m.get("tool_calls") for m in result.messages[-2:]) and continues(result.messages)
    result.show()
    shown = capsys.readouterr().out
    assert "[not run: tools were off]" in shown and "-> answer" not in shown


def test_an_empty_final_answer_is_replaced_by_the_loops_own():
    result, fake = run([call("find_orders", email="mia@example.com"), ""], limits=Limits(max_steps=1))
    assert result.stop_reason == "max_steps" and "empty answer" in result.error and result.trace[-1].empty
    assert result.answer.startswith("I had to stop before I could answer") and "find_orders" in result.answer
    assert result.messages[-1] == {"role": "assistant", "content": result.answer} and continues(result.messages)


def test_an_empty_answer_is_a_model_error_and_the_conversation_stops_before_it():
    result, fake = run([call("find_orders", email="mia@example.com"), ""])
    assert result.stop_reason == "model_error" and "empty answer" in result.error and result.answer != ""
    assert result.steps == 2 and result.messages[-1]["role"] == "tool"  # run it again from here to retry


def test_without_tools_the_request_leaves_out_tools_and_tool_choice():
    fake = ScriptedModel(["Hello! How can I help?", "Here is what I know."])
    for limits in (Limits(), Limits(max_steps=0)):  # a normal step, and the controlled finish
        result = run_agent(fake.client(max_retries=0), MODEL, "Hi", tools=[], execute=TOOLBOX.execute, limits=limits)
        assert result.error is None and result.answer in {"Hello! How can I help?", "Here is what I know."}
    assert [sorted(r) for r in fake.requests] == [["messages", "model"]] * 2


def test_an_answer_written_without_the_model_ends_the_conversation():
    result, fake = run(restless, limits=Limits(max_tokens=200))
    assert fake.requests == [] and result.messages[-1] == {"role": "assistant", "content": result.answer}
    assert continues(result.messages)


def test_failed_model_calls_are_not_counted_as_steps():
    result, fake = run([call("find_orders", email="mia@example.com"), Fail(429), Fail(429)], max_retries=1)
    assert len(fake.requests) == 3 and result.steps == 1 == len(result.trace)


def test_a_finish_after_one_tool_step_reads_naturally():
    result, fake = run(restless, limits=Limits(max_steps=1))
    assert "used the one tool step it is allowed" in fake.requests[-1]["messages"][-1]["content"]
    assert "1 tool steps" not in json.dumps(result.messages)


def test_when_the_budget_leaves_no_room_for_the_finish_after_max_steps_the_answer_names_both_limits():
    # The first step needs twice its prompt; the finish, with the tool's result and the note, needs more.
    budget = 2 * prompt_estimate([{"role": "user", "content": QUESTION}], TOOLS)
    result, fake = run(restless, limits=Limits(max_steps=1, max_tokens=budget, reply_tokens=0))
    assert len(fake.requests) == 1 and result.stop_reason == "max_steps" and result.tokens <= budget
    assert (f"used the one tool step it is allowed, and the token budget ({budget} tokens) leaves no room for a "
            "final answer") in result.answer


def test_a_repeat_key_that_returns_something_unhashable_gets_an_error_that_says_so():
    with pytest.raises(TypeError, match=r"repeat_key must return something hashable.*contains a dict"):
        run_agent(ScriptedModel(latest_order).client(), MODEL, QUESTION, tools=TOOLS, execute=TOOLBOX.execute,
                  repeat_key=lambda name, arguments: (name, json.loads(arguments)))


def test_a_repeat_key_that_crashes_on_text_that_is_not_json_gets_an_error_that_says_so():
    script = [raw_call("get_order_status", '{"order_id": A1001}'), "Sorry."]
    with pytest.raises(ValueError, match=r"repeat_key failed for get_order_status.*even text that is not JSON"):
        run_agent(ScriptedModel(script).client(), MODEL, QUESTION, tools=TOOLS, execute=TOOLBOX.execute,
                  repeat_key=lambda name, arguments: (name, json.dumps(json.loads(arguments))))
