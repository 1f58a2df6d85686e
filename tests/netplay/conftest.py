"""Fixtures the netplay tests share."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
import pytest_asyncio

from broker.mosquitto_runner import MosquittoProcess, find_mosquitto
from tests.broker.conftest import LOOPBACK
from tests.support import free_port


@pytest_asyncio.fixture
async def mosquitto() -> AsyncIterator[int]:
    """The port of a Mosquitto of the test's own on loopback (skipped where none is
    installed)."""
    try:
        find_mosquitto()
    except RuntimeError:
        pytest.skip("mosquitto is not installed")
    async with MosquittoProcess(LOOPBACK, free_port()) as broker:
        yield broker.port
