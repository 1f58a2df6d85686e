"""Finding a table on the LAN: an advertised broker is found (on loopback only), and the
tables it carries are listed from their signed announcements."""

from __future__ import annotations

import asyncio
import subprocess
import sys

import pytest

from broker.discovery import Advertiser, find_brokers
from broker.embedded import EmbeddedBroker
from netplay.codec import Sequencer, encode
from netplay.host import HostSettings
from netplay.host_peer import Host
from netplay.hosts import fingerprint
from netplay.identity import Identity
from netplay.lobby import list_tables, table_from_announcement
from netplay.topics import Topics


@pytest.mark.asyncio
async def test_an_advertised_broker_is_found_and_its_tables_listed() -> None:
    async with EmbeddedBroker("127.0.0.1", 0) as broker, Advertiser(
        broker.port, name="test table", addresses=("127.0.0.1",)
    ):
        settings = HostSettings("lanparty", 3, bots=("greedy",), password="pw")
        async with Host(settings, broker=broker.url):
            found = await find_brokers(2.5, interfaces=("127.0.0.1",))
            assert broker.port in {b.port for b in found}, found
            mine = next(b for b in found if b.port == broker.port)
            assert mine.url == f"mqtt://127.0.0.1:{broker.port}"
            tables = await list_tables(mine.url, timeout=1.5)
    assert [t.table for t in tables] == ["lanparty"]
    table = tables[0]
    assert table.players == 3 and table.free == 2 and table.status == "lobby"
    assert table.password is True
    assert "2 of 3 seats free" in table.line()


def test_forged_and_foreign_announcements_are_not_listed() -> None:
    host, other = Identity.generate(), Identity.generate()
    topics = Topics("real")
    body = {"name": "real", "host": host.key, "players": 2, "seats": [None, None],
            "status": "lobby", "password": False}
    good = encode(host, Sequencer(), "announce", "real", body)
    assert table_from_announcement(topics.announce, good, "mqtt://x:1") is not None
    # Signed by someone else than the host it names.
    forged = encode(other, Sequencer(), "announce", "real", body)
    assert table_from_announcement(topics.announce, forged, "mqtt://x:1") is None
    # Announced on another table's topic.
    assert table_from_announcement(Topics("elsewhere").announce, good, "mqtt://x:1") is None
    assert table_from_announcement(topics.announce, b"garbage", "mqtt://x:1") is None
    assert table_from_announcement(topics.announce, b"", "mqtt://x:1") is None


@pytest.mark.asyncio
async def test_stacks_tables_lists_a_brokers_tables() -> None:
    async with EmbeddedBroker("127.0.0.1", 0) as broker, Host(
        HostSettings("cli-table", 2), broker=broker.url
    ) as host:
        await asyncio.sleep(0.3)
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "stacks.cli", "tables", "--broker", broker.url,
            "--timeout", "1.5", stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        )
        out, err = await asyncio.wait_for(proc.communicate(), 60)
    assert proc.returncode == 0, err.decode()
    assert "2 of 2 seats free" in out.decode()
    # The host's fingerprint, as `stacks join TABLE@FINGERPRINT` takes it.
    assert f"cli-table@{fingerprint(host.identity.key)} on " in out.decode(), out.decode()


def _announcing() -> list[asyncio.Task[object]]:
    """zeroconf's tasks that still have announcements or goodbyes to send."""
    return [t for t in asyncio.all_tasks()
            if "broadcast" in t.get_coro().__qualname__ and not t.done()]  # type: ignore[union-attr]


@pytest.mark.asyncio
async def test_a_stopped_advertiser_has_said_goodbye_and_left_nothing_running() -> None:
    # Stopped at once (a host that quits while its broker is still being announced) and
    # after its announcements: either way the goodbyes are sent before stop returns, and
    # no broadcast is left for the event loop's end to destroy half-way.
    for settle in (False, True):
        advertiser = Advertiser(1883, name="goodbye", addresses=("127.0.0.1",))
        await advertiser.start()
        if settle:
            for _ in range(200):
                if not _announcing():
                    break
                await asyncio.sleep(0.05)
        await advertiser.stop()
        assert _announcing() == []
