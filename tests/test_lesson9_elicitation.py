"""Lesson 9's elicitation: the shop server asks in both protocol eras, the host's callback sends only answers that
fit the schema, refuses questions for secrets without asking anyone, and logs outcomes, not what was typed."""

from __future__ import annotations

import json

import pytest
from mcp import Client

from course.beyond import CANCEL, DECLINE, Desk, ScriptedAnswerer, accept, asks_for_secret, form_fields, problems
from course.beyond.shop import build_server

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]
ERAS = [pytest.param("auto", id="2026-07-28"), pytest.param("legacy", id="handshake")]


class Recording(ScriptedAnswerer):
    """A scripted answerer that also keeps what it was shown (the problems of the last answer, above all)."""

    def __init__(self, answers):
        super().__init__(answers)
        self.shown = []

    async def __call__(self, message, schema, last):
        self.shown.append((message, schema, list(last)))
        return await super().__call__(message, schema, last)


@pytest.mark.parametrize("mode", ERAS)
async def test_a_refund_asks_which_order_in_both_eras_and_refunds_the_one_the_human_picked(mode):
    server = build_server()
    answerer = Recording([accept(order_id="A1004", confirm=True)])
    async with Desk(server, answerer, mode=mode) as desk:
        reply = await desk.execute("issue_refund", json.dumps({"email": "leo@example.com", "amount": 80}))
        assert desk.protocol_version == ("2026-07-28" if mode == "auto" else "2025-11-25")
    assert reply == "Refunded 80.00 EUR to A1004."
    assert server.refunds == [("A1004", 80.0)]
    message, schema, _ = answerer.shown[0]
    assert schema["properties"]["order_id"]["enum"] == ["A1003", "A1004"]  # only this customer's orders
    assert schema["required"] == ["order_id", "confirm"]  # 80 EUR is over the limit: a confirmation too
    assert "2 orders" in message


async def test_under_the_limit_no_confirmation_is_asked_for():
    answerer = Recording([accept(order_id="A1001")])
    async with Desk(build_server(), answerer) as desk:
        await desk.execute("issue_refund", json.dumps({"email": "mia@example.com", "amount": 20}))
    assert "confirm" not in answerer.shown[0][1]["properties"]


@pytest.mark.parametrize("mode", ERAS)
@pytest.mark.parametrize("answer", [DECLINE, CANCEL], ids=["decline", "cancel"])
async def test_a_declined_or_cancelled_question_refunds_nothing_and_says_so(mode, answer):
    server = build_server()
    async with Desk(server, ScriptedAnswerer([answer]), mode=mode) as desk:
        reply = await desk.execute("issue_refund", json.dumps({"email": "leo@example.com", "amount": 10}))
        assert desk.asked[-1].outcome == answer.action
    assert reply == f"No refund: the human chose {answer.action}."
    assert server.refunds == []


async def test_an_answer_that_breaks_the_schema_is_never_sent_and_the_human_is_asked_again_with_the_problems():
    server = build_server()
    answerer = Recording([accept(order_id="A9999", confirm=True), accept(confirm="yes"),
                          accept(order_id="A1003", confirm=True)])
    async with Desk(server, answerer) as desk:
        reply = await desk.execute("issue_refund", json.dumps({"email": "leo@example.com", "amount": 60}))
    assert reply == "Refunded 60.00 EUR to A1003."
    assert answerer.shown[0][2] == []
    assert any("Order Id" in p for p in answerer.shown[1][2])  # the enum's problem, named
    assert any("Order Id: required" in p for p in answerer.shown[2][2]) and any("Confirm" in p
                                                                               for p in answerer.shown[2][2])


async def test_three_answers_that_break_the_schema_cancel_the_call_and_the_log_says_why():
    server = build_server()
    async with Desk(server, ScriptedAnswerer([accept(order_id="nope")] * 3)) as desk:
        reply = await desk.execute("issue_refund", json.dumps({"email": "leo@example.com", "amount": 5}))
        assert desk.asked[-1].outcome.startswith("cancelled: 3 answers broke the form")
    assert reply == "No refund: the human chose cancel." and server.refunds == []


@pytest.mark.parametrize("mode", ERAS)
async def test_a_question_for_a_pin_is_declined_without_asking_anyone(mode):
    answerer = Recording([])  # would raise if it were asked
    async with Desk(build_server(), answerer, mode=mode) as desk:
        reply = await desk.execute("card_check", json.dumps({"order_id": "A1004"}))
        assert desk.asked[-1].outcome == "refused: it asks for a secret ('PIN')"
    assert reply == "card check: decline" and answerer.shown == []


async def test_the_log_keeps_the_fields_answered_but_not_what_was_typed():
    async with Desk(build_server(), ScriptedAnswerer([accept(order_id="A1002", note="my flat is 4B")])) as desk:
        await desk.execute("issue_refund", json.dumps({"email": "mia@example.com", "amount": 5}))
        logged = repr(desk.asked)
    assert "note" in logged and "4B" not in logged


