"""Which host a peer follows: never a second key silently; a pin decides; only the host's
signed close closes a table. (The sessions here join at the first announcement,
``settle=0``: the clock does not move; tests/netplay/test_bare_name.py has the settling.)"""

from __future__ import annotations

from netplay.host import HostSession, HostSettings
from netplay.hosts import fingerprint
from netplay.identity import Identity
from netplay.memory import MemoryBroker
from netplay.player import PlayerSession
from netplay.playing.notices import HostChanged, HostConflict, HostsDisagree, Joined, TableClosed
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


def _stale_then_alive(pin: str | None = None) -> tuple[PlayerSession, HostSession, HostSession,
                                                       MemoryBroker]:
    broker = MemoryBroker()
    dead = HostSession(Identity.generate(), HostSettings("t", 2), 0.0)
    _route(broker, dead)  # its retained announcement stays on the broker; then it dies
    player = PlayerSession(Identity.generate(), "t", "Ana", 0.0, pin=pin, settle=0.0)
    _subscribe_player(broker, player)
    player.start(0.0)
    _route(broker, player)  # a join nobody answers
    alive = HostSession(Identity.generate(), HostSettings("t", 2), 0.0)
    _subscribe_host(broker, alive)
    for _ in range(4):
        _route(broker, alive, player)
    return player, dead, alive, broker


def test_a_second_host_key_is_never_followed_silently_the_user_chooses() -> None:
    player, dead, alive, broker = _stale_then_alive()
    # The first announcement seen was the dead host's: another key for the same table,
    # before any welcome, leaves the session following neither; the interface shows both
    # (fingerprints, claims) and the user picks one.
    assert player.host_key is None and not player.joined
    notices = player.take_notices()
    assert not any(isinstance(n, HostConflict) for n in notices)
    (asked,) = [n for n in notices if isinstance(n, HostsDisagree)]
    assert [c.key for c in asked.claims] == [dead.identity.key, alive.identity.key]
    assert asked.claims[1].fingerprint == fingerprint(alive.identity.key)
    assert "'t', lobby, 0/2 seats" in asked.claims[1].words()
    assert asked.pins() == [f"t@{fingerprint(dead.identity.key)}",
                            f"t@{fingerprint(alive.identity.key)}"]
    # The user picks the live one.
    player.follow(alive.identity.key)
    for _ in range(4):
        _route(broker, alive, player)
    assert player.host_key == alive.identity.key
    assert player.joined and player.seat == 0
    assert any(isinstance(n, Joined) for n in player.take_notices())
    assert alive.seats[0] is not None and alive.seats[0].name == "Ana"


def test_a_pinned_table_follows_only_its_host() -> None:
    pin = fingerprint(Identity.generate().key)  # nobody's: nothing is followed
    player, _dead, _alive, _broker = _stale_then_alive(pin)
    assert player.host_key is None
    player, _dead, alive, _broker = _stale_then_alive(fingerprint(b"x"))
    assert player.host_key is None
    broker = MemoryBroker()
    dead = HostSession(Identity.generate(), HostSettings("t", 2), 0.0)
    _route(broker, dead)
    alive = HostSession(Identity.generate(), HostSettings("t", 2), 0.0)
    player = PlayerSession(Identity.generate(), f"t@{fingerprint(alive.identity.key)}", "Ana",
                           0.0)
    assert player.table == "t"
    _subscribe_player(broker, player)
    player.start(0.0)
    _subscribe_host(broker, alive)
    for _ in range(4):
        _route(broker, alive, player)
    assert player.host_key == alive.identity.key and player.joined
    assert not any(isinstance(n, HostConflict) for n in player.take_notices())


def test_a_host_that_signed_its_close_hands_over_with_a_notice() -> None:
    broker = MemoryBroker()
    old = HostSession(Identity.generate(), HostSettings("t", 2), 0.0)
    _route(broker, old)
    player = PlayerSession(Identity.generate(), "t", "Ana", 0.0, settle=0.0)
    _subscribe_player(broker, player)
    player.start(0.0)
    old.close_table()
    _route(broker, old, player)
    assert any(isinstance(n, TableClosed) for n in player.take_notices())
    new = HostSession(Identity.generate(), HostSettings("t", 2), 0.0)
    _subscribe_host(broker, new)
    for _ in range(4):
        _route(broker, new, player)
    (changed,) = [n for n in player.take_notices() if isinstance(n, HostChanged)]
    assert changed.old.key == old.identity.key and changed.new.key == new.identity.key
    assert player.host_key == new.identity.key and player.joined


def test_a_seated_player_ignores_another_host_for_its_table() -> None:
    broker = MemoryBroker()
    host = HostSession(Identity.generate(), HostSettings("t", 3), 0.0)
    _subscribe_host(broker, host)
    player = PlayerSession(Identity.generate(), "t", "Ana", 0.0, settle=0.0)
    _subscribe_player(broker, player)
    player.start(0.0)
    for _ in range(4):
        _route(broker, host, player)
    assert player.joined
    impostor = HostSession(Identity.generate(), HostSettings("t", 3), 0.0)
    _route(broker, impostor)
    assert player.host_key == host.identity.key
    assert "an announcement from a different host key" in player.dropped
    (conflict,) = [n for n in player.take_notices() if isinstance(n, HostConflict)]
    assert conflict.joined and conflict.other.key == impostor.identity.key


def test_only_the_hosts_signed_close_closes_the_table() -> None:
    broker = MemoryBroker()
    host = HostSession(Identity.generate(), HostSettings("t", 3), 0.0)
    _subscribe_host(broker, host)
    player = PlayerSession(Identity.generate(), "t", "Ana", 0.0, settle=0.0)
    _subscribe_player(broker, player)
    player.start(0.0)
    for _ in range(4):
        _route(broker, host, player)
    player.take_notices()
    broker.publish(Topics("t").announce, b"", retain=True)
    assert not any(isinstance(n, TableClosed) for n in player.take_notices())
    assert player.dropped == ["an empty announcement (closes nothing)"]
    host.close_table()
    _route(broker, host)
    assert any(isinstance(n, TableClosed) for n in player.take_notices())
