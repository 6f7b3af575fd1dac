"""Lesson 9's elicitation form in a real browser: JupyterLab on 127.0.0.1 and Debian's chromium via Playwright
(the helpers of tests/test_browser.py). The server asks which order; the test presses Send on an empty form
(nothing is sent: the form names the required field), fills it in and sends; the next question is declined.
Then the server's own record says one refund, for the order picked in the form."""

from __future__ import annotations

import nbformat
import pytest

from tests.test_browser import WAIT_MS, lab, lab_page, run_all  # noqa: F401 -- lab: the fixture

SETUP = """\
from course.beyond import Desk, choose_answerer
from course.beyond.shop import build_server

server = build_server()
desk = await Desk(server, choose_answerer(timeout=120)).__aenter__()
print("asks with a form")
"""

ASK = """\
first = await desk.execute("issue_refund", '{"email": "leo@example.com", "amount": 80}')
print("first:", first)
second = await desk.execute("issue_refund", '{"email": "leo@example.com", "amount": 15}')
print("second:", second)
print("refunds:", server.refunds, "| outcomes:", [a.outcome for a in desk.asked])
"""


def form_notebook(_store) -> list:
    return [nbformat.v4.new_code_cell(SETUP), nbformat.v4.new_code_cell(ASK)]


@pytest.mark.browser
def test_the_form_is_filled_checked_sent_and_the_next_question_declined(lab, tmp_path):
    from playwright.sync_api import expect

    with lab_page(lab, tmp_path, "form.ipynb", form_notebook) as (page, _kernels, _store):
        run_all(page)
        send = page.get_by_role("button", name="Send", disabled=False)
        expect(send).to_be_visible(timeout=WAIT_MS)
        expect(page.get_by_text("leo@example.com has 2 orders: which one should get 80.00 EUR back?")).to_be_visible()
        expect(page.get_by_text("Refund 80.00 EUR (over 50)?")).to_be_visible()  # each field's description

        send.click()  # nothing chosen yet: the form says what is missing and stays open
        expect(page.get_by_text("Order Id: required.")).to_be_visible(timeout=WAIT_MS)

        page.locator(".widget-dropdown select").first.select_option("A1004")
        page.locator(".widget-checkbox input[type=checkbox]").first.check()
        page.locator(".widget-text input").first.fill("Sorry for the wait")
        send.click()
        expect(page.get_by_text("first: Refunded 80.00 EUR to A1004.")).to_be_visible(timeout=WAIT_MS)

        page.get_by_role("button", name="Decline", disabled=False).click()
        expect(page.get_by_text("second: No refund: the human chose decline.")).to_be_visible(timeout=WAIT_MS)
        expect(page.get_by_text("refunds: [('A1004', 80.0)] | outcomes: ['accepted', 'decline']")).to_be_visible()
        assert page.get_by_role("button", name="Send", disabled=False).count() == 0