async def test_ctx_elicit_works_in_the_handshake_era_and_fails_clearly_in_2026_07_28():
    replies, diagnosis = {}, {}
    for mode in ("legacy", "auto"):
        async with Desk(build_server(), ScriptedAnswerer([accept(confirm=True)]), mode=mode) as desk:
            replies[mode] = await desk.execute("confirm_refund", json.dumps({"order_id": "A1002"}))
            diagnosis[mode] = desk.outcomes[-1].diagnosis
    assert replies["legacy"] == "Confirmed A1002."
    # The model gets the host's line; the server's own words (no back-channel) go to the human only
    assert replies["auto"].startswith("Error: running confirm_refund failed") and "back-channel" not in replies["auto"]
    assert "back-channel" in diagnosis["auto"]


async def test_the_2026_era_answers_input_required_with_the_question_and_a_state_to_echo():
    async def unused(context, params):
        raise AssertionError("not called: the test drives the round trip by hand")

    async with Client(build_server(), elicitation_callback=unused) as client:
        first = await client.session.call_tool("issue_refund", {"email": "leo@example.com", "amount": 10},
                                               allow_input_required=True)
        (key, request), = first.input_requests.items()
        again = await client.session.call_tool(
            "issue_refund", {"email": "leo@example.com", "amount": 10}, allow_input_required=True,
            input_responses={key: {"action": "accept", "content": {"order_id": "A1003"}}},
            request_state=first.request_state)
    assert first.result_type == "input_required" and request.method == "elicitation/create"
    assert again.content[0].text == "Refunded 10.00 EUR to A1003."


SCHEMA = {"type": "object", "required": ["order", "amount"], "properties": {
    "order": {"type": "string", "enum": ["A1", "A2"], "title": "Order"},
    "amount": {"type": "number", "minimum": 0, "maximum": 50, "title": "Amount"},
    "parcels": {"type": "integer", "title": "Parcels"},
    "ok": {"type": "boolean"}, "note": {"type": "string"}}}


def test_each_kind_of_property_becomes_its_field():
    fields = {f.name: f for f in form_fields(SCHEMA)}
    assert [(f.kind, f.required) for f in fields.values()] == [
        ("choice", True), ("number", True), ("integer", False), ("boolean", False), ("text", False)]
    assert fields["order"].choices == ("A1", "A2") and fields["ok"].label == "ok"


@pytest.mark.parametrize("answer, wrong", [
    ({"order": "A1", "amount": 51}, "Amount: at most 50."),
    ({"order": "A1", "amount": True}, "Amount: a number."),
    ({"order": "A3", "amount": 1}, "Order: one of A1, A2."),
    ({"amount": 1}, "Order: required."),
    ({"order": "A1", "amount": 1, "parcels": 1.5}, "Parcels: a whole number."),
    ({"order": "A1", "amount": 1, "ok": "yes"}, "ok: yes or no."),
    ({"order": "A1", "amount": 1, "extra": 1}, "extra: the form has no such field."),
])
def test_each_way_an_answer_breaks_the_schema_is_named(answer, wrong):
    assert problems(SCHEMA, answer) == [wrong] or wrong in problems(SCHEMA, answer)


def test_a_fitting_answer_has_no_problems():
    assert problems(SCHEMA, {"order": "A2", "amount": 0, "parcels": 2, "ok": False}) == []


@pytest.mark.parametrize("message, props", [
    ("Your password, please", {}), ("", {"api_key": {"type": "string"}}),
    ("", {"x": {"type": "string", "description": "the one-time code we texted"}}),
    ("", {"x": {"type": "string", "title": "CVV"}}), ("Enter the card number", {})])
def test_questions_for_secrets_are_caught_wherever_they_hide(message, props):
    assert asks_for_secret(message, {"properties": props})


@pytest.mark.parametrize("message", ["Which shipping address?", "Name of the passenger", "A spinner colour?"])
def test_ordinary_questions_are_not_taken_for_secrets(message):
    assert asks_for_secret(message, {"properties": {"value": {"type": "string"}}}) is None


# The reference everything server's form, as it asks: a favourite integer, with a warning *not* to type a PIN.
EVERYTHING_INTEGER = {"integer": {"title": "Integer", "type": "integer", "description": (
    "Your favorite integer (do not give us your phone number, pin, or other sensitive info)")}}


@pytest.mark.parametrize("message, props", [
    ("Please provide inputs for the following fields:", EVERYTHING_INTEGER),
    ("", {"note": {"type": "string", "description": "Never share your PIN; we will never ask for it"}}),
    ("We will never ask for your password.", {"order": {"type": "string"}}),
    ("Is this a one-time purchase?", {"once": {"type": "boolean"}}),
    ("Your secretary's name", {"name": {"type": "string"}}),
    ("Which guitar brand?", {"brand": {"type": "string", "enum": ["Ibanez", "Fender"], "description": "Ibanez?"}}),
    ("How many tokens may the summary use?", {"tokens": {"type": "integer"}}),
])
def test_a_warning_not_to_give_a_secret_and_words_that_only_contain_one_are_no_question_for_a_secret(message, props):
    assert asks_for_secret(message, {"properties": props}) is None


