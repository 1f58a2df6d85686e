"""Two nodes of a community in one process, on SQLite and a memory broker: a node cut off
from the database stops hosting its table before the lease can pass, and the other takes
it over at the next epoch, its player told the table moved and playing on to the end."""

from __future__ import annotations

import asyncio
import re
import time
from pathlib import Path
from typing import Any

import pytest

from netplay.identity import Identity
from netplay.memory import AsyncMemoryBroker
from netplay.player_peer import BotPeer
from netplay.playing.notices import GameEnded, HostMoved, Notice
from ratings.cluster import ClusterDown, ClusterStore
from ratings.store import Store
from sshserver.cluster import ClusterNode
from sshserver.tables import Caller, KeeperSettings, TableKeeper
from tests.support import wait_until_async
from tests.tui.conftest import TIMEOUT

pytestmark = pytest.mark.asyncio

ALICE = Caller("ssh-aaaaaaaaaaaaaaaa", "alice")
LEASE = 2.0
MARGIN = 0.8


def _node(name: str, url: str, broker: AsyncMemoryBroker, tmp: Path) -> ClusterNode:
    async def where() -> AsyncMemoryBroker:
        return broker

    news: list[str] = []
    keeper = TableKeeper(where, settings=KeeperSettings(verify_wait=0.5, linger=0.5),
                         say=news.append,
                         record_path=lambda table, game: tmp / f"{name}-{table}.json")
    store = ClusterStore(url, name, lease=LEASE, fence_margin=MARGIN)
    node = ClusterNode(store, keeper, say=news.append)
    node.news = news  # type: ignore[attr-defined]
    return node


def _cut_off(store: ClusterStore) -> None:
    """Every statement of ``store`` fails, as for a node whose database is out of reach."""
    def down(*args: Any, **kwargs: Any) -> Any:
        raise ClusterDown("the shared database can't be used now: cut off (test)")

    for name in ("heartbeat", "renew", "append", "free", "hand_over", "end", "take_over",
                 "listed", "entries"):
        setattr(store, name, down)


async def test_a_node_cut_off_stops_before_its_lease_ends_and_another_takes_over(
    tmp_path: Path,
) -> None:
    url = f"sqlite:///{tmp_path / 'community.sqlite'}"
    await (await Store.open(url)).close()
    broker = AsyncMemoryBroker()
    a = _node("a", url, broker, tmp_path)
    b = _node("b", url, broker, tmp_path)
    observer = ClusterStore(url, "observer")
    notices: list[Notice] = []
    try:
        await a.start()
        reply = await a.keeper.handle(ALICE, {
            "op": "open", "table": "friday", "players": 2, "bots": 1, "block_window": 0.2,
            "bot_delay": 0.05, "rules": {"win_chips": 3, "win_min_each_colour": 1}})
        assert reply["ok"], reply
        player = BotPeer(Identity.generate(), "friday", broker=broker, think=0.05,
                         name="Ann")

        async def watch() -> None:
            async for notice in player.notices():
                notices.append(notice)

        async with player:
            watching = asyncio.create_task(watch())
            host = a.keeper.tables["friday"].host
            await wait_until_async(lambda: len(host.host.batches) >= 3, "a few batches",
                                   TIMEOUT)
            await b.start()
            _cut_off(a.store)
            await wait_until_async(lambda: host.fenced is not None, "node a to fence",
                                   TIMEOUT)
            row = next(r for r in observer.listed() if r.table == "friday")
            assert row.node == "a" and row.epoch == 1
            assert row.lease_left > 0, "fenced only after its lease could have passed"
            await wait_until_async(lambda: "friday" in b.keeper.tables,
                                   "node b to take the table over", TIMEOUT)
            moved = b.keeper.tables["friday"].host
            assert moved.epoch == 2 and moved.identity.key == host.identity.key
            # What node b resumed is what node a committed: the same batches (node a may
            # have made more it never published, their journal never committed).
            took = next(line for line in b.news if "took over table friday" in line)  # type: ignore[attr-defined]
            at = int(re.search(r"at batch (\d+)", took).group(1))  # type: ignore[union-attr]
            assert 3 <= at <= len(host.host.batches)
            assert [x.hash for x in moved.host.batches[:at]] == \
                [x.hash for x in host.host.batches[:at]]
            await wait_until_async(lambda: any(isinstance(n, GameEnded) for n in notices),
                                   "the game to end under node b", TIMEOUT * 2)
            assert any(isinstance(n, HostMoved) and n.epoch == 2 for n in notices)
            watching.cancel()
        assert "friday" not in a.keeper.tables or a.keeper.tables["friday"].host.fenced
        assert any("took over table friday" in line for line in b.news)  # type: ignore[attr-defined]
        assert any("no longer this server's" in line for line in a.news)  # type: ignore[attr-defined]
    finally:
        started = time.monotonic()
        for node in (b, a):
            await node.keeper.stop()
            await node.stop()
        observer.close()
        assert time.monotonic() - started < TIMEOUT


