"""A node whose broker does not reach the community (it hears none of the others over it)
hands its tables to the nodes that meet there and tells its ssh players to come back; a
node alone never gives up its tables; beacons over a real MQTT broker are heard."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest

from netplay.memory import AsyncMemoryBroker
from ratings.cluster import ClusterStore, Peer
from ratings.store import Store
from sshserver.beacon import MqttBeacon, reaches_community
from sshserver.cluster import ClusterNode
from sshserver.tables import Caller, KeeperSettings, TableKeeper
from tests.support import wait_until_async
from tests.tui.conftest import TIMEOUT

pytestmark = pytest.mark.asyncio

ALICE = Caller("ssh-aaaaaaaaaaaaaaaa", "alice")


def up(name: str, hears: set[str] | None = None, reach: int = 1) -> Peer:
    return Peer(name, "up", frozenset(hears or ()), reach)


async def test_what_a_node_concludes_from_what_it_hears() -> None:
    # Alone (no other live node): it keeps its tables, hearing nobody.
    assert reaches_community(set(), 1, [])
    assert reaches_community(set(), 0, [Peer("b", "nobroker", frozenset(), 3)])
    # It hears one of the others: its broker reaches the community.
    assert reaches_community({"b"}, 1, [up("b", {"a"}), up("c", {"b"})])
    # Three nodes, it hears none while the others hear each other: cut off.
    assert not reaches_community(set(), 3, [up("b", {"c"}), up("c", {"b"})])
    # ...and the others, hearing each other, keep theirs.
    assert reaches_community({"c"}, 2, [up("a", set(), 1), up("c", {"b"})])
    # Two nodes split: the side that reaches fewer of the broker cluster's URLs gives up,
    # the other keeps; a tie moves nothing.
    assert not reaches_community(set(), 1, [up("b", set(), 2)])
    assert reaches_community(set(), 2, [up("a", set(), 1)])
    assert reaches_community(set(), 2, [up("b", set(), 2)])
    # A node found cut off comes back by hearing one of them (or with none up), not by
    # reaching more URLs: its link answers TCP before its broker node meets the others.
    assert not reaches_community(set(), 3, [up("b", set(), 2)], cut=True)
    assert not reaches_community(set(), 3, [up("b", {"c"}, 2)], cut=True)
    assert reaches_community({"b"}, 1, [up("b", set(), 2)], cut=True)
    assert reaches_community(set(), 1, [Peer("b", "nobroker", frozenset(), 3)], cut=True)


class Ear:
    """A node's hearing, set by the test."""

    def __init__(self, reach: int = 1) -> None:
        self.hears: set[str] = set()
        self.reach_now = reach

    def heard(self) -> set[str]:
        return set(self.hears)

    def reach(self) -> int:
        return self.reach_now

    def settled(self) -> bool:
        return True


def _node(name: str, url: str, broker: AsyncMemoryBroker, tmp: Path, ear: Ear,
          cut: list[str], answers: Callable[[], Awaitable[str | None]] | None = None,
          ) -> ClusterNode:
    async def where() -> AsyncMemoryBroker:
        return broker

    keeper = TableKeeper(where, settings=KeeperSettings(verify_wait=0.5, linger=0.5),
                         record_path=lambda table, game: tmp / f"{name}-{table}.json")
    store = ClusterStore(url, name, lease=2.0, fence_margin=0.8)
    return ClusterNode(store, keeper, hearing=ear, cut_off=lambda: cut.append(name),
                       broker=answers)


def _beats(node: ClusterNode) -> list[str]:
    """The states of ``node``'s heartbeats from now on."""
    beats: list[str] = []
    heartbeat = node.store.heartbeat

    def counted(*args: object) -> None:
        beats.append(str(args[0]) if args else "up")
        heartbeat(*args)  # type: ignore[arg-type]

    node.store.heartbeat = counted  # type: ignore[method-assign,assignment]
    return beats


async def _open(node: ClusterNode, table: str) -> None:
    reply = await node.keeper.handle(ALICE, {
        "op": "open", "table": table, "players": 2, "bots": 1, "block_window": 0.2,
        "bot_delay": 0.05, "rules": {"win_chips": 3, "win_min_each_colour": 1}})
    assert reply["ok"], reply


