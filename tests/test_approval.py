"""The approval step: nothing risky reaches a tool without a yes, and every decision is logged."""

import asyncio
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import IPython.display
import pytest

from course.approval import (
    ApprovalFailed,
    ApprovalInterrupted,
    ApprovalRequest,
    ApprovalsExhausted,
    ApprovalTimeout,
    AutoApprover,
    ScriptedApprover,
    TerminalApprover,
    WidgetApprover,
    choose_approver,
    guarded,
)
from course.orders import get_order_status
from course.permissions import DecisionLog, Policy
from course.store import ShopStore
from course.tools import Toolbox

pytestmark = pytest.mark.anyio
REFUND = json.dumps({"order_id": "A1002", "amount": 32.5, "reason": "Arrived broken."})
CANCEL = json.dumps({"order_id": "A1003", "reason": "Ordered twice."})


@pytest.fixture
def store(tmp_path):
    return ShopStore(tmp_path / "shop.json")


@pytest.fixture
def toolbox(store):
    return Toolbox(get_order_status, *store.write_tools())


def make(toolbox, approver, **policy_options):
    log = DecisionLog()
    policy = Policy.for_tools(toolbox.tools.values(), **policy_options)
    return guarded(toolbox.execute, policy=policy, approver=approver, log=log), log


class Screen(list):
    """What `IPython.display.display` was given (in order), and what each display was updated to."""

    def __init__(self):
        super().__init__()
        self.now: dict[int, object] = {}

    def __call__(self, obj, *, display_id=None, raw=False):
        self.append(obj)
        self.now[len(self) - 1] = obj
        return Handle(self, len(self) - 1) if display_id else None


class Handle:
    def __init__(self, screen, index):
        self.screen, self.index = screen, index

    def update(self, obj, raw=False):
        self.screen.now[self.index] = obj


def screen(monkeypatch) -> Screen:
    shown = Screen()
    monkeypatch.setattr(IPython.display, "display", shown)
    return shown


def spy(toolbox):
    """An execute that records what reached the tools."""
    reached = []

    def execute(name, arguments):
        reached.append(name)
        return toolbox.execute(name, arguments)

    return execute, reached


async def test_an_approved_write_runs_and_changes_the_store(toolbox, store):
    run, log = make(toolbox, ScriptedApprover([True]))
    reply = json.loads(await run("issue_refund", REFUND))
    assert reply["refund_id"] == "R-0001" and store.refunded("A1002") == 32.5
    assert [(e.tool, e.decision, e.decided_by) for e in log] == [("issue_refund", "approved", "scripted answer")]


async def test_rejected_action_never_reaches_the_tool(toolbox, store):
    store.load()
    before = store.path.read_bytes()
    execute, reached = spy(toolbox)
    run = guarded(execute, policy=Policy.for_tools(toolbox.tools.values()), approver=ScriptedApprover([False]))
    reply = await run("issue_refund", REFUND)
    assert reply == "issue_refund was not run: the user rejected this action; do not retry without a new request."
    assert reached == [] and store.path.read_bytes() == before
    assert [(e.decision, e.ran) for e in run.log] == [("rejected", False)]


async def test_a_timed_out_prompt_rejects_and_never_changes_the_store(toolbox, store, monkeypatch):
    shown = screen(monkeypatch)
    store.load()
    before = store.path.read_bytes()
    run, log = make(toolbox, WidgetApprover(timeout=0.05))
    reply = await run("cancel_order", CANCEL)
    assert "nobody approved this action in time" in reply and "do not retry without a new request" in reply
    assert store.path.read_bytes() == before and store.order("A1003")["status"] == "processing"
    assert [(e.decision, e.decided_by) for e in log] == [("timed out", "human (buttons)")]
    _text, buttons, status = shown[0].children
    assert all(b.disabled for b in buttons.children) and "timed out" in status.value


@pytest.mark.parametrize("button, decision", [(0, "approved"), (1, "rejected")])
async def test_the_widget_returns_the_clicked_answer_and_locks_its_buttons(monkeypatch, button, decision):
    shown = screen(monkeypatch)
    approve = WidgetApprover(timeout=10)
    request = ApprovalRequest("issue_refund", {"order_id": "A1002", "amount": 32.5}, "write", "risk: write")
    task = asyncio.create_task(approve(request))
    for _ in range(1000):
        if shown or task.done():
            break
        await asyncio.sleep(0.005)
    assert shown, f"no prompt was displayed ({task.exception() if task.done() else 'still waiting'})"
    text, buttons, status = shown[0].children
    assert "issue_refund" in text.value and "A1002" in text.value
    buttons.children[button].click()  # what a click in JupyterLab triggers
    assert await asyncio.wait_for(task, 5) is (decision == "approved")
    assert status.value == f"Decision: <b>{decision}</b>" and all(b.disabled for b in buttons.children)


async def test_the_widget_escapes_what_the_model_wrote(monkeypatch):
    shown = screen(monkeypatch)
    request = ApprovalRequest("create_ticket", {"message": "<img src=x onerror=alert(1)>"}, "write")
    with pytest.raises(ApprovalTimeout):
        await WidgetApprover(timeout=0.01)(request)
    assert "<img" not in shown[0].children[0].value and "&lt;img" in shown[0].children[0].value


async def test_scripted_answers_that_run_out_fail_loudly_and_change_nothing(toolbox, store):
    run, log = make(toolbox, ScriptedApprover([True]))
    await run("issue_refund", REFUND)
    before = store.path.read_bytes()
    with pytest.raises(ApprovalsExhausted, match=r"approval 2 was requested for cancel_order\(order_id='A1003'.*"
                                                 r"only 1 scripted answer\(s\) were given. Each answer is used once: "
                                                 r"if you are running a cell again, re-run the choose_approver cell"):
        await run("cancel_order", CANCEL)
    assert store.path.read_bytes() == before
    assert [e.decision for e in log] == ["approved", "error"]


