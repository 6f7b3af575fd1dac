"""Fixtures shared by the tests."""

import pytest


@pytest.fixture
def anyio_backend():
    # MCP tests use anyio's pytest plugin (`pytestmark = pytest.mark.anyio`), on asyncio only.
    return "asyncio"
