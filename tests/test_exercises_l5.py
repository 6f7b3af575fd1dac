"""Lesson 5's exercise checks accept correct solutions written differently and see through ones that only
look right (tests/test_exercises_lessons.py and tests/test_exercises.py cover what every lesson shares: the
reference solutions, the notebook, its stubs)."""

from __future__ import annotations

import pytest

from exercise_checks import fails_with, lying, passes, reviewed

TRIES = 1  # one draw per candidate, as these tests always ran (the checks draw new cases each run)


# -- l5-constrained-tool ---------------------------------------------------------------------
SHIPPING = '''
shipping = MCPServer("shipping", log_level="WARNING")


@shipping.tool({hints})
def shipping_cost(weight_kg: {weight}, country: {country}) -> dict[str, Any]:
    """Shipping cost in EUR for one parcel. Use it before the customer orders."""
    {body}
    return {{"country": country, "cost_eur": {cost}}}
'''
WEIGHT = 'Annotated[float, Field(gt=0, le=30, description="Parcel weight in kg.")]'
COUNTRY = 'Annotated[str, Field(pattern=r"^[A-Z]{2}$", description="Country code, e.g. DE.")]'
COST = "round(4.90 + 1.00 * weight_kg, 2)"
READ_ONLY = "annotations=ToolAnnotations(read_only_hint=True)"


def shipping(weight=WEIGHT, country=COUNTRY, cost=COST, body="pass", hints=READ_ONLY) -> str:
    return SHIPPING.format(weight=weight, country=country, cost=cost, body=body, hints=hints)


@pytest.mark.parametrize("source", [
    shipping(country='Annotated[str, Field(pattern=r"^[A-Z][A-Z]$", description="Country code, e.g. DE.")]'),
    shipping(country='Annotated[str, Field(min_length=2, max_length=2, pattern="^[A-Z]+$", description="Code.")]',
             weight='Annotated[float, Field(gt=0, description="kg"), Field(le=30)]',
             cost='float(Decimal("4.90") + Decimal(str(weight_kg)))', body="from decimal import Decimal",
             hints="annotations=ToolAnnotations(read_only_hint=True, idempotent_hint=True, open_world_hint=False)"),
], ids=["two-classes", "lengths-decimal-and-more-hints"])
def test_l5_constrained_tool_check_accepts_correct_solutions_written_differently(source):
    passes("l5-constrained-tool", source, tries=TRIES)


@pytest.mark.parametrize("source, hint", [
    (shipping(weight='Annotated[int, Field(gt=0, le=30, description="kg")]'), "annotate it as float"),
    (shipping(cost="6.9"), "Compute it from weight_kg"),  # right for the example only
    (shipping(cost="{2: 6.9}.get(weight_kg, 6.9)"), "a weight you have not seen"),  # a lookup table
    (shipping(cost="4.90 + 1.00 * weight_kg"), "Round to cents"),  # 6.1000000000000005
    (shipping(weight='Annotated[float, Field(ge=0, le=30, description="kg")]'), "not ge=0"),  # off by one
    (shipping(weight='Annotated[float, Field(gt=0, lt=30, description="kg")]'), "'at most 30' includes 30"),
    (shipping(country='Annotated[str, Field(pattern=r"[A-Z]{2}", description="Code.")]'), "unless anchored"),
    ("from mcp.server.mcpserver.exceptions import ToolError\n" + shipping(
        country='Annotated[str, Field(pattern=r".*", description="Code.")]',
        body='import re\n    if not re.fullmatch("[A-Z]{2}", country):\n        raise ToolError("bad code")'),
     "refused by your code, not by the schema"),
    (shipping(hints=""), "read_only_hint=True"),
    (shipping(hints="annotations=ToolAnnotations(destructive_hint=False)"), "read_only_hint=True"),
], ids=["int-weight", "hard-coded-cost", "lookup-table", "unrounded", "zero-allowed", "thirty-refused",
        "unanchored-pattern", "pattern-checked-in-code", "no-annotations", "not-read-only"])
def test_l5_constrained_tool_check_fails_on_a_solution_that_only_looks_right(source, hint):
    fails_with("l5-constrained-tool", source, hint, tries=TRIES)