def test_scripted_answers_must_be_booleans():
    with pytest.raises(TypeError, match="True \\(approve\\) or False \\(reject\\), got \\['yes'\\]"):
        ScriptedApprover(["yes"])


async def test_read_tools_run_without_asking(toolbox):
    run, log = make(toolbox, ScriptedApprover([]))  # any question would raise
    assert '"status": "shipped"' in await run("get_order_status", '{"order_id": "A1001"}')
    assert [(e.decision, e.decided_by) for e in log] == [("allowed", "risk: read")]


async def test_a_tool_off_the_allowlist_never_runs_even_if_a_human_would_approve(toolbox, store):
    execute, reached = spy(toolbox)
    policy = Policy.for_tools(toolbox.tools.values(), allowlist={"get_order_status"})
    run = guarded(execute, policy=policy, approver=AutoApprover(True))
    reply = await run("issue_refund", REFUND)
    assert reply.startswith("Error: the tool issue_refund is not available here. Do not call it again")
    assert reached == [] and store.refunds() == []
    assert [(e.decision, e.decided_by) for e in run.log] == [("denied", "allowlist")]


async def test_an_unknown_tool_is_asked_about_like_a_write(toolbox):
    approver = ScriptedApprover([False])
    run, log = make(toolbox, approver)
    await run("wipe_everything", "{}")
    assert approver.asked[0][0].risk == "write"
    assert [(e.tool, e.decision) for e in log] == [("wipe_everything", "rejected")]


async def test_unreadable_arguments_are_logged_and_never_run(toolbox):
    execute, reached = spy(toolbox)
    run = guarded(execute, policy=Policy.for_tools(toolbox.tools.values()), approver=AutoApprover(True))
    assert (await run("issue_refund", "[1, 2]")).startswith("Error: the arguments for issue_refund are not a JSON")
    assert (await run("issue_refund", "{amount: 5")).startswith("Error:")
    assert reached == [] and [e.decided_by for e in run.log] == ["unreadable arguments"] * 2


async def test_the_log_records_every_decision_with_who_decided(toolbox):
    def small_refunds(name, arguments):
        return "allow" if name == "issue_refund" and arguments["amount"] <= 50 else None

    run, log = make(toolbox, ScriptedApprover([False]), rules=[small_refunds])
    await run("get_order_status", '{"order_id": "A1003"}')
    await run("issue_refund", json.dumps({"order_id": "A1002", "amount": 10, "reason": "Chipped mug."}))
    await run("cancel_order", CANCEL)
    assert [(e.tool, e.decision, e.decided_by) for e in log] == [
        ("get_order_status", "allowed", "risk: read"),
        ("issue_refund", "allowed", "rule small_refunds"),
        ("cancel_order", "rejected", "scripted answer")]
    assert log.entries[1].arguments == {"order_id": "A1002", "amount": 10, "reason": "Chipped mug."}


async def test_parallel_calls_are_asked_about_one_at_a_time(toolbox):
    asking = []

    async def slow_human(request):
        asking.append(request.tool)
        assert len(asking) == 1, f"two questions at once: {asking}"
        await asyncio.sleep(0.02)
        asking.pop()
        return False

    run, log = make(toolbox, slow_human)
    replies = await asyncio.gather(run("issue_refund", REFUND), run("cancel_order", CANCEL))
    assert all("rejected" in r for r in replies)
    assert [e.decided_by for e in log] == ["slow_human", "slow_human"]


async def test_an_approver_that_does_not_answer_true_or_false_stops_the_run_and_is_logged(toolbox, store):
    async def vague(request):
        return "yes"

    run, log = make(toolbox, vague)
    with pytest.raises(ApprovalFailed, match=r"approver vague returned 'yes' for issue_refund\(.*\); an approver "
                                             r"returns True \(approve\) or False \(reject\)"):
        await run("issue_refund", REFUND)
    assert store.refunds() == []
    assert [(e.tool, e.decision, e.decided_by, e.asked_because) for e in log] == [
        ("issue_refund", "error", "vague", "risk: write")]


async def test_an_approver_that_crashes_stops_the_run_with_its_error_and_is_logged(toolbox, store):
    async def broken(request):
        raise RuntimeError("Approve/Reject buttons need ipykernel 7.4 or newer")

    run, log = make(toolbox, broken)
    with pytest.raises(ApprovalFailed, match="approver broken failed while asking about issue_refund.*RuntimeError: "
                                             "Approve/Reject buttons need ipykernel 7.4") as e:
        await run("issue_refund", REFUND)
    assert isinstance(e.value.__cause__, RuntimeError) and store.refunds() == []
    assert [(e.decision, e.decided_by) for e in log] == [("error", "broken")]


async def test_a_rule_that_crashes_stops_the_run_and_is_logged_with_its_name(toolbox, store):
    def picky(name, arguments):
        return "allow" if arguments["amount"] <= 50 else "ask"

    run, log = make(toolbox, AutoApprover(True), rules=[picky])
    with pytest.raises(ApprovalFailed, match=r"could not decide about cancel_order: rule picky crashed .*KeyError"):
        await run("cancel_order", CANCEL)
    assert store.order("A1003")["status"] == "processing"
    assert [(e.tool, e.decision, e.decided_by) for e in log] == [("cancel_order", "error", "rule picky")]


