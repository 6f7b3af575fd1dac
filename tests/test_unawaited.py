"""A check that runs a learner's async code which forgets an `await` says so in its verdict and closes the
coroutine it was handed: left alive in the failure's traceback, it would warn "coroutine ... was never awaited"
whenever Python collects it, inside some later, unrelated test or cell (CI saw `ToolCalls.execute` and
`Client.list_tools` ones, under `filterwarnings = error` a failure of whatever ran then)."""

from __future__ import annotations

import gc
import warnings

import pytest

from exercise_checks import fails_with, solution

REFERENCE_AGENT = solution("l6-agent")
REFERENCE_LIST = solution("l6-list-tools")


@pytest.mark.parametrize("id, source, hint", [
    ("l6-agent", REFERENCE_AGENT.replace("text = await execute(", "text = execute("), "execute is async"),
    ("l6-list-tools", REFERENCE_LIST.replace("async def", "def").replace("await ", ""), "client.list_tools is async"),
], ids=["execute-not-awaited", "list-tools-not-awaited"])
def test_a_forgotten_await_is_the_verdict_and_leaves_no_coroutine_to_warn_later(id, source, hint):
    assert source not in (REFERENCE_AGENT, REFERENCE_LIST)
    gc.collect()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fails_with(id, source, hint, tries=2)
        gc.collect()  # what would otherwise happen in whatever test runs next
    assert [str(w.message) for w in caught if "never awaited" in str(w.message)] == []
