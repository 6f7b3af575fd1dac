"""A mentor opens the class overview and a learner's page in a real browser (Debian's chromium, driven by
Playwright)."""

from __future__ import annotations

from pathlib import Path

import pytest

from course.grading import report
from course.grading.runner import Grade, Learner
from tests.test_browser import CHROMIUM_ARGS, require_browser


@pytest.mark.browser
def test_the_overview_shows_each_learners_statuses_and_reasons_and_links_to_their_page(tmp_path):
    chromium = require_browser()
    from playwright.sync_api import expect, sync_playwright

    anna = Learner("Anna B", Path("Anna B.ipynb"), 4, results=[
        Grade("l4-guard", "pass", "ok", "def guard(): ..."),
        Grade("l4-log", "review", "passed", "import os" + " " * 300 + "x = 1",
                reasons=["line 1: 310 characters long (more than 200; the rest is hidden off screen)"])])
    ben = Learner("Ben", Path("Ben.ipynb"), 4, results=[Grade("l4-guard", "not yet", "no", "x", seed=1234),
                                                        Grade("l4-log", "no cell", "")])
    cleo = Learner("Cleo", Path("Cleo.txt"), problem="unreadable: not a notebook")
    report.write([anna, ben, cleo], tmp_path, copies=False)
    report.add_feedback(tmp_path, "Anna B", "l4-log", "Mia", comment="please split that line")
    report.write([anna, ben, cleo], tmp_path, copies=False)

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, headless=True, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page()
            page.goto((tmp_path / "index.html").as_uri())
            rows = page.locator("table.overview tr")
            expect(rows).to_have_count(4)
            expect(rows.nth(1).locator("td")).to_contain_text(["Anna B", "pass", "review", "1/2", "310 characters"])
            expect(rows.nth(2).locator("td")).to_contain_text(["Ben", "not yet", "no cell", "0/2"])
            expect(rows.nth(3).locator("td.unreadable").first).to_have_text("unreadable")
            rows.nth(1).locator("a").click()
            expect(page).to_have_title("Feedback: Anna B")
            expect(page.locator("ul.reasons li")).to_contain_text(["l4-log: line 1: 310 characters long"])
            expect(page.locator("section#l4-log .comment")).to_have_text("Mentor (Mia): please split that line")
            expect(page.locator("section#l4-log pre.code .wrapped")).to_have_count(3)
            page.go_back()
            rows.nth(2).locator("a").click()
            expect(page.locator("section#l4-guard .seed")).to_contain_text('check("l4-guard", seed=1234)')
        finally:
            browser.close()