async def test_a_broken_approver_stops_the_agent_instead_of_becoming_a_message_for_the_model(store):
    async def broken(request):
        raise RuntimeError("no display")

    with pytest.raises(ApprovalFailed, match="no display"):
        await agent_run(store, broken)
    assert store.refunds() == [] and store.order("A1003")["status"] == "processing"


async def test_terminal_in_a_notebook_that_cannot_type_says_to_use_the_buttons(monkeypatch, toolbox):
    from IPython.core.error import StdinNotImplementedError

    def no_keyboard(prompt):
        raise StdinNotImplementedError("raw_input was called, but this frontend does not support input requests.")

    monkeypatch.setattr("builtins.input", no_keyboard)
    monkeypatch.setattr("course.approval.kernel.in_kernel", lambda: True)
    run, log = make(toolbox, TerminalApprover(timeout=1))
    with pytest.raises(ApprovalFailed, match="cannot read the keyboard .* Use COURSE_APPROVER=widget in JupyterLab"):
        await run("issue_refund", REFUND)
    assert [(e.decision, e.decided_by) for e in log] == [("error", "human (terminal)")]


async def test_the_human_is_asked_about_checked_values_and_what_runs_is_what_they_saw(toolbox, store):
    approver = ScriptedApprover([True])
    run, log = make(toolbox, approver)
    refund = '{"order_id": "A1002", "amount": "20", "reason": "Four mugs cracked."}'
    reply = json.loads(await run("issue_refund", refund))
    request = approver.asked[0][0]
    assert request.arguments["amount"] == 20.0 and isinstance(request.arguments["amount"], float)
    assert "amount=20.0" in str(request) and reply["amount"] == 20.0 and store.refunded("A1002") == 20.0
    assert log.entries[0].arguments["amount"] == 20.0


async def test_invalid_arguments_are_refused_before_anyone_is_asked(toolbox, store):
    approver = ScriptedApprover([])  # any question would fail loudly
    run, log = make(toolbox, approver)
    reply = await run("issue_refund", '{"order_id": "A1001", "amount": 0, "reason": "Nothing."}')
    assert reply.startswith("Error: invalid arguments for issue_refund: amount: Input should be greater than 0")
    assert approver.asked == [] and store.refunds() == []
    assert [(e.decision, e.decided_by) for e in log] == [("denied", "invalid arguments")]


async def test_arguments_are_checked_with_tools_given_explicitly(store):
    approver = ScriptedApprover([])
    reached = []
    for tools in (store.write_tools(), Toolbox(*store.write_tools()), Toolbox(*store.write_tools()).tools):
        run = guarded(lambda name, arguments: reached.append(name) or "ran", policy=Policy({}), approver=approver,
                      tools=tools)
        reply = await run("cancel_order", '{"order_id": "1003", "reason": "Twice."}')
        assert reply.startswith("Error: invalid arguments for cancel_order: order_id: String should match pattern")
    assert reached == [] and approver.asked == []


async def test_a_rule_denial_does_not_show_the_model_how_the_policy_is_built(toolbox):
    def no_cancelling(name, arguments):
        return "deny" if name == "cancel_order" else None

    run, log = make(toolbox, ScriptedApprover([]), rules=[no_cancelling])
    reply = await run("cancel_order", CANCEL)
    assert reply == "cancel_order was not run: this action is not permitted here. Do not retry; tell the user."
    assert "no_cancelling" not in reply and log.entries[0].decided_by == "rule no_cancelling"


async def test_the_log_keeps_why_a_human_was_asked_next_to_who_decided(toolbox):
    def big_refunds(name, arguments):
        return "ask" if name == "issue_refund" and arguments["amount"] > 20 else None

    run, log = make(toolbox, ScriptedApprover([False, False]), rules=[big_refunds])
    await run("issue_refund", REFUND)
    await run("cancel_order", CANCEL)
    assert [(e.decided_by, e.asked_because) for e in log] == [("scripted answer", "rule big_refunds"),
                                                              ("scripted answer", "risk: write")]


async def test_an_async_execute_is_awaited(toolbox):
    async def execute(name, arguments):
        return f"ran {name}"

    run = guarded(execute, policy=Policy({}), approver=AutoApprover(True))
    assert await run("anything", "{}") == "ran anything"


async def test_the_terminal_approver_accepts_only_yes(monkeypatch):
    request = ApprovalRequest("issue_refund", {"amount": 49}, "write")
    for typed, expected in [("y", True), (" YES ", True), ("", False), ("sure", False)]:
        monkeypatch.setattr("builtins.input", lambda prompt, typed=typed: typed)
        assert await TerminalApprover()(request) is expected

    def closed(prompt):
        raise EOFError

    monkeypatch.setattr("builtins.input", closed)
    assert await TerminalApprover()(request) is False


async def test_old_ipykernel_gets_a_clear_error_instead_of_a_hanging_cell(monkeypatch):
    import ipykernel

    monkeypatch.setattr(ipykernel, "__version__", "7.3.0")
    with pytest.raises(RuntimeError, match="need ipykernel 7.4 or newer .*7.3.0"):
        await WidgetApprover(timeout=1)(ApprovalRequest("issue_refund", {}, "write"))