# -- l5-annotations ---------------------------------------------------------------------------
PARCELS = '''
parcels = MCPServer("parcels", log_level="WARNING")
PARCELS = {{"P1001": {{"status": "packed", "notes": []}}}}


@parcels.tool({status})
def parcel_status(number: str) -> str:
    """Where a parcel is."""
    return PARCELS[number]["status"]


@parcels.tool({note})
def add_delivery_note(number: str, note: str) -> str:
    """Add a note for the driver."""
    PARCELS[number]["notes"].append(note)
    return "ok"


@parcels.tool({cancel})
def cancel_parcel(number: str) -> str:
    """Cancel a parcel."""
    PARCELS[number]["status"] = "cancelled"
    return "ok"
'''


def hints(**kwargs: str) -> str:
    return f"annotations=ToolAnnotations({', '.join(f'{k}={v}' for k, v in kwargs.items())})"


READS = hints(read_only_hint="True")
ADDS = hints(read_only_hint="False", destructive_hint="False")
DESTROYS = hints(read_only_hint="False", destructive_hint="True")


def parcels(status: str = READS, note: str = ADDS, cancel: str = DESTROYS) -> str:
    return PARCELS.format(status=status, note=note, cancel=cancel)


@pytest.mark.parametrize("source", [
    parcels(cancel=hints(read_only_hint="False")),  # MCP's default: a writing tool may be destructive
    "WRITE = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=False)\n" + parcels(
        status=hints(read_only_hint="True", idempotent_hint="True"), note="annotations=WRITE",
        cancel=hints(read_only_hint="False", destructive_hint="True", idempotent_hint="True")),
    parcels(note=hints(destructive_hint="False")),  # MCP's default: a tool that does not say it reads may write
], ids=["destructive-by-default", "shared-annotations-and-idempotence", "writes-by-default"])
def test_l5_annotations_check_accepts_correct_solutions_written_differently(source):
    passes("l5-annotations", source, tries=TRIES)


@pytest.mark.parametrize("source, hint", [
    (parcels(note=hints(read_only_hint="False")), "MCP assumes a writing tool may be destructive"),
    (parcels(cancel=hints(read_only_hint="False", destructive_hint="False")), "it is destructive"),
    (parcels(note=hints(read_only_hint="True"), cancel=hints(read_only_hint="True")),
     "add_delivery_note changes a parcel (it adds a note), yet it says read_only_hint=True"),
    (parcels(status=hints(read_only_hint="False")), "parcel_status only reads"),
    (parcels(cancel=hints(read_only_hint="True", destructive_hint="True")), "yet it says read_only_hint=True"),
    (parcels().replace('PARCELS[number]["notes"].append(note)', "pass"), "no longer adds the note"),
], ids=["adds-but-default-destructive", "cancel-not-destructive", "writers-read-only", "reader-not-read-only",
        "cancel-read-only", "body-changed"])
def test_l5_annotations_check_fails_on_hints_that_mislead_a_host(source, hint):
    fails_with("l5-annotations", source, hint, tries=TRIES)


# -- l5-advice ----------------------------------------------------------------------------------
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


@pytest.mark.parametrize("source", [
    track('raise ToolError(f"Tracking number {number} is unknown. Please confirm the number with the customer.")'),
    track('raise ToolError(f"{number}: not found. Double-check it against the shipping email.")'),
    track('raise ToolError(f"We have no parcel {number}; make sure it was typed correctly.")',
          unknown="TRACKING.get(number) is None"),
], ids=["please-confirm", "double-check", "make-sure"])
def test_l5_advice_check_accepts_any_actionable_advice(source):
    passes("l5-advice", source, tries=TRIES)


@pytest.mark.parametrize("source, hint", [
    (track(f"raise ValueError({ADVICE})"), "Only the SDK's ToolError"),
    ("from course.tools import ToolFailure as LessonOneError\n" + track(f"raise LessonOneError({ADVICE})"),
     "course.tools.ToolFailure included"),
    ("from mcp import MCPError\n" + track(f"raise MCPError(code=-32602, message={ADVICE})"),
     "MCPError is a protocol error"),
    (track('raise ToolError(f"Tracking number {number} was used incorrectly.")'), "not what to do next"),
    (track('raise ToolError(f"Tracking number {number} is unknown to the user.")'), "not what to do next"),
    (track('raise ToolError("No such parcel. Ask the customer to check the number.")'), "does not name it"),
    (track(f"raise ToolError({ADVICE})", unknown='number == "XYZ999"'), "an unknown number other than XYZ999"),
    (track(f"raise ToolError({ADVICE})", unknown='number not in ("DHL123", "DPD456")'),
     "in TRACKING but not in the example"),  # a lookup table of the visible numbers
    (track(f'return {{"error": {ADVICE}}}'), "should be an error result"),
], ids=["value-error", "lesson-1-tool-failure", "mcp-error", "no-advice-used", "no-advice-user", "number-not-named",
        "hard-coded-unknown", "hard-coded-known", "error-as-a-value"])
