"""A mentor opens a learner's feedback file in a real browser (Debian's chromium, driven by Playwright)."""

from __future__ import annotations

import nbformat
import pytest

from course.grading import report
from course.grading.runner import grade_class
from course.grading.sandbox import ROOT, Limits, Sandbox
from tests.test_browser import CHROMIUM_ARGS, require_browser

WRONG = "# EXERCISE l4-refund-limit\ndef refund_limit(name, arguments):\n    return 'allow'\n"


@pytest.mark.browser
def test_a_feedback_file_in_chromium_shows_the_verdict_the_code_and_the_diff(tmp_path):
    chromium = require_browser()
    from playwright.sync_api import expect, sync_playwright

    nb = nbformat.read(ROOT / "notebooks" / "04_permissions.ipynb", as_version=4)
    for cell in nb.cells:
        if cell.source.startswith("# EXERCISE l4-refund-limit"):
            cell.source = WRONG
    nbformat.write(nb, tmp_path / "Anna B.ipynb")
    with Sandbox("process", Limits(wall_seconds=20)) as sandbox:
        class_ = grade_class([tmp_path / "Anna B.ipynb"], sandbox)
    page_file = report.write(class_, tmp_path / "reports")[str(tmp_path / "Anna B.ipynb")]

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, headless=True, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page()
            page.goto(page_file.as_uri())
            section = page.locator("section#l4-refund-limit")
            expect(section.locator(".verdict")).to_have_text("❌ l4-refund-limit: not yet")
            expect(section.locator(".hint")).to_contain_text("should give 'ask'")
            expect(section.locator("pre.code")).to_contain_text("return 'allow'")
            expect(section.locator("pre.diff .add")).to_contain_text(["+    return 'allow'"])
            expect(section.locator("pre.diff .del")).to_contain_text(["-    raise NotImplementedError"])
        finally:
            browser.close()