@pytest.mark.parametrize("env, in_kernel, tty, expected", [
    ({"COURSE_APPROVER": "widget", "CI": "true"}, False, False, WidgetApprover),
    ({"COURSE_APPROVER": "terminal"}, True, False, TerminalApprover),
    ({"COURSE_APPROVER": "scripted"}, True, True, ScriptedApprover),
    ({"COURSE_APPROVER": "yes"}, True, True, AutoApprover),
    ({"CI": "true"}, True, True, ScriptedApprover),
    ({"COURSE_HEADLESS": "1"}, True, True, ScriptedApprover),
    ({}, True, True, WidgetApprover),
    ({}, False, True, TerminalApprover),
    ({}, False, False, ScriptedApprover),
])
def test_the_approver_is_chosen_from_the_environment(monkeypatch, env, in_kernel, tty, expected):
    for var in ("COURSE_APPROVER", "CI", "COURSE_HEADLESS"):
        monkeypatch.delenv(var, raising=False)
    for var, value in env.items():
        monkeypatch.setenv(var, value)
    monkeypatch.setattr("course.approval.kernel.in_kernel", lambda: in_kernel)
    monkeypatch.setattr("sys.stdin.isatty", lambda: tty, raising=False)
    assert type(choose_approver(scripted=[True], timeout=7)) is expected


def test_the_chosen_approver_keeps_the_notebooks_answers_and_timeout(monkeypatch):
    monkeypatch.setenv("COURSE_APPROVER", "scripted")
    assert choose_approver(scripted=[True, False]).answers == [True, False]
    monkeypatch.setenv("COURSE_APPROVER", "widget")
    assert choose_approver(timeout=7).timeout == 7


def test_course_approval_timeout_overrides_the_notebooks_timeout_and_a_bad_value_says_what_to_use(monkeypatch):
    monkeypatch.setenv("COURSE_APPROVER", "widget")
    monkeypatch.setenv("COURSE_APPROVAL_TIMEOUT", "8")
    assert choose_approver(timeout=60).timeout == 8
    monkeypatch.setenv("COURSE_APPROVAL_TIMEOUT", "soon")
    with pytest.raises(ValueError, match="COURSE_APPROVAL_TIMEOUT='soon' is not a number of seconds above 0"):
        choose_approver()


def test_a_misspelt_course_approver_says_what_is_allowed(monkeypatch):
    monkeypatch.setenv("COURSE_APPROVER", "buttons")
    with pytest.raises(ValueError, match="COURSE_APPROVER='buttons' is not an approver; use one of widget, scripted"):
        choose_approver()


# -- with the agent loop of lesson 2 -------------------------------------------------------------
QUESTION = ("My mugs from order A1002 arrived broken, please refund them. "
            "Please also cancel order A1003, I ordered it twice by mistake.")


async def agent_run(store, approver, **policy_options):
    from course.agent import Limits, arun_agent
    from course.scripted import ScriptedModel
    from course.stories.lesson4 import support_desk

    toolbox = Toolbox(get_order_status, *store.read_tools(), *store.write_tools())
    policy = Policy.for_tools(toolbox.tools.values(), **policy_options)
    log = DecisionLog()
    result = await arun_agent(ScriptedModel(support_desk).async_client(), "gpt-4.1-mini", QUESTION,
                              tools=[t.definition() for t in policy.offer(toolbox.tools.values())],
                              execute=guarded(toolbox.execute, policy=policy, approver=approver, log=log),
                              limits=Limits(max_steps=4))
    return result, log


async def test_the_agent_does_what_was_approved_and_tells_the_model_what_was_rejected(store):
    result, log = await agent_run(store, ScriptedApprover([True, False]))
    assert [(e.tool, e.decision) for e in log] == [("get_order_record", "allowed"), ("get_order_record", "allowed"),
                                                   ("issue_refund", "approved"), ("cancel_order", "rejected")]
    assert store.refunded("A1002") == 32.5 and store.order("A1003")["status"] == "processing"
    told = [m["content"] for m in result.messages if m["role"] == "tool" and "rejected" in m["content"]]
    assert told == ["cancel_order was not run: the user rejected this action; do not retry without a new request."]
    assert result.stop_reason == "done" and "not approved" in result.answer


async def test_scripted_answers_running_out_stop_the_agent_instead_of_becoming_a_tool_error(store):
    with pytest.raises(ApprovalsExhausted, match="approval 2 was requested"):
        await agent_run(store, ScriptedApprover([False]))
    assert store.refunds() == [] and store.order("A1003")["status"] == "processing"


async def test_running_the_story_again_reports_what_is_already_done_without_asking_anyone(store):
    await agent_run(store, ScriptedApprover([True, True]))
    nobody = ScriptedApprover([])  # a question (say, to refund 0.00) would fail loudly
    result, log = await agent_run(store, nobody)
    assert nobody.asked == [] and [e.tool for e in log] == ["get_order_record", "get_order_record"]
    assert result.answer == ("I did not refund order A1002: it is already refunded in full (32.50 EUR). "
                             "I did not cancel order A1003: it is already cancelled.")


async def test_with_an_allowlist_the_agent_cannot_cancel_and_no_human_is_asked(store):
    allow = {"get_order_record", "issue_refund"}
    result, log = await agent_run(store, ScriptedApprover([True]), allowlist=allow)
    assert [(e.tool, e.decision) for e in log][-1] == ("issue_refund", "approved")
    assert "cancel_order" not in [e.tool for e in log] and store.order("A1003")["status"] == "processing"
    assert "I did not cancel order A1003: I do not have a tool for that here" in result.answer


# -- the terminal approver, reading a real file descriptor ---------------------------------------
REQUEST = ApprovalRequest("issue_refund", {"order_id": "A1001", "amount": 5.0}, "write", "risk: write")


@pytest.fixture
def keyboard(monkeypatch):
    """stdin replaced by a pipe; returns the end to type into."""
    read, write = os.pipe()
    stdin = os.fdopen(read, "r")
    monkeypatch.setattr(sys, "stdin", stdin)
    yield write
    stdin.close()
    try:
        os.close(write)
    except OSError:
        pass