async def test_a_node_that_hears_none_of_the_others_hands_its_tables_over(
    tmp_path: Path,
) -> None:
    url = f"sqlite:///{tmp_path / 'community.sqlite'}"
    await (await Store.open(url)).close()
    broker = AsyncMemoryBroker()
    ears = {name: Ear() for name in "abc"}
    cut: list[str] = []
    nodes = {name: _node(name, url, broker, tmp_path, ears[name], cut) for name in "abc"}
    observer = ClusterStore(url, "observer")
    try:
        for node in nodes.values():
            await node.start()
        await _open(nodes["a"], "friday")
        await _open(nodes["b"], "monday")
        # All hear each other: nothing moves.
        ears["a"].hears = {"b", "c"}
        ears["b"].hears = {"a", "c"}
        ears["c"].hears = {"a", "b"}
        await wait_until_async(lambda: {n.name for n in observer.peers()} >= set("abc")
                               and all(n.hears for n in observer.peers()),
                               "every node to say whom it hears", TIMEOUT)
        assert nodes["a"].community_ok and not cut
        # a's broker is cut off from the others': it hears none, they hear each other.
        ears["a"].hears = set()
        ears["b"].hears = {"c"}
        ears["c"].hears = {"b"}
        await wait_until_async(
            lambda: any(r.table == "friday" and r.node in "bc" and r.epoch == 2
                        for r in observer.listed()),
            "node b or c to take table friday over", TIMEOUT)
        assert cut == ["a"], "node a ends its ssh sessions, and only node a"
        assert not nodes["a"].community_ok
        assert "friday" not in nodes["a"].keeper.tables or \
            nodes["a"].keeper.tables["friday"].host.fenced
        assert next(p for p in observer.peers() if p.name == "a").state == "nobroker"
        monday = next(r for r in observer.listed() if r.table == "monday")
        assert monday.node == "b" and monday.epoch == 1, "node b keeps its own table"
        refused = await nodes["a"].keeper.handle(ALICE, {
            "op": "open", "table": "sunday", "players": 2, "bots": 1})
        assert not refused["ok"] and "broker" in str(refused.get("error", refused))
        # Back on the community's broker: a takes tables again.
        ears["a"].hears = {"b", "c"}
        await wait_until_async(lambda: nodes["a"].community_ok, "node a to come back",
                               TIMEOUT)
    finally:
        for node in nodes.values():
            await node.keeper.stop()
            await node.stop()
        observer.close()


async def test_a_node_alone_keeps_its_tables_hearing_nobody(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'community.sqlite'}"
    await (await Store.open(url)).close()
    cut: list[str] = []
    node = _node("a", url, AsyncMemoryBroker(), tmp_path, Ear(), cut)
    observer = ClusterStore(url, "observer")
    try:
        await node.start()
        await _open(node, "friday")
        beats: list[str] = []
        heartbeat = node.store.heartbeat

        def counted(*args: object) -> None:
            beats.append(str(args[0]) if args else "up")
            heartbeat(*args)  # type: ignore[arg-type]

        node.store.heartbeat = counted  # type: ignore[method-assign,assignment]
        # Renewals with nobody heard, well past the time a cut would need (CUT_AFTER).
        await wait_until_async(lambda: len(beats) >= 6, "several heartbeats", TIMEOUT)
        assert set(beats) == {"up"}
        row = next(r for r in observer.listed() if r.table == "friday")
        assert row.node == "a" and row.epoch == 1
        assert node.community_ok and not cut
        assert node.keeper.tables["friday"].host.fenced is None
    finally:
        await node.keeper.stop()
        await node.stop()
        observer.close()


