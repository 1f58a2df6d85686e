"""Games left before their end, at tables the ssh server holds (in process, on a memory
broker): a player who leaves a running game for the stand-in to finish is counted once a
game; one who plays to the end is not; above ``--max-abandon-rate`` the server's tables
refuse them a seat in words."""

from __future__ import annotations

import asyncio
import dataclasses
from pathlib import Path
from typing import Any

import pytest

from netplay.hosts import fingerprint
from netplay.identity import Identity
from netplay.memory import AsyncMemoryBroker
from netplay.player_peer import BotPeer
from netplay.playing.notices import Refused
from ratings.moderation import ModerationStore
from ratings.store import Store
from sshserver import tables as tables_module
from sshserver.moderation import Moderation, ModerationSettings
from sshserver.status import Status
from sshserver.tables import Caller, KeeperSettings, TableKeeper
from tests.support import wait_until_async
from tests.tui.conftest import TIMEOUT

pytestmark = pytest.mark.asyncio

ALICE = Caller("ssh-aaaaaaaaaaaaaaaa", "alice")


class _Archive:
    def __init__(self, store: Store) -> None:
        self.store = store

    async def store_handle(self) -> Store:
        return self.store


class _Server:
    """What moderation uses of the server: its tables and database, no sessions."""

    def __init__(self, store: Store, keeper: TableKeeper) -> None:
        self.sessions: list[Any] = []
        self.tables = keeper
        self.archive = _Archive(store)
        self.status = Status()


@pytest.fixture
def quick_standin(monkeypatch: pytest.MonkeyPatch) -> None:
    """A player who left is away at once and the stand-in plays their next turn soon."""
    made = tables_module.host_settings

    def host_settings(request: dict[str, Any]) -> Any:
        return dataclasses.replace(made(request), grace=0.2, away_after=0.5,
                                   idle_away_after=0.5)

    monkeypatch.setattr(tables_module, "host_settings", host_settings)


async def _game(keeper: TableKeeper, broker: AsyncMemoryBroker, table: str, alice: Identity,
                *, leave: bool) -> None:
    """A 2-seat game of alice against the table's bot; she leaves it after a few batches
    (``leave``) or plays it to the end."""
    await keeper.handle(ALICE, {"op": "open", "table": table, "players": 2, "bots": 1,
                                "block_window": 0.2, "bot_delay": 0})
    held = keeper.tables[table]
    async with BotPeer(alice, table, broker=broker, name="alice", think=0.0) as peer:
        await wait_until_async(lambda: peer.seat == 0, "alice's seat")
        if leave:
            await wait_until_async(lambda: len(held.host.host.batches) >= 4, "a few batches")
        else:
            await asyncio.wait_for(peer.ended.wait(), 20 * TIMEOUT)
    await asyncio.wait_for(held.ended.wait(), 20 * TIMEOUT)
    assert held.why == "its game is over"


async def test_games_left_for_the_stand_in_count_and_too_many_close_the_tables(
    tmp_path: Path, quick_standin: None,
) -> None:
    broker = AsyncMemoryBroker()

    async def where() -> AsyncMemoryBroker:
        return broker

    keeper = TableKeeper(where, settings=KeeperSettings(linger=0.0, verify_wait=0.5),
                         record_path=lambda table, game: tmp_path / f"{table}.json")
    store = await Store.open(f"sqlite:///{tmp_path / 'serve.sqlite'}")
    moderation = Moderation(_Server(store, keeper),  # type: ignore[arg-type]
                            ModerationSettings(max_abandon_rate=0.5, min_games=2, poll=0.1))
    keeper.admit, keeper.left_early = moderation.admit, moderation.left_early
    alice = Identity.generate()
    mine = fingerprint(alice.key)
    mods = ModerationStore(store)
    try:
        await moderation.start()
        await _game(keeper, broker, "played", alice, leave=False)
        assert (await mods.abandonment([mine]))[mine].left == 0  # played to the end
        await _game(keeper, broker, "first", alice, leave=True)
        await _game(keeper, broker, "second", alice, leave=True)
        assert (await mods.abandonment([mine]))[mine].left == 2

        # Two of her games left early, more than half: the next table refuses her a seat.
        await wait_until_async(lambda: moderation.admit(alice.key) is not None,
                               "the count to reach the server's policy")
        await keeper.handle(ALICE, {"op": "open", "table": "third", "players": 2,
                                    "bots": 1, "block_window": 0.2, "bot_delay": 0})
        async with BotPeer(alice, "third", broker=broker, name="alice") as peer:
            refused = None
            async for notice in peer.notices():
                if isinstance(notice, Refused):
                    refused = notice.reason
                    break
        assert refused is not None and "leave games before the end" in refused, refused
        assert "left 2 of 2 games" in refused
        assert keeper.tables["third"].host.host.seats[0] is None
    finally:
        await keeper.stop()
        await moderation.stop()
        await store.close()


async def test_a_moderator_closes_a_table_even_mid_game(tmp_path: Path) -> None:
    broker = AsyncMemoryBroker()

    async def where() -> AsyncMemoryBroker:
        return broker

    keeper = TableKeeper(where, settings=KeeperSettings(journals=tmp_path / "journals"))
    try:
        await keeper.handle(ALICE, {"op": "open", "table": "loud", "players": 2, "bots": 1,
                                    "block_window": 0.2, "bot_delay": 0})
        held = keeper.tables["loud"]
        async with BotPeer(Identity.generate(), "loud", broker=broker, name="alice"):
            await wait_until_async(lambda: held.host.host.game is not None, "the game")
            assert await keeper.close_for("loud", "closed by a moderator: spam")
        assert held.ended.is_set() and held.why == "closed by a moderator: spam"
        assert "loud" not in keeper.tables
        assert not await keeper.close_for("loud", "again")
        # Closed for good: a restarted server does not bring it back.
        again = TableKeeper(where, settings=KeeperSettings(journals=tmp_path / "journals"))
        assert await again.resume_all() == []
    finally:
        await keeper.stop()
