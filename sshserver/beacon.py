"""Whether a node's broker reaches the community: beacons over the broker itself.

A node's broker may answer it and still be cut off from the others' (a node of a NATS
cluster cut off from its peers is a cluster of one: its clients are served, but nothing
crosses to the other nodes). No broker-specific API tells that, so every node publishes a
small **beacon** on the broker every :data:`BEACON_EVERY` seconds
(``sstacks/v1/_community/beacon/<node>``, on any plain MQTT broker) and listens to the
others'. Each node writes into its heartbeat in the database which nodes it heard lately
(:data:`HEARD_FOR`) and how many of its broker URLs answer (its **reach**); from these
`reaches_community` concludes whether its broker reaches the community (see there, and
``docs/cluster.md``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import ssl
import time
import uuid
from collections.abc import Callable, Iterable, Sequence
from typing import Protocol

import aiomqtt

from netplay.topics import PREFIX
from netplay.transport import BrokerAddress
from ratings.cluster import Peer

log = logging.getLogger(__name__)

BEACON_EVERY = 1.0
"""Seconds between a node's beacons."""
HEARD_FOR = 3.0
"""A node heard over the broker within these seconds is heard now."""
CUT_AFTER = 3.0
"""Seconds a node must find itself cut off (`reaches_community` false, every look) before
it says so (``nobroker``) and hands its tables over: a short hiccup of the broker moves
nothing."""
REACH_EVERY = 2.0
"""Seconds between looks at how many of the node's broker URLs answer."""
BEACONS = f"{PREFIX}/_community/beacon"


class Hearing(Protocol):
    """What a node hears over its broker (`MqttBeacon`, or a test's own)."""

    def heard(self) -> set[str]:
        """The other nodes whose beacon arrived within :data:`HEARD_FOR` seconds."""
        ...

    def reach(self) -> int:
        """How many of the node's broker URLs answer."""
        ...

    def settled(self) -> bool:
        """Running long enough (:data:`HEARD_FOR`) for `heard` to mean something."""
        ...


def reaches_community(hears: Iterable[str], reach: int, peers: Sequence[Peer], *,
                      cut: bool = False) -> bool:
    """Whether this node's broker reaches the community, from what it hears over the
    broker (``hears``), how many of its broker URLs answer (``reach``), and the other
    live nodes' heartbeats (``peers``: what each of them hears and reaches). ``cut``:
    this node found itself cut off already (it says ``nobroker``).

    - no other node reaches its broker (``up``): yes (a node alone never gives up);
    - it hears at least one of them: yes;
    - it hears none, and one of them hears another node: no (they meet on the broker,
      this node is cut off from it);
    - it hears none and none of them hears anybody (two nodes split, or every node
      cut off from the others): no only if one of them reaches more of the broker
      cluster's URLs than this node does (the larger part of the broker cluster is
      theirs); on a tie every node keeps its tables (nothing tells the sides apart).

    A node found cut off comes back only by hearing one of them (or when none is
    ``up``): not by how many broker URLs answer. Its link back answers TCP at once, while
    its broker node takes seconds to join the cluster again; judged on the URLs, it would
    say ``up`` hearing nobody, and the node that took its tables, hearing nobody either
    and reaching fewer URLs for a moment, would give them back (a second move).
    """
    heard = set(hears)
    live = [peer for peer in peers if peer.state == "up"]
    if not live:
        return True
    if heard & {peer.name for peer in live}:
        return True
    if cut or any(peer.hears for peer in live):
        return False
    return max(peer.reach for peer in live) <= reach


async def answers(url: str) -> bool:
    """Whether the broker at ``url`` takes a TCP connection within a second."""
    try:
        address = BrokerAddress.parse(url)
        _, writer = await asyncio.wait_for(
            asyncio.open_connection(address.host, address.port), 1.0)
    except (OSError, ValueError, TimeoutError):
        return False
    writer.close()
    with contextlib.suppress(OSError):
        await writer.wait_closed()
    return True


class MqttBeacon:
    """This node's beacon and ear on the broker ``url()`` names (the one in use): publishes
    every :data:`BEACON_EVERY` seconds, records who it hears, counts which of ``urls``
    answer; reconnects on its own."""

    def __init__(self, node: str, url: Callable[[], str], urls: Sequence[str]) -> None:
        self.node = node
        self._url = url
        self._urls = tuple(urls)
        self._last: dict[str, float] = {}
        self._started: float | None = None
        self._reach = 0
        """None counted yet: a node just started never looks the larger side."""
        self._tasks: list[asyncio.Task[None]] = []
        self._stopping = False

    def heard(self) -> set[str]:
        now = time.monotonic()
        return {name for name, at in self._last.items() if now - at <= HEARD_FOR}

    def reach(self) -> int:
        return self._reach

    def settled(self) -> bool:
        # From its start, not its connection: a beacon that can't keep a session on the
        # broker hears nobody, and that is news too.
        return self._started is not None and time.monotonic() - self._started >= HEARD_FOR

    async def start(self) -> None:
        self._started = time.monotonic()
        self._tasks = [asyncio.create_task(self._run(), name=f"beacon-{self.node}"),
                       asyncio.create_task(self._reaching(), name=f"reach-{self.node}")]

    async def stop(self) -> None:
        """Stop beaconing. A cancellation the MQTT client swallows (one that lands in its
        connect or its exit) must not hold the node's stop: the loops also end on the
        flag, and each try waits a second at most."""
        self._stopping = True
        tasks, self._tasks = self._tasks, []
        for _ in range(5):
            pending = [task for task in tasks if not task.done()]
            if not pending:
                break
            for task in pending:
                task.cancel()
            await asyncio.wait(pending, timeout=1.0)
        for task in tasks:
            if task.done() and not task.cancelled():
                task.exception()  # retrieved: a failed beacon was logged already

    async def _reaching(self) -> None:
        while not self._stopping:
            if self._urls:
                found = await asyncio.gather(*(answers(url) for url in self._urls))
                self._reach = sum(found)
            await asyncio.sleep(REACH_EVERY)

    async def _run(self) -> None:
        while not self._stopping:
            try:
                await self._session(BrokerAddress.parse(self._url()))
            except (aiomqtt.MqttError, OSError, ValueError) as exc:
                log.info("node %s: beacon: %s", self.node, exc)
            await asyncio.sleep(BEACON_EVERY)

    async def _session(self, address: BrokerAddress) -> None:
        tls = ssl.create_default_context() if address.tls else None
        async with aiomqtt.Client(
                address.host, address.port, username=address.username,
                password=address.password, identifier=f"beacon-{uuid.uuid4().hex[:12]}",
                protocol=aiomqtt.ProtocolVersion.V311, clean_session=True, keepalive=5,
                timeout=2.0, tls_context=tls) as client:
            await client.subscribe(f"{BEACONS}/+", qos=0)
            listening = asyncio.create_task(self._listen(client))
            try:
                while not listening.done():
                    await client.publish(f"{BEACONS}/{self.node}", b"", qos=0)
                    await asyncio.sleep(BEACON_EVERY)
                listening.result()
            finally:
                listening.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await listening

    async def _listen(self, client: aiomqtt.Client) -> None:
        prefix = f"{BEACONS}/"
        async for message in client.messages:
            name = str(message.topic)[len(prefix):]
            if name and name != self.node and len(name) <= 64:
                self._last[name] = time.monotonic()