def test_l5_advice_check_fails_on_a_solution_that_only_looks_right(source, hint):
    fails_with("l5-advice", source, hint, tries=TRIES)


# -- l5-trim ----------------------------------------------------------------------------------
@pytest.mark.parametrize("source", [
    '''
from itertools import islice


def trim(raw, n):
    results = []
    for r in islice(raw["results"], n):
        results.append({"title": r["title"], "url": r["url"], "snippet": r["snippet"][:200]})
    return {"results": results}
''',
    '''
import copy

KEEP = ("title", "url", "snippet")


def trim(raw, n):
    kept = [{k: v for k, v in copy.deepcopy(r).items() if k in KEEP} for r in raw["results"][:max(n, 0)]]
    for r in kept:
        r["snippet"] = r["snippet"] if len(r["snippet"]) <= 200 else r["snippet"][:200]
    return dict(results=kept)
''',
], ids=["loop-and-islice", "deepcopy-then-filter"])
def test_l5_trim_check_accepts_correct_solutions_written_differently(source):
    passes("l5-trim", source, tries=TRIES)


MUTATES = '''
def trim(raw, n):
    for r in raw["results"]:
        for k in ("rank", "score", "favicon", "tracking_id"):
            r.pop(k)
        r["snippet"] = r["snippet"][:200]
    return {"results": raw["results"][:n]}
'''
TRIM = '''
def trim(raw, n):
    return {{"results": [{result} for r in raw["results"]{cut}]}}
'''
KEPT = '{"title": r["title"], "url": r["url"], "snippet": r["snippet"][:200]}'


@pytest.mark.parametrize("source, hint", [
    (TRIM.format(result=KEPT, cut="[:n - 1]"), "keep the first n"),  # off by one
    (TRIM.format(result=KEPT, cut="[:2]"), "keep the first n"),  # only the example's n
    (TRIM.format(result='{"title": r["title"], "url": r["url"], "snippet": r["snippet"]}', cut="[:n]"),
     "at most 200 characters"),
    (TRIM.format(result="r", cut="[:n]"), "exactly title, url and snippet"),
    (MUTATES, "changed the API's answer"),
    ('def trim(raw, n):\n    return {"results": [' + KEPT + ' for r in raw["results"][:n]], "took_ms": raw["took_ms"]}',
     "only 'results'"),
], ids=["off-by-one", "example-only", "snippet-uncut", "all-fields", "mutates-input", "extra-keys"])
def test_l5_trim_check_fails_on_a_solution_that_only_looks_right(source, hint):
    fails_with("l5-trim", source, hint, tries=TRIES)


# -- l5-budget ----------------------------------------------------------------------------------
BUDGET = '''
import asyncio


def build_search_server(provider, credits):
    server = MCPServer("search", log_level="WARNING")
    lock = asyncio.Lock()
    spent = 0

    @server.tool()
    async def web_search(query: str) -> dict[str, Any]:
        """Search the web. Costs 1 credit."""
        nonlocal spent
{body}
        return {{"results": hits}}

    return server
'''
RESERVE = '''
        async with lock:
            if spent >= credits:
                raise ToolError("The budget is spent. Answer from what you have.")
            spent += 1'''
REQUEST = '''
        try:
            hits = await provider.search(query)
        except ConnectionError:
            spent -= 1
            raise ToolError("Cannot reach the API. Try again later.")
        except TimeoutError:
            raise ToolError("No answer in time. Answer without web results.")'''


def budget(body: str = RESERVE + REQUEST) -> str:
    return BUDGET.format(body=body)


