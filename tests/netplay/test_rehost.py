"""A table whose first host died: a joiner follows the newer host; a closed table says so."""

from __future__ import annotations

from netplay.host import HostSession, HostSettings
from netplay.identity import Identity
from netplay.memory import MemoryBroker
from netplay.player import Joined, PlayerSession, TableClosed
from netplay.topics import Topics


def _route(broker: MemoryBroker, *sessions: HostSession | PlayerSession) -> None:
    for session in sessions:
        for out in session.data_to_send():
            broker.publish(out.topic, out.payload, out.retain)


def _subscribe_host(broker: MemoryBroker, host: HostSession) -> None:
    topics = host.topics
    for pattern in (topics.all_outboxes, topics.all_presence):
        broker.subscribe(host, pattern, lambda t, p: host.receive(t, p, 0.0))


def _subscribe_player(broker: MemoryBroker, player: PlayerSession) -> None:
    for pattern in player.subscriptions():
        broker.subscribe(player, pattern, lambda t, p: player.receive(t, p, 0.0))


def test_a_joiner_follows_a_new_host_after_a_dead_hosts_stale_announcement() -> None:
    broker = MemoryBroker()
    dead = HostSession(Identity.generate(), HostSettings("t", 2), 0.0)
    _route(broker, dead)  # its retained announcement stays on the broker; then it dies
    player = PlayerSession(Identity.generate(), "t", "Ana", 0.0)
    _subscribe_player(broker, player)
    player.start(0.0)
    _route(broker, player)  # a join nobody answers
    assert player.host_key == dead.identity.key and not player.joined
    alive = HostSession(Identity.generate(), HostSettings("t", 2), 0.0)
    _subscribe_host(broker, alive)
    for _ in range(4):
        _route(broker, alive, player)
    assert player.host_key == alive.identity.key
    assert player.joined and player.seat == 0
    assert any(isinstance(n, Joined) for n in player.take_notices())
    assert alive.seats[0] is not None and alive.seats[0].name == "Ana"


def test_a_seated_player_ignores_another_host_for_its_table() -> None:
    broker = MemoryBroker()
    host = HostSession(Identity.generate(), HostSettings("t", 3), 0.0)
    _subscribe_host(broker, host)
    player = PlayerSession(Identity.generate(), "t", "Ana", 0.0)
    _subscribe_player(broker, player)
    player.start(0.0)
    for _ in range(4):
        _route(broker, host, player)
    assert player.joined
    impostor = HostSession(Identity.generate(), HostSettings("t", 3), 0.0)
    _route(broker, impostor)
    assert player.host_key == host.identity.key
    assert "an announcement from a different host key" in player.dropped


def test_a_cleared_announcement_tells_the_player_the_table_closed() -> None:
    broker = MemoryBroker()
    host = HostSession(Identity.generate(), HostSettings("t", 3), 0.0)
    _subscribe_host(broker, host)
    player = PlayerSession(Identity.generate(), "t", "Ana", 0.0)
    _subscribe_player(broker, player)
    player.start(0.0)
    for _ in range(4):
        _route(broker, host, player)
    player.take_notices()
    broker.publish(Topics("t").announce, b"", retain=True)
    assert any(isinstance(n, TableClosed) for n in player.take_notices())
    assert player.dropped == []