async def test_broker_options_are_a_list_in_order() -> None:
    from sshserver.options import broker_list

    assert broker_list(None) == ()
    assert broker_list(["mqtt://a:1883,mqtt://b:1883", " mqtt://c:1883 "]) == (
        "mqtt://a:1883", "mqtt://b:1883", "mqtt://c:1883")


async def test_the_first_broker_that_answers_is_used() -> None:
    from sshserver.server import first_answering
    from tests.support import free_port

    server = await asyncio.start_server(lambda r, w: w.close(), "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    dead = f"mqtt://127.0.0.1:{free_port()}"
    live = f"mqtt://127.0.0.1:{port}"
    try:
        assert await first_answering((dead, live), None) == live
        assert await first_answering((dead,), None) == dead
        assert await first_answering((dead,), None, strict=True) is None
    finally:
        server.close()
        await server.wait_closed()


async def test_no_batch_reaches_a_player_before_its_journal_entry_is_committed(
    tmp_path: Path,
) -> None:
    """The shared journal's commit is the host's sync: a batch a player applied is in the
    database already (a node taking over would replay it), however slow the commits."""
    import random

    from engine.config import RulesConfig
    from netplay.host import HostSettings
    from netplay.host_peer import Host
    from ratings.cluster import DbJournal, Lease

    url = f"sqlite:///{tmp_path / 'community.sqlite'}"
    await (await Store.open(url)).close()
    store = ClusterStore(url, "a")
    lease = store.claim("slow", creator="c", creator_name="C")
    assert lease is not None
    committed = 0
    append = store.append

    def slow_append(held: Lease, first: int, lines: list[bytes]) -> None:
        nonlocal committed
        time.sleep(random.uniform(0, 0.02))
        append(held, first, lines)
        committed += sum(b'"t":"batch"' in line for line in lines)

    store.append = slow_append  # type: ignore[method-assign]
    journal = DbJournal.create(store, lease)
    broker = AsyncMemoryBroker()
    settings = HostSettings(table="slow", players=2, bots=("greedy",), block_window=0.2,
                            rules=RulesConfig(win_chips=3, win_min_each_colour=1))
    seen: list[tuple[int, int]] = []
    try:
        async with Host(settings, broker=broker, journal=journal) as host, \
                BotPeer(Identity.generate(), "slow", broker=broker, name="Ann") as player:
            host.epoch = 1
            while not host.host.over:
                seen.append((player.player.applied, committed))
                await asyncio.sleep(0.002)
        assert len(seen) > 50
        assert all(applied <= done for applied, done in seen), \
            [s for s in seen if s[0] > s[1]][:5]
        assert committed >= 5 and max(applied for applied, _ in seen) >= 5
    finally:
        store.close()


async def test_every_node_tells_a_program_which_key_hosts_a_community_table(
    tmp_path: Path,
) -> None:
    """``info`` (and ``open``) give the id of the table's host key, on the node that holds
    it and on the others (from its journal in the shared database): a player's program
    that comes back through another node joins that host at once, with no wait for a
    rogue's announcement."""
    url = f"sqlite:///{tmp_path / 'community.sqlite'}"
    await (await Store.open(url)).close()
    broker = AsyncMemoryBroker()
    a = _node("a", url, broker, tmp_path)
    b = _node("b", url, broker, tmp_path)
    try:
        await a.start()
        await b.start()
        opened = await a.keeper.handle(ALICE, {
            "op": "open", "table": "friday", "players": 2, "bots": 1, "block_window": 0.2,
            "bot_delay": 0.05})
        assert opened["ok"], opened
        key = a.keeper.tables["friday"].host.identity.peer_id
        assert opened["host"] == key
        here = await a.keeper.handle(ALICE, {"op": "info", "table": "friday"})
        there = await b.keeper.handle(ALICE, {"op": "info", "table": "friday"})
        assert "friday" not in b.keeper.tables
        assert (here["held"], here["host"]) == (True, key)
        assert (there["held"], there["host"]) == (True, key)
        nowhere = await b.keeper.handle(ALICE, {"op": "info", "table": "saturday"})
        assert nowhere["held"] is False and "host" not in nowhere
    finally:
        for node in (b, a):
            await node.keeper.stop()
            await node.stop()
