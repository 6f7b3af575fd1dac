"""The policy decides allow / deny / ask per call; the log keeps every decision."""

import pytest
from pydantic import BaseModel

from course.orders import find_orders, get_order_status
from course.permissions import DecisionLog, Policy, RuleError, risk_of, risks_of
from course.store import ShopStore
from course.tools import Tool, tool

RISKS = {"get_order_status": "read", "issue_refund": "write", "cancel_order": "write"}
REFUND = {"order_id": "A1001", "amount": 20.0, "reason": "Broken lid."}


def test_an_unknown_tool_is_treated_as_write():
    assert risk_of("drop_all_tables", RISKS) == "write"
    assert risk_of("odd", {"odd": "harmless"}) == "write"  # a risk the course does not know: be careful
    assert Policy(RISKS).decide("drop_all_tables", {}) == "ask"


def test_a_tool_that_does_not_declare_its_risk_counts_as_write():
    class NoArguments(BaseModel):
        pass

    @tool(NoArguments)
    def forget_everything(params):
        """No risk declared."""

    bare = Tool("bare", "No risk declared either.", NoArguments, lambda a: None)
    policy = Policy.for_tools([forget_everything, bare, get_order_status])
    assert [policy.decide(n, {}) for n in ("forget_everything", "bare", "get_order_status")] == ["ask", "ask", "allow"]


def test_read_tools_are_allowed_and_write_tools_need_a_human():
    policy = Policy(RISKS)
    assert policy.decide("get_order_status", {"order_id": "A1001"}) == "allow"
    assert policy.decide("issue_refund", REFUND) == "ask"


def test_a_tool_off_the_allowlist_is_denied_whatever_its_risk():
    policy = Policy(RISKS, allowlist={"issue_refund"})
    assert policy.decide("get_order_status", {"order_id": "A1001"}) == "deny"
    assert policy.judge("cancel_order", {}).decided_by == "allowlist"
    assert policy.decide("issue_refund", REFUND) == "ask"


def test_the_allowlist_also_decides_what_the_model_is_offered():
    store_tools = ShopStore("/nonexistent/never-written.json").write_tools()
    tools = [get_order_status, find_orders, *store_tools]
    policy = Policy.for_tools(tools, allowlist={"get_order_status", "create_ticket"})
    assert [t.name for t in policy.offer(tools)] == ["get_order_status", "create_ticket"]
    assert Policy.for_tools(tools).offer(tools) == tools


def test_the_first_rule_with_an_opinion_decides_and_none_passes_on():
    def small_refunds(name, arguments):
        if name == "issue_refund" and arguments.get("amount", 0) <= 50:
            return "allow"
        return None

    def no_cancelling(name, arguments):
        return "deny" if name == "cancel_order" else None

    policy = Policy(RISKS, rules=[small_refunds, no_cancelling])
    assert policy.judge("issue_refund", REFUND).decided_by == "rule small_refunds"
    assert policy.decide("issue_refund", {**REFUND, "amount": 80}) == "ask"
    assert policy.judge("cancel_order", {"order_id": "A1003"}).decision == "deny"
    assert policy.judge("get_order_status", {}).decided_by == "risk: read"


def test_a_rule_cannot_override_the_allowlist():
    policy = Policy(RISKS, allowlist={"get_order_status"}, rules=[lambda name, arguments: "allow"])
    assert policy.decide("issue_refund", REFUND) == "deny"


def test_a_rule_returning_nonsense_gets_a_clear_error():
    def sloppy(name, arguments):
        return True

    with pytest.raises(ValueError, match="rule sloppy returned True; a rule returns 'allow', 'deny', 'ask', or None"):
        Policy(RISKS, rules=[sloppy]).decide("issue_refund", REFUND)


def test_a_rule_that_crashes_is_named_with_the_call_it_crashed_on():
    def picky(name, arguments):
        return "allow" if arguments["amount"] <= 50 else "ask"

    with pytest.raises(RuleError, match=r"rule picky crashed on issue_refund\(\{\"order_id\": \"A1001\"\}\): "
                                        r"KeyError: 'amount'") as e:
        Policy(RISKS, rules=[picky]).decide("issue_refund", {"order_id": "A1001"})
    assert e.value.rule == "picky"