async def test_a_terminal_question_that_timed_out_does_not_swallow_the_next_answer(keyboard):
    ask = TerminalApprover(timeout=0.1)
    with pytest.raises(ApprovalTimeout, match="no answer within"):
        await ask(REQUEST)
    os.write(keyboard, b"y\n")
    ask.timeout = 5
    assert await ask(REQUEST) is True


async def test_two_answers_typed_together_answer_two_questions(keyboard):
    os.write(keyboard, b"yes\nn\n")
    ask = TerminalApprover(timeout=5)
    assert [await ask(REQUEST), await ask(REQUEST)] == [True, False]
    os.close(keyboard)  # end of input: nobody can approve
    assert await ask(REQUEST) is False


async def test_keys_typed_before_a_terminal_question_do_not_answer_it(monkeypatch):
    import select

    master, slave = os.openpty()
    stdin = os.fdopen(slave, "r")
    monkeypatch.setattr(sys, "stdin", stdin)
    try:
        os.write(master, b"y\n")  # typed ahead, before the question is shown
        assert select.select([slave], [], [], 5)[0], "the pty never delivered the typed line"
        with pytest.raises(ApprovalTimeout):
            await TerminalApprover(timeout=0.3)(REQUEST)
        # typed after the question is shown: this one counts
        asyncio.get_running_loop().call_later(0.2, os.write, master, b"y\n")
        assert await TerminalApprover(timeout=5)(REQUEST) is True
    finally:
        stdin.close()
        os.close(master)


def test_a_program_whose_terminal_question_timed_out_exits_without_waiting_for_enter(tmp_path):
    code = ("import asyncio\n"
            "from course.approval import TerminalApprover, guarded\n"
            "from course.permissions import Policy\n"
            "run = guarded(lambda n, a: 'RAN', policy=Policy({}), approver=TerminalApprover(timeout=0.2))\n"
            "print(asyncio.run(run('issue_refund', '{}')))\n")
    child = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, cwd=Path(__file__).parent.parent)
    try:
        child.wait(timeout=30)  # stdin stays open: nobody ever presses Enter
    finally:
        if child.poll() is None:
            child.kill()
        out, err = child.stdout.read(), child.stderr.read()
        for pipe in (child.stdin, child.stdout, child.stderr):
            pipe.close()
    assert child.returncode == 0, err
    assert "nobody approved this action in time" in out


# A key measured on a real terminal: it wipes the line and draws a harmless read call in its place.
FAKE = "get_order_status(order_id='A1001') [read]. Approve? [y/N] "
FORGED = {"order_id": "A1002", "amount": 999.0, f"\r\x1b[2K\rThe assistant wants to run {FAKE}\x1b[8m": 1}


def shows_only_printable_text(text: str) -> bool:
    return all(ch.isprintable() for ch in text)


async def test_a_key_with_control_characters_cannot_redraw_the_terminal_question(monkeypatch, capsys):
    asked = []
    monkeypatch.setattr("builtins.input", lambda prompt: asked.append(prompt) or "n")
    await TerminalApprover()(ApprovalRequest("issue_refund", FORGED, "write"))
    lines = [*capsys.readouterr().out.strip().splitlines(), asked[0].strip()]
    assert all(shows_only_printable_text(line) for line in lines), lines
    assert lines[0] == "The assistant wants to run issue_refund [write tool]:"
    assert lines[-1] == "Approve issue_refund [write]? [y/N, f = full values]"


# -- the printable-only spoof: 3,000 spaces, then a harmless-looking call (issue 23 item 3) -------------------
SPOOFED = {"order_id": "A1002", "amount": 999.0,
           "note": " " * 3000 + "get_order_status(order_id='A1001') [read]. Approve? [y/N]"}