async def test_a_node_back_from_a_cut_takes_nothing_back(tmp_path: Path) -> None:
    # Two nodes split: a reaches fewer of the broker cluster's URLs and gives its table
    # up; b takes it. The link back answers TCP (a reaches every URL, b counts one fewer
    # for a moment) before a's broker node meets b's: hearing nobody, a stays cut off,
    # and b, the only node up, keeps the table (were a up, b would find a reaching more
    # and give the table back). Once a hears b it is up again; the table stays.
    url = f"sqlite:///{tmp_path / 'community.sqlite'}"
    await (await Store.open(url)).close()
    broker = AsyncMemoryBroker()
    ears = {"a": Ear(reach=3), "b": Ear(reach=3)}
    ears["a"].hears, ears["b"].hears = {"b"}, {"a"}
    cut: list[str] = []
    nodes = {name: _node(name, url, broker, tmp_path, ears[name], cut) for name in "ab"}
    observer = ClusterStore(url, "observer")
    try:
        for node in nodes.values():
            await node.start()
        await _open(nodes["a"], "friday")
        ears["a"].hears, ears["b"].hears = set(), set()
        ears["a"].reach_now = 1
        await wait_until_async(
            lambda: any(r.table == "friday" and r.node == "b" for r in observer.listed()),
            "node b to take table friday over", TIMEOUT)
        assert cut == ["a"] and nodes["b"].community_ok
        ears["a"].reach_now, ears["b"].reach_now = 3, 2
        beats = _beats(nodes["b"])
        # Longer than b needs to give a table up (CUT_AFTER) were a up.
        await wait_until_async(lambda: len(beats) >= 8, "several heartbeats of b", TIMEOUT)
        friday = next(r for r in observer.listed() if r.table == "friday")
        assert (friday.node, friday.epoch) == ("b", 2), "the table stays with b"
        assert cut == ["a"] and not nodes["a"].community_ok and nodes["b"].community_ok
        ears["a"].hears, ears["b"].hears = {"b"}, {"a"}
        await wait_until_async(lambda: nodes["a"].community_ok, "node a to come back",
                               TIMEOUT)
        ups = _beats(nodes["a"])
        await wait_until_async(lambda: ups.count("up") >= 4, "a up for a while", TIMEOUT)
        friday = next(r for r in observer.listed() if r.table == "friday")
        assert (friday.node, friday.epoch) == ("b", 2), "the table moved once"
    finally:
        for node in nodes.values():
            await node.keeper.stop()
            await node.stop()
        observer.close()


async def test_a_host_without_its_session_waits_while_the_broker_answers(
    tmp_path: Path,
) -> None:
    # A table's host can't open its session on the broker (a NATS cluster refuses new
    # sessions while the node keeping them is cut off) while the node's broker answers
    # and meets the community: the table stays (another node's host would wait the
    # same), until the longer grace. When no broker of the node answers, it goes.
    url = f"sqlite:///{tmp_path / 'community.sqlite'}"
    await (await Store.open(url)).close()
    broker = AsyncMemoryBroker()
    ears = {"a": Ear(), "b": Ear()}
    ears["a"].hears, ears["b"].hears = {"b"}, {"a"}
    answering: list[str | None] = ["mqtt://a"]

    async def answers() -> str | None:
        return answering[0]

    cut: list[str] = []
    nodes = {"a": _node("a", url, broker, tmp_path, ears["a"], cut, answers),
             "b": _node("b", url, broker, tmp_path, ears["b"], cut)}
    nodes["a"].broker_grace = 0.2
    nodes["a"].stranded_grace = 3600.0
    observer = ClusterStore(url, "observer")
    try:
        for node in nodes.values():
            await node.start()
        await _open(nodes["a"], "friday")
        host = nodes["a"].keeper.tables["friday"].host
        host.transport.connected.clear()  # type: ignore[attr-defined]
        beats = _beats(nodes["a"])
        await wait_until_async(lambda: len(beats) >= 5, "several heartbeats of a", TIMEOUT)
        friday = next(r for r in observer.listed() if r.table == "friday")
        assert (friday.node, friday.epoch) == ("a", 1)
        assert host.fenced is None and not cut and nodes["a"].broker_ok
        answering[0] = None  # no broker of a answers now
        await wait_until_async(
            lambda: any(r.table == "friday" and r.node == "b" and r.epoch == 2
                        for r in observer.listed()),
            "node b to take table friday over", TIMEOUT)
        assert host.fenced is not None
    finally:
        for node in nodes.values():
            await node.keeper.stop()
            await node.stop()
        observer.close()


async def test_beacons_over_a_broker_are_heard(mosquitto: int) -> None:
    url = f"mqtt://127.0.0.1:{mosquitto}"
    a = MqttBeacon("a", lambda: url, [url, "mqtt://127.0.0.1:1"])
    b = MqttBeacon("b", lambda: url, [url])
    await a.start()
    await b.start()
    try:
        await wait_until_async(lambda: a.heard() == {"b"} and b.heard() == {"a"},
                               "the two beacons to hear each other", TIMEOUT)
        await wait_until_async(lambda: a.reach() == 1 and a.settled(),
                               "one of a's two broker URLs to answer", TIMEOUT)
    finally:
        await a.stop()
        await b.stop()