def test_risks_come_from_the_tools_themselves():
    tools = [get_order_status, *ShopStore("/nonexistent/x.json").write_tools()]
    assert risks_of(tools) == {"get_order_status": "read", "create_ticket": "write",
                               "issue_refund": "write", "cancel_order": "write"}


def test_the_log_keeps_every_decision_in_order_and_prints_a_table(capsys):
    log = DecisionLog()
    log.record("get_order_status", {"order_id": "A1001"}, "allowed", "risk: read")
    log.record("issue_refund", REFUND, "rejected", "human (buttons)", asked_because="rule refund_limit")
    assert [(e.tool, e.decision, e.decided_by, e.asked_because) for e in log.entries] == [
        ("get_order_status", "allowed", "risk: read", ""),
        ("issue_refund", "rejected", "human (buttons)", "rule refund_limit")]
    assert log.entries[0].time <= log.entries[1].time and log.entries[0].time.tzinfo is not None
    assert [e.ran for e in log] == [True, False]
    log.show()
    out = capsys.readouterr().out.splitlines()
    assert out[0].split() == ["#", "tool", "arguments", "decision", "decided", "by", "asked", "because", "after"]
    assert all(word in out[3] for word in ("issue_refund", "rejected", "human (buttons)", "rule refund_limit"))


def test_the_log_can_print_fewer_columns_and_shorter_arguments_to_fit_a_narrow_window(capsys):
    log = DecisionLog()
    log.record("issue_refund", {**REFUND, "reason": "The seat of the office chair slowly sinks."}, "rejected",
               "human (buttons)", asked_because="risk: write")
    log.show(["#", "tool", "arguments", "decision"], arguments_width=24)
    out = capsys.readouterr().out.splitlines()
    assert out[0].split() == ["#", "tool", "arguments", "decision"] and max(map(len, out)) <= 52
    with pytest.raises(ValueError, match="no column outcome; the log has #, tool"):
        log.show(["outcome"])


def test_the_log_keeps_a_copy_of_the_arguments():
    arguments = {"order_id": "A1001"}
    log = DecisionLog()
    log.record("get_order_status", arguments, "allowed", "risk: read")
    arguments["order_id"] = "A1004"
    assert log.entries[0].arguments == {"order_id": "A1001"}


@pytest.mark.parametrize("tool, arguments", [
    ("issue_r\u0435fund", {"order_id": "A1002"}),  # a Cyrillic е in the tool's name
    ("read_page", {"url": "https://n\u043erthwind-goods.example/refunds"}),  # in a value
    ("issue_refund", {"\u043erder_id": "A1002"}),  # in an argument's name
    ("read_page", {"url": "https://\u0430\u0440\u0440\u04cf\u0435.\u0441\u043e\u043c/"}),  # аррӏе.сом: no word mixes
    ("issue_refund", {"reason": "x" * 80, "order_id": "\u04101002"}),  # А1002, past the column's cut
])
def test_the_log_names_look_alike_letters_as_the_approval_prompt_does(tool, arguments):
    from course.approval import ApprovalRequest

    log = DecisionLog()
    log.record(tool, arguments, "approved", "human (terminal)")
    row = log.rows()[0]
    logged = f"{row['tool']} {row['arguments']}"
    assert "mixed scripts: " in logged and "CYRILLIC" in logged, logged
    assert "mixed scripts: " in str(ApprovalRequest(tool, arguments, "write"))


def test_the_log_marks_nothing_in_names_and_values_of_one_honest_script():
    log = DecisionLog()
    log.record("issue_refund", {"order_id": "A1002", "reason": "Grüße, café, \u043f\u0440\u0438\u0432\u0435\u0442"},
               "approved", "human (terminal)")
    assert "mixed scripts" not in str(log.rows())