async def test_a_value_of_3000_spaces_cannot_push_the_tool_and_its_risk_off_an_80_by_24_terminal(monkeypatch,
                                                                                                capsys):
    asked = []
    answers = iter(["f", "n"])
    monkeypatch.setattr("builtins.input", lambda prompt: asked.append(prompt) or next(answers))
    many = {**SPOOFED, **{f"k{i}": "v" * 500 for i in range(20)}}
    assert await TerminalApprover()(ApprovalRequest("issue_refund", many, "write")) is False
    printed = capsys.readouterr().out.strip().split("\n\n")
    first = printed[0].splitlines() + [asked[0]]
    rows = sum(max(1, -(-len(line) // 80)) for line in first)  # rows at 80 columns, wrapped lines included
    assert rows <= 24 and first[0].startswith("The assistant wants to run issue_refund [write")
    assert first[-1].startswith("Approve issue_refund [write]?")
    assert "[3,000 spaces]" in printed[0] and "… (352 more characters)" in printed[0]  # the repr has its quotes
    assert "20 more arguments" not in printed[0] and "more arguments: answer f to see them" in printed[0]
    assert "v" * 500 in printed[1] and "k19" in printed[1]  # "f": every value, whole, on request


async def test_the_widget_caps_values_names_the_tool_on_its_button_and_shows_full_values_on_request(monkeypatch):
    shown = screen(monkeypatch)
    with pytest.raises(ApprovalTimeout):
        await WidgetApprover(timeout=0.2)(ApprovalRequest("issue_refund", SPOOFED, "write"))
    table, buttons, _ = shown[0].children
    assert "[3,000 spaces]" in table.value and " " * 100 not in table.value
    assert buttons.children[0].description == "Approve issue_refund [write]"
    request = ApprovalRequest("issue_refund", {"note": "x" * 400}, "write")
    shown = screen(monkeypatch)
    task = asyncio.create_task(WidgetApprover(timeout=5)(request))
    await wait_for_prompt(shown, task)
    table, buttons, _ = [s for s in shown if hasattr(s, "children")][-1].children
    assert "(250 more characters)" in table.value
    buttons.children[2].click()  # Show full values
    assert "x" * 400 in table.value
    buttons.children[1].click()
    assert await asyncio.wait_for(task, 5) is False


async def test_a_key_of_3000_characters_cannot_push_the_tool_and_its_risk_off_an_80_by_24_terminal(monkeypatch,
                                                                                                 capsys):
    # The next variation (fresh review of issue 23 item 3): a lax schema lets the *key* carry the padding.
    asked = []
    monkeypatch.setattr("builtins.input", lambda prompt: asked.append(prompt) or "n")
    keys = {"a" * 3000: 1, "x" + " " * 3000 + "get_order_status(order_id='A1001')": 2, "order_id": "A1002"}
    assert await TerminalApprover()(ApprovalRequest("issue_refund", keys, "write")) is False
    first = capsys.readouterr().out.strip().splitlines() + [asked[0]]
    rows = sum(max(1, -(-len(line) // 80)) for line in first)
    assert rows <= 24 and first[0].startswith("The assistant wants to run issue_refund [write")
    assert "more characters" in first[1] and "[3,000 spaces]" in first[2] and "order_id = 'A1002'" in first[3]
    assert "a" * 3000 in "\n".join(ApprovalRequest("issue_refund", keys, "write").lines(full=True))


@pytest.mark.parametrize("value", ["https://\u0430\u0440\u0440\u04cf\u0435.\u0441\u043e\u043c/refunds",  # аррӏе.сом
                                   "https://northwind-goods.example/refunds?order=\u04101002"])  # А1002
def test_a_word_wholly_in_letters_drawn_like_latin_ones_is_named_in_the_prompt(value):
    # The next variation (fresh review of issue 23 item 4): no word mixes scripts, so is_mixed_script misses it.
    request = ApprovalRequest("read_page", {"url": value}, "read")
    assert "mixed scripts: " in str(request) and "CYRILLIC" in str(request), str(request)


def test_words_in_one_script_that_do_not_pose_as_latin_are_not_marked():
    from course.show import lookalikes

    assert lookalikes("Grüße, café, \u043f\u0440\u0438\u0432\u0435\u0442, A1002, northwind-goods.example") == []


def test_a_look_alike_in_an_argument_name_is_named_in_the_prompt():
    request = ApprovalRequest("issue_refund", {"\u043erder_id": "A1002"}, "write")  # an identifier, Cyrillic о
    for text in (str(request), "\n".join(request.lines()), request.html()):
        assert "mixed scripts: \u043e CYRILLIC SMALL LETTER O" in text, text


def test_a_mixed_script_look_alike_is_named_in_the_prompt():
    request = ApprovalRequest("read_page", {"url": "https://n\u043erthwind-goods.example/refunds"}, "read")
    assert "mixed scripts: \u043e CYRILLIC SMALL LETTER O" in str(request)
    assert "mixed scripts" in "\n".join(request.lines()) and "mixed scripts" in request.html()


async def test_the_scripted_approver_and_the_log_show_forged_keys_escaped(toolbox, capsys):
    run, log = make(toolbox, ScriptedApprover([False]))
    await run("create_ticket\u202e", json.dumps(FORGED))  # an unknown name, right-to-left override included
    log.show()
    printed = capsys.readouterr().out
    assert "\x1b" not in printed and "\r" not in printed and "\u202e" not in printed
    assert "\\x1b[2K" in printed and "create_ticket\\u202e" in printed


async def test_the_widget_shows_forged_keys_escaped_and_as_html(monkeypatch):
    shown = screen(monkeypatch)
    forged = {**FORGED, "<b>note</b>": "<script>alert(1)</script>\u202e"}
    with pytest.raises(ApprovalTimeout):
        await WidgetApprover(timeout=0.01)(ApprovalRequest("issue_refund", forged, "write"))
    for text in (shown[0].children[0].value, shown.now[0]["text/html"]):
        assert "<script>" not in text and "<b>note" not in text and "&lt;script&gt;" in text
    for text in (shown[0].children[0].value, shown.now[0]["text/html"], shown.now[0]["text/plain"], repr(shown[0])):
        assert shows_only_printable_text(text) and "\\x1b[2K" in text and "\\u202e" in text


async def wait_for_prompt(shown, task):
    for _ in range(1000):
        if shown or task.done():
            break
        await asyncio.sleep(0.005)
    assert shown, f"no prompt was displayed ({task.exception() if task.done() else 'still waiting'})"


async def test_interrupt_ends_a_waiting_prompt_at_once_with_a_one_line_message(monkeypatch, toolbox, store):
    shown = screen(monkeypatch)
    store.load()
    before = store.path.read_bytes()
    run, log = make(toolbox, WidgetApprover(timeout=600))
    task = asyncio.create_task(run("cancel_order", CANCEL))
    await wait_for_prompt(shown, task)
    os.kill(os.getpid(), signal.SIGINT)  # what JupyterLab's Interrupt button sends the kernel
    with pytest.raises(ApprovalInterrupted) as stopped:
        await asyncio.wait_for(task, 10)
    assert stopped.value._render_traceback_() == [
        "Interrupted: the prompt for cancel_order was cancelled, so nothing was run."]
    assert [e.decision for e in log] == ["interrupted"] and store.path.read_bytes() == before
    _text, buttons, status = shown[0].children
    assert all(b.disabled for b in buttons.children) and "interrupted" in status.value
    assert "interrupted" in shown.now[0]["text/plain"]


async def test_after_a_prompt_sigint_is_back_with_its_usual_handler(monkeypatch):
    screen(monkeypatch)
    usual = signal.getsignal(signal.SIGINT)
    with pytest.raises(ApprovalTimeout):
        await WidgetApprover(timeout=0.01)(ApprovalRequest("issue_refund", {}, "write"))
    assert signal.getsignal(signal.SIGINT) is usual


async def test_a_prompt_nobody_answers_says_what_happened_and_how_to_ask_again(monkeypatch):
    shown = screen(monkeypatch)
    with pytest.raises(ApprovalTimeout):
        await WidgetApprover(timeout=0.01)(ApprovalRequest("issue_refund", {"order_id": "A1002"}, "write"))
    for text in (shown[0].children[2].value, shown.now[0]["text/html"], shown.now[0]["text/plain"]):
        assert "timed out" in text and "counts as rejected" in text and "nothing was run" in text
        assert "run this cell again" in text


def test_a_prompt_nobody_sees_costs_a_minute_not_five(monkeypatch):
    monkeypatch.setenv("COURSE_APPROVER", "widget")
    assert choose_approver().timeout <= 60
    assert WidgetApprover().timeout <= 60


async def test_a_decided_prompt_leaves_text_that_reads_right_without_the_widget(monkeypatch):
    shown = screen(monkeypatch)
    approve = WidgetApprover(timeout=10)
    task = asyncio.create_task(approve(ApprovalRequest("issue_refund", {"order_id": "A1002"}, "write")))
    await wait_for_prompt(shown, task)
    assert repr(shown[0]) == "Approval prompt: issue_refund(order_id='A1002') [write]"  # stored next to the widget
    shown[0].children[1].children[0].click()
    assert await asyncio.wait_for(task, 5) is True
    final = shown.now[0]
    assert "application/vnd.jupyter.widget-view+json" not in final  # reopened later: no "model not found"
    assert final["text/plain"] == "Approval prompt: issue_refund(order_id='A1002') [write]. Decision: approved"
    assert "Decision: <b>approved</b>" in final["text/html"]


async def test_a_waiting_prompt_scrolls_itself_into_view_and_the_script_goes_afterwards(monkeypatch):
    shown = screen(monkeypatch)
    with pytest.raises(ApprovalTimeout):
        await WidgetApprover(timeout=0.01)(ApprovalRequest("issue_refund", {}, "write"))
    marker = next(c for c in shown[0]._dom_classes if c.startswith("course-approval-"))
    script = shown[1]["application/javascript"]
    assert shown[1]["text/plain"] == "" and "scrollIntoView" in script and f'".{marker}"' in script
    assert shown.now[1] == {"text/plain": ""}


TERMINAL_PROGRAM = """\
import asyncio
from course.approval import TerminalApprover, guarded
from course.permissions import DecisionLog, Policy

log = DecisionLog()
run = guarded(lambda name, arguments: "RAN " + name, policy=Policy({}), approver=TerminalApprover(timeout=5), log=log)

async def main():
    print(await run("issue_refund", "{}"))
    print(await run("cancel_order", "{}"))

try:
    asyncio.run(main())
except KeyboardInterrupt:
    print("STOPPED")
print("LOG", [e.decision for e in log])
"""


def test_on_a_real_terminal_enter_answers_and_ctrl_c_stops_the_run(tmp_path):
    import pty
    import select
    import time

    pid, fd = pty.fork()
    if pid == 0:  # the child: a program whose stdin and stdout are a terminal
        os.chdir(Path(__file__).parent.parent)
        os.execv(sys.executable, [sys.executable, "-c", TERMINAL_PROGRAM])
    seen = b""

    def read_until(text: bytes, seconds: float = 30) -> None:
        nonlocal seen
        deadline = time.monotonic() + seconds
        while text not in seen and time.monotonic() < deadline:
            if select.select([fd], [], [], 0.1)[0]:
                try:
                    seen += os.read(fd, 4096)
                except OSError:  # the child exited
                    return

    try:
        read_until(b"[y/N, f = full values]")
        os.write(fd, b"y\r")
        read_until(b"RAN issue_refund")
        read_until(b"Approve cancel_order [write]? [y/N, f = full values]")
        os.write(fd, b"\x03")  # Ctrl+C
        read_until(b"LOG")
        read_until(b"]")
    finally:
        if os.waitpid(pid, os.WNOHANG) == (0, 0):
            read_until(b"never printed", 5)  # let it finish writing, then stop it if it hangs
            if os.waitpid(pid, os.WNOHANG) == (0, 0):
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
        os.close(fd)
    text = seen.decode(errors="replace")
    assert "RAN issue_refund" in text and "RAN cancel_order" not in text and "STOPPED" in text
    assert "LOG ['approved', 'interrupted']" in text


async def test_wide_letters_cannot_push_the_tool_off_an_80x24_screen(monkeypatch, capsys):
    # The next variation (third look at issue 23): a cap of 150 characters let 150 fullwidth letters fill 300 cells.
    import unicodedata

    asked = []
    monkeypatch.setattr("builtins.input", lambda prompt: asked.append(prompt) or "n")
    wide = {"order_id": "A1002", **{f"note{i}": "\uff21\u8a02" * 1500 for i in range(5)}}
    assert await TerminalApprover()(ApprovalRequest("issue_refund", wide, "write")) is False
    first = capsys.readouterr().out.strip().splitlines() + [asked[0]]
    cells = [sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in line) for line in first]
    assert sum(max(1, -(-n // 80)) for n in cells) <= 24
    assert first[0].startswith("The assistant wants to run issue_refund")
    assert max(cells[1:-1]) <= 3 * 80, cells  # each value as many lines as plain letters take


async def test_eight_long_arguments_with_long_keys_cannot_push_the_tool_off_an_80x24_screen(monkeypatch, capsys):
    # The next variation (fourth look at issue 23): every shown argument at its longest, key and value, in plain
    # letters: eight of them took 26 rows and scrolled the tool and its risk away.
    asked = []
    monkeypatch.setattr("builtins.input", lambda prompt: asked.append(prompt) or "n")
    longest = {f"k{i}_" + "x" * 60: "v" * 3000 for i in range(12)}
    assert await TerminalApprover()(ApprovalRequest("issue_refund", longest, "write")) is False
    first = capsys.readouterr().out.strip().splitlines() + [asked[0]]
    assert sum(max(1, -(-len(line) // 80)) for line in first) <= 24, first
    assert first[0].startswith("The assistant wants to run issue_refund [write")
    assert "more arguments: answer f to see them" in first[-2] and first[-1].startswith("Approve issue_refund")


def test_a_run_of_braille_blanks_is_collapsed_like_spaces():
    spoof = "A1001" + "\u2800" * 3000 + "') issue_refund(amount=999"
    request = ApprovalRequest("get_order_status", {"order_id": spoof}, "read")
    assert "[3,000 spaces]" in str(request) and "issue_refund" in str(request), str(request)


# -- variation (issue 23 leftovers): combining marks stacked on one letter (Zalgo) ------------------------------
ZALGO = "a" + "\u0301" * 200  # 200 acute accents on one letter: drawn as one tall smear over the lines around it


def combining(text: str) -> int:
    """The longest run of combining marks in `text`: what a terminal stacks on one letter."""
    import unicodedata

    longest = run = 0
    for ch in text:
        run = run + 1 if unicodedata.category(ch) in ("Mn", "Me") else 0
        longest = max(longest, run)
    return longest


@pytest.mark.parametrize("where", ["value", "key", "tool"])
async def test_combining_marks_stacked_on_one_letter_are_counted_not_drawn_in_every_prompt(monkeypatch, where):
    arguments = {"order_id": "A1002", **({"note": "ok" + ZALGO} if where == "value" else {}),
                 **({"n" + ZALGO: "ok"} if where == "key" else {})}
    request = ApprovalRequest("issue_refund" + (ZALGO if where == "tool" else ""), arguments, "write")
    shown = screen(monkeypatch)
    with pytest.raises(ApprovalTimeout):
        await WidgetApprover(timeout=0.01)(request)
    texts = [str(request), *request.lines(), *request.lines(full=True), request.question(), request.html(),
             request.html(full=True), shown[0].children[0].value, shown[0].children[1].children[0].description,
             shown.now[0]["text/html"], shown.now[0]["text/plain"]]
    for text in texts:
        assert combining(text) <= 2, text[:200]
    assert any("a [200 combining marks]" in text for text in texts[:2])


async def test_the_decision_log_counts_stacked_combining_marks_in_the_tool_and_the_arguments(toolbox, capsys):
    run, log = make(toolbox, ScriptedApprover([False, False]))
    await run("cancel_order", json.dumps({"order_id": "A1003", "reason": "x" + ZALGO}, ensure_ascii=False))
    await run("cancel_order" + ZALGO, json.dumps({"order_id": "A1003"}))
    assert combining(capsys.readouterr().out) <= 2  # what the scripted approver printed
    log.show(arguments_width=200)
    printed = capsys.readouterr().out
    assert combining(printed) <= 2 and printed.count("a [200 combining marks]") == 2, printed


def test_a_letter_with_one_or_two_accents_is_shown_as_written():
    from course.show import printable

    # NFD: ệ is e and two marks; a Hebrew shin with its dot and a vowel
    written = "Vie\u0323\u0302t Nam, cafe\u0301, \u05e9\u05c1\u05b8"
    assert printable(written) == written


# -- variation (issue 23 leftovers): the padding in the *tool's name* (a lax third-party server names its tools) ------
@pytest.mark.parametrize("tool", ["get_order_status" + " " * 3000 + "issue_refund", "issue_refund" + "x" * 3000])
async def test_a_tool_name_of_3000_characters_cannot_push_the_tool_and_its_arguments_off_the_screen(
        monkeypatch, capsys, tool):
    asked = []
    monkeypatch.setattr("builtins.input", lambda prompt: asked.append(prompt) or "n")
    request = ApprovalRequest(tool, {"order_id": "A1002", "amount": 999}, "write")
    assert await TerminalApprover()(request) is False
    first = capsys.readouterr().out.strip().splitlines() + [asked[0]]
    assert sum(max(1, -(-len(line) // 80)) for line in first) <= 24, first
    assert first[0].startswith(f"The assistant wants to run {tool[:12]}")
    assert "more characters" in first[0] or "[3,000 spaces] issue_refund [write tool]" in first[0]
    assert "amount = 999" in "\n".join(first) and first[-1].rstrip().endswith("[write]? [y/N, f = full values]")
    assert len(str(request)) < 300 and len(request.html()) < 1500
    assert tool in "\n".join(request.lines(full=True))  # the whole name on request
    shown = screen(monkeypatch)
    with pytest.raises(ApprovalTimeout):
        await WidgetApprover(timeout=0.01)(request)
    assert len(shown[0].children[1].children[0].description) < 120 and len(shown.now[0]["text/plain"]) < 400


async def test_the_decision_log_cuts_a_tool_name_of_3000_characters_and_still_names_its_look_alikes(toolbox, capsys):
    run, log = make(toolbox, ScriptedApprover([False]))
    await run("\u0456ssue_refund" + " " * 3000 + "x" * 3000, REFUND)  # an unknown tool: asked about, and logged
    capsys.readouterr()
    log.show()
    printed = capsys.readouterr().out
    assert max(map(len, printed.splitlines())) < 400 and "CYRILLIC SMALL LETTER BYELORUSSIAN-UKRAINIAN I" in printed
