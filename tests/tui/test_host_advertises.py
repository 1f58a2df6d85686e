"""A table hosted from the interface is found on the LAN (mDNS on loopback in tests)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support import free_port
from tui.app import make_app
from tui.discovery import find_tables
from tui.launch import Launch

pytestmark = pytest.mark.asyncio


async def test_a_ui_host_announces_its_broker_and_table(stacks_home: Path) -> None:
    port = free_port()
    launch = Launch(role="host", table="uifound", name="Ana", players=2, bots=0,
                    bind="127.0.0.1", port=port, table_open=True)
    app = make_app(launch, profiles=stacks_home)
    async with app.run_test(size=(80, 24)):
        found: list[str] = []

        async def look() -> None:
            found[:] = [t.table for t in await find_tables(2.0)]

        for _ in range(5):
            await look()
            if "uifound" in found:
                break
        assert "uifound" in found