@pytest.mark.parametrize("source", [
    budget(),
    '''
import asyncio


class Budget:
    def __init__(self, total):
        self.total, self.spent, self.lock = total, 0, asyncio.Lock()

    async def reserve(self):
        async with self.lock:
            if self.spent == self.total:
                raise ToolError(f"All {self.total} credits are used: stop searching and answer now.")
            self.spent += 1


def build_search_server(provider, credits):
    server = MCPServer("search", log_level="WARNING")
    budget = Budget(credits)

    @server.tool()
    async def web_search(query: str) -> dict[str, Any]:
        """Search the web. Costs 1 credit."""
        await budget.reserve()
        try:
            return {"results": await provider.search(query), "left": budget.total - budget.spent}
        except Exception as e:
            if isinstance(e, ConnectionError):
                budget.spent -= 1
            raise ToolError(f"The search failed ({type(e).__name__}); try again later.") from None

    return server
''',
    # No lock: asyncio switches tasks only at an await, and there is none between check and spend.
    budget('''
        if spent >= credits:
            raise ToolError("Budget spent: answer from what you have.")
        spent += 1''' + REQUEST),
], ids=["closure-and-lock", "budget-class", "reserve-without-await"])
def test_l5_budget_check_accepts_correct_solutions_written_differently(source):
    passes("l5-budget", source, tries=TRIES)


@pytest.mark.parametrize("source, hint", [
    (budget('''
        if spent >= credits:
            raise ToolError("Budget spent: answer from what you have.")
        hits = await provider.search(query)
        spent += 1'''), "parallel calls overspent"),  # check, await, then spend: no reservation, no lock
    (budget(RESERVE + REQUEST.replace("except TimeoutError:", "except TimeoutError:\n            spent -= 1")),
     "keep the reservation"),  # refund on timeout
    (budget(RESERVE + '''
        try:
            hits = await provider.search(query)
        except BaseException:
            spent -= 1
            raise ToolError("The search failed. Try again later.")'''),
     "keep the reservation"),  # refund on any failure
    (budget(RESERVE + REQUEST.replace("spent -= 1\n", "")), "give its credit back"),  # no refund when never sent
    (budget('''
        async with lock:
            if spent >= credits:
                raise ToolError("The budget is spent. Answer from what you have.")
            spent += 1
            hits = await provider.search(query)'''), "one at a time"),  # the lock held over the request
    ("SPENT = [0]\n" + budget('''
        async with lock:
            if SPENT[0] >= credits:
                raise ToolError("The budget is spent. Answer from what you have.")
            SPENT[0] += 1
        hits = await provider.search(query)'''), "a budget of its own"),  # one budget for every session
    (budget(RESERVE.replace("credits:", "5:") + REQUEST), "use the `credits` you are given"),  # a constant
    (budget(RESERVE + REQUEST + "\n        spent -= 1"), "even one at a time"),  # a refund after success too
    (budget(RESERVE.replace("ToolError", "ValueError") + REQUEST), "raise the SDK's ToolError"),
    (budget(RESERVE.replace("The budget is spent. Answer from what you have.", "Budget exhausted.") + REQUEST),
     "not what to do next"),
], ids=["no-lock-check-await-spend", "refund-on-timeout", "refund-on-any-failure", "no-refund-when-never-sent",
        "lock-held-over-request", "global-budget", "hard-coded-budget", "refund-after-success", "value-error",
        "no-advice"])
def test_l5_budget_check_fails_on_a_budget_that_only_looks_right(source, hint):
    fails_with("l5-budget", source, hint, tries=TRIES)


# -- answers that lie: equal to anything, so a check that trusted `==` passed them ----------------------------
# What a server returns reaches the checks through the SDK's client, as JSON: only l5-trim's answer comes straight.
def test_a_trim_whose_snippet_lies_about_equality_goes_to_review_by_the_graders_vocabulary_rule():
    reviewed("l5-trim", lying("l5-trim", '"snippet": r["snippet"][:200]', '"snippet": _Any(r["snippet"])'))


def test_what_a_server_returns_reaches_the_check_as_json_so_a_lying_number_is_just_a_number():
    fails_with("l5-constrained-tool", lying("l5-constrained-tool", '"cost_eur": round(4.90 + 1.00 * weight_kg, 2)',
                                            '"cost_eur": _AnyFloat(0.5)'), "is wrong (0.5)")