@pytest.mark.parametrize("message, props", [
    ("", {"code": {"type": "string", "title": "PIN"}}),
    ("", {"userPin": {"type": "string"}}),
    ("Your passcode", {}),
    ("", {"apiKey": {"type": "string"}}),
    ("", {"key": {"type": "string", "title": "API key"}}),
    ("", {"k": {"type": "string", "description": "The API-key of your account"}}),
    ("", {"code": {"type": "string", "description": "Don't share your PIN with anyone else, type it here"}}),
    ("", {"code": {"type": "string", "description": "Do not forget your PIN: it is on the letter we sent"}}),
    ("", {"x": {"type": "integer", "description": "Your favourite number (not 0). Then your card's PIN"}}),
    ("Do not give us your name. Enter the one-time password instead", {}),
    ("", {"code": {"type": "string", "description": "The verification code we texted you"}}),
])
def test_a_real_question_for_a_pin_a_passcode_or_an_api_key_is_caught_even_next_to_a_warning(message, props):
    assert asks_for_secret(message, {"properties": props})


def test_the_form_shows_a_titled_enums_titles_sends_its_values_and_prints_each_description_escaped():
    from course.beyond.form_widget import about, field_widget

    schema = {"properties": {
        "hero": {"type": "string", "title": "Hero", "description": "Pick <b>one</b>",
                 "oneOf": [{"const": "hero-1", "title": "Superman"}, {"const": "hero-2", "title": "Wonder Woman"}]},
        "fish": {"type": "array", "items": {"anyOf": [{"const": "fish-1", "title": "Tuna"}, {"const": "fish-2"}]}},
        "pet": {"type": "string", "enum": ["pet-1", "pet-2"], "enumNames": ["Cats", "Dogs"]},
        "size": {"type": "string", "enum": ["S", "M"]}}}
    hero, fish, pet, size = form_fields(schema)
    assert field_widget(hero).options == (("", None), ("Superman", "hero-1"), ("Wonder Woman", "hero-2"))
    assert field_widget(fish).options == (("Tuna", "fish-1"), ("fish-2", "fish-2"))
    assert field_widget(pet).options[1:] == (("Cats", "pet-1"), ("Dogs", "pet-2"))
    assert field_widget(size).options[1:] == (("S", "S"), ("M", "M"))
    (shown,) = about(hero)
    assert shown.value == "<small>Pick &lt;b&gt;one&lt;/b&gt;</small>" and about(size) == []


TEXTS = {"properties": {
    "email": {"type": "string", "title": "Email", "format": "email"},
    "site": {"type": "string", "title": "Site", "format": "uri"},
    "born": {"type": "string", "title": "Born", "format": "date"},
    "at": {"type": "string", "title": "At", "format": "date-time"},
    "nick": {"type": "string", "title": "Nick", "minLength": 2, "maxLength": 5}}}


@pytest.mark.parametrize("answer, wrong", [
    ({"email": "ada.example.com"}, "Email: an email address, like ada@example.com."),
    ({"email": "ada@example"}, "Email: an email address, like ada@example.com."),
    ({"site": "example.com"}, "Site: a web address, like https://example.com."),
    ({"born": "28/07/2026"}, "Born: a date, like 2026-07-28."),
    ({"born": "2026-02-30"}, "Born: a date, like 2026-07-28."),
    ({"at": "tomorrow at nine"}, "At: a date and time, like 2026-07-28T09:30:00Z."),
    ({"nick": "A"}, "Nick: at least 2 characters."),
    ({"nick": "Adalovelace"}, "Nick: at most 5 characters."),
])
def test_a_text_that_breaks_its_format_or_length_is_named_before_it_is_sent(answer, wrong):
    assert problems(TEXTS, answer) == [wrong]


def test_texts_that_fit_their_formats_and_lengths_pass():
    assert problems(TEXTS, {"email": "ada@example.com", "site": "https://ada.example/work", "born": "1815-12-10",
                            "at": "2026-07-28T09:30:00+00:00", "nick": "Ada"}) == []


async def test_the_terminal_shows_descriptions_and_titled_choices_and_reads_typed_values(monkeypatch, capsys):
    from course.beyond.answerers import TerminalAnswerer

    typed = iter(["a", "hero-2", "7", "y"])
    prompts = []
    monkeypatch.setattr("builtins.input", lambda prompt="": prompts.append(prompt) or next(typed))
    schema = {"properties": {
        "hero": {"type": "string", "title": "Hero", "oneOf": [{"const": "hero-1", "title": "Superman"},
                                                             {"const": "hero-2", "title": "Wonder Woman"}]},
        "n": {"type": "integer", "title": "Favourite", "description": "Not your PIN"},
        "ok": {"type": "boolean", "title": "OK"}}, "required": ["hero"]}
    answer = await TerminalAnswerer()("Tell us", schema, [])
    assert answer == accept(hero="hero-2", n=7, ok=True)
    assert prompts[1:] == ["Hero (hero-1=Superman/hero-2=Wonder Woman)*: ", "Favourite: ", "OK: "]
    assert "Favourite: Not your PIN" in capsys.readouterr().out
