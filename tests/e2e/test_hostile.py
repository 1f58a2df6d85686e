"""A rogue peer on a real broker (a Mosquitto of the test's own) during live games.

One test per attack: floods of heartbeats, resyncs, joins, chat and garbage from a rogue
process (the game finishes and verifies, and no gap between public batches grows past
what the table's own pace explains), and a rogue retained announcement and an empty one
(the host restores its own at once, its players are warned, late spectators and
returning players follow the real host). The late Block, entropy changed after
committing, ``--seed`` and the per-table ACL have their own tests
(tests/netplay/test_block_race.py, test_commit_reveal.py, tests/tui/test_insecure_seed.py,
tests/broker/test_mosquitto_acl.py).
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator
from typing import Any

import pytest
import pytest_asyncio

from broker.embedded import free_port
from broker.mosquitto_runner import MosquittoProcess, find_mosquitto
from netplay.codec import decode
from netplay.host import HostSettings
from netplay.identity import Identity
from netplay.peers import BotPeer, Host, Spectator
from netplay.player import Impostor, Notice, TableClosed
from tui.commands.bench_hostile import hijack_restore_time, live_game, table_settings

SCALE = float(os.environ.get("STACKS_TEST_TIMEOUT_SCALE", "1"))
FLOOD = int(os.environ.get("STACKS_HOSTILE_FLOOD", "3000"))


@pytest_asyncio.fixture
async def mosquitto() -> AsyncIterator[str]:
    try:
        find_mosquitto()
    except RuntimeError:
        pytest.skip("mosquitto is not installed")
    async with MosquittoProcess("127.0.0.1", free_port()) as broker:
        yield broker.url


@pytest.mark.asyncio
@pytest.mark.parametrize("kind", ["heartbeat", "resync", "join", "chat", "garbage"])
async def test_a_flood_does_not_stall_the_table(mosquitto: str, kind: str) -> None:
    run = await live_game(mosquitto, f"flood-{kind}", flood=kind, count=FLOOD,
                          timeout=240 * SCALE)
    assert run.flood_sent == FLOOD
    assert run.verified
    # The table's own pace: a Block window nobody blocks (0.5 s) and the race's settle
    # are its longest waits. Before budgets, 3,000 heartbeats stalled a table for 8 s.
    pace = table_settings("x").block_window + table_settings("x").race_settle
    assert run.max_gap < pace + 1.5 * SCALE, (run.max_gap, sorted(run.gaps)[-5:])


class Listening(BotPeer):
    """A bot peer that keeps every notice it got (the driver hands them on)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.heard: list[Notice] = []

    def _on_notice(self, notice: Notice) -> None:
        self.heard.append(notice)
        super()._on_notice(notice)


async def _hijacked_table(url: str, table: str, payload: bytes | None) -> None:
    settings = HostSettings(table, 3, bots=("greedy",), block_window=0.5, bot_delay=0.15)
    async with Host(settings, broker=url) as host:
        players = [Listening(Identity.generate(), table, broker=url, name=f"p{i}")
                   for i in range(2)]
        for player in players:
            await player.__aenter__()
        try:
            async with asyncio.timeout(30 * SCALE):
                while len(host.host.batches) < 5:
                    await asyncio.sleep(0.02)
            seconds, restored = await hijack_restore_time(url, table, rogue_payload=payload)
            assert seconds < 1.0 * SCALE
            assert decode(restored).sender == host.identity.key
            # The players were told, and nobody took the empty payload for a close.
            async with asyncio.timeout(10 * SCALE):
                while not all(any(isinstance(n, Impostor) for n in p.heard) for p in players):
                    await asyncio.sleep(0.02)
            for player in players:
                assert not any(isinstance(n, TableClosed) for n in player.heard)
            # A late spectator and a returning player (a new process, same key) follow the
            # real host.
            late = Spectator(Identity.generate(), table, "late", broker=url)
            await late.__aenter__()
            gone = players[0]
            seat = gone.seat
            await gone.close()
            back = Listening(gone.identity, table, broker=url, name="p0")
            await back.__aenter__()
            players[0] = back
            await asyncio.wait_for(host.finished(verify_wait=10), 180 * SCALE)
            await asyncio.wait_for(late.verified.wait(), 30 * SCALE)
            assert late.player.host_key == host.identity.key
            assert late.player.verdict is not None and late.player.verdict.ok
            assert back.player.host_key == host.identity.key and back.player.seat == seat
            await late.close()
        finally:
            for player in players:
                await player.close()
        assert host.host.all_seats_verified()
        assert all(v["ok"] for v in host.host.verdicts.values()), host.host.verdicts


@pytest.mark.asyncio
async def test_a_rogue_retained_announcement_is_restored_and_players_warned(
    mosquitto: str,
) -> None:
    await _hijacked_table(mosquitto, "hijack", None)


@pytest.mark.asyncio
async def test_an_empty_retained_announcement_closes_nothing(mosquitto: str) -> None:
    await _hijacked_table(mosquitto, "emptied", b"")


KEYS = int(os.environ.get("STACKS_HOSTILE_KEYS", "300"))


async def _many_keys(url: str, table: str, keys: int) -> None:
    run = await live_game(url, table, flood="keys", count=3 * keys, timeout=240 * SCALE)
    assert run.flood_sent == 3 * keys
    assert run.verified
    pace = table_settings("x").block_window + table_settings("x").race_settle
    assert run.max_gap < pace + 1.5 * SCALE, (run.max_gap, sorted(run.gaps)[-5:])


@pytest.mark.asyncio
async def test_a_flood_from_many_fresh_keys_does_not_stall_the_table(mosquitto: str) -> None:
    """Budgets per key alone would let each of a rogue's fresh keys join as a spectator and
    cost the host a history or a snapshot: every spectator and stranger shares one."""
    await _many_keys(mosquitto, "many-keys", KEYS)
