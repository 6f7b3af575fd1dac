"""Lesson 5's exercise checks see through solutions that only look right (tests/test_exercises.py covers
the reference solutions and the notebook stubs)."""

from __future__ import annotations

import pytest

from course.exercises import check_source

SHIPPING = '''
shipping = MCPServer("shipping", log_level="WARNING")


@shipping.tool()
def shipping_cost(weight_kg: {weight}, country: {country}) -> dict[str, Any]:
    """Shipping cost in EUR for one parcel. Use it before the customer orders."""
    {body}
    return {{"country": country, "cost_eur": {cost}}}
'''
WEIGHT = 'Annotated[float, Field(gt=0, le=30, description="Parcel weight in kg.")]'
COUNTRY = 'Annotated[str, Field(pattern=r"^[A-Z]{2}$", description="Country code, e.g. DE.")]'
COST = "round(4.90 + 1.00 * weight_kg, 2)"


def shipping(weight: str = WEIGHT, country: str = COUNTRY, cost: str = COST, body: str = "pass") -> str:
    return SHIPPING.format(weight=weight, country=country, cost=cost, body=body)


@pytest.mark.parametrize("source, hint", [
    (shipping(weight='Annotated[int, Field(gt=0, le=30, description="kg")]'), "annotate it as float"),
    (shipping(cost="6.9"), "1.2 kg should cost"),  # right for 2 kg only
    (shipping(cost="4.90 + 1.00 * weight_kg"), "Round to cents"),  # 6.1000000000000005
    (shipping(country='Annotated[str, Field(pattern=r"[A-Z]{2}", description="Code.")]'), "use exactly ^[A-Z]{2}$"),
    (shipping(country='Annotated[str, Field(pattern=r".*", description="Code.")]',
              body='import re\n    if not re.fullmatch("[A-Z]{2}", country):\n        raise ToolError("bad code")'),
     "refused by your code, not by the schema"),
], ids=["int-weight", "hard-coded-cost", "unrounded", "unanchored-pattern", "pattern-checked-in-code"])
def test_l5_constrained_tool_check_fails_on_a_solution_that_only_looks_right(source, hint):
    verdict = check_source("l5-constrained-tool", source)
    assert not verdict.passed and hint in verdict.message, str(verdict)


def test_l5_constrained_tool_check_accepts_an_equivalent_pattern():
    verdict = check_source("l5-constrained-tool", shipping(
        country='Annotated[str, Field(pattern=r"^[A-Z][A-Z]$", description="Country code, e.g. DE.")]'))
    assert verdict.passed, str(verdict)


TRACK = '''
carriers = MCPServer("carriers", log_level="WARNING")
TRACKING = {{"DHL123": "in transit", "DPD456": "delivered"}}


@carriers.tool()
def track(number: str) -> dict[str, Any]:
    """Where a parcel is, by its tracking number."""
    if {unknown}:
        {fail}
    return {{"number": number, "status": TRACKING[number]}}
'''
ADVICE = 'f"No parcel {number}. Ask the customer to check the number."'


def track(fail: str, unknown: str = "number not in TRACKING") -> str:
    return TRACK.format(unknown=unknown, fail=fail)


@pytest.mark.parametrize("source, hint", [
    (track(f"raise ValueError({ADVICE})"), "Only the SDK's ToolError"),
    ("from course.tools import ToolError as LessonOneError\n" + track(f"raise LessonOneError({ADVICE})"),
     "course.tools.ToolError included"),
    ("from mcp import MCPError\n" + track(f"raise MCPError(code=-32602, message={ADVICE})"),
     "MCPError is a protocol error"),
    (track('raise ToolError(f"Tracking number {number} was used incorrectly.")'), "not what to do next"),
    (track('raise ToolError(f"Tracking number {number} is unknown to the user.")'), "not what to do next"),
    (track(f"raise ToolError({ADVICE})", unknown='number == "XYZ999"'), "GLS4711"),  # only the first unknown
    (track(f'return {{"error": {ADVICE}}}'), "should be an error result"),
], ids=["value-error", "lesson-1-tool-error", "mcp-error", "no-advice-used", "no-advice-user", "hard-coded-number",
        "error-as-a-value"])
def test_l5_advice_check_fails_on_a_solution_that_only_looks_right(source, hint):
    verdict = check_source("l5-advice", source)
    assert not verdict.passed and hint in verdict.message, str(verdict)
