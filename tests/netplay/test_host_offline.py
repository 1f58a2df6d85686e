"""A dead host is seen: its pre-signed last will, or its silence, makes every peer say
"host offline" and wait; anything the live host sends undoes it."""

from __future__ import annotations

from netplay.codec import decode
from netplay.lobby import table_from_announcement
from netplay.playing.liveness import HOST_SILENT
from netplay.playing.notices import HostBack, HostOffline, TableSeen

from .harness import SHORT, TABLE, Table, forge, identity_for


def kill_host(table: Table) -> None:
    """The host's process is gone: no ticks, no deliveries; the broker fires its will."""
    table.broker.unsubscribe_all(table.host)
    table.host.tick = lambda now: None  # type: ignore[method-assign]
    will = table.host.last_will()
    table.broker.publish(will.topic, will.payload, will.retain)
    table.pump()


def freeze_host(table: Table) -> None:
    """SIGSTOP: nothing from the host, and no will (amqtt never fires one)."""
    table.broker.unsubscribe_all(table.host)
    table.host.tick = lambda now: None  # type: ignore[method-assign]


def playing(seed: int) -> Table:
    table = Table(2, seed=seed, rules=SHORT)
    table.run(lambda: len(table.host.batches) >= 4)
    table.add_player("watcher", watch=True)
    table.pump()
    return table


def test_the_hosts_will_makes_every_peer_say_offline_at_once_and_wait() -> None:
    table = playing(71)
    batches = len(table.host.batches)
    kill_host(table)
    for session in table.players:
        gone = table.notices_of(session, HostOffline)
        assert [(n.reason, n.heard) for n in gone] == [("will", True)], session.name
        assert session.host_offline
        assert session.applied == batches  # the table waits where it was
    # Time passes: no second notice, nothing applied, nobody gives up on its own.
    table.advance(HOST_SILENT * 3)
    for session in table.players:
        assert len(table.notices_of(session, HostOffline)) == 1
        assert session.applied == batches and session.joined


def test_a_frozen_host_is_offline_after_its_heartbeats_stop_for_host_silent() -> None:
    table = playing(72)
    player = table.players[0]
    table.advance(0.5)
    freeze_host(table)
    last = player.host_heard
    assert last is not None
    assert player.next_deadline() <= last + HOST_SILENT
    table.advance(HOST_SILENT - 0.6)
    assert not table.notices_of(player, HostOffline)
    assert abs(player.host_silent_for(table.clock) - (table.clock - last)) < 1e-9
    table.advance(0.7)
    (gone,) = table.notices_of(player, HostOffline)
    assert gone.reason == "silent" and HOST_SILENT <= gone.silent_for < HOST_SILENT + 0.2


def test_a_will_with_an_older_seq_is_taken_and_the_live_hosts_next_heartbeat_undoes_it() -> None:
    table = playing(73)
    player = table.players[0]
    will = table.host.last_will()  # signed now...
    table.advance(1.0)  # ...older than the heartbeats and announcements that follow
    table.host.announce()
    table.pump()
    assert decode(will.payload).seq < decode(table.broker.retained[table.topics.announce]).seq
    table.inject(will.topic, will.payload, retain=True)  # a stale will, the host is alive
    assert [n.reason for n in table.notices_of(player, HostOffline)] == ["will"]
    table.advance(1.0)  # the host's heartbeat
    (back,) = table.notices_of(player, HostBack)
    assert back.away_for <= 1.0 and not player.host_offline


def test_a_will_of_another_key_is_dropped() -> None:
    table = playing(74)
    player = table.players[0]
    stranger = identity_for(74, "stranger")
    fake = forge(stranger, "offline", {"host": stranger.key, "name": TABLE, "players": 2})
    table.inject(table.topics.announce, fake)
    assert not table.notices_of(player, HostOffline) and not player.host_offline
    assert "the last will of a different host key" in player.dropped
    # Naming the real host while signed by another key: not a will either.
    forged = forge(stranger, "offline", {"host": table.host_identity.key, "name": TABLE,
                                         "players": 2})
    table.inject(table.topics.announce, forged)
    assert not player.host_offline
    assert "a last will not signed by the host it names" in player.dropped


def test_a_newcomer_finding_only_the_will_waits_then_joins_the_host_that_comes_back() -> None:
    table = Table(2, seed=75, rules=SHORT, join=False)
    kill_host(table)
    newcomer = table.add_player("late")
    table.pump()
    assert [(n.reason, n.heard) for n in table.notices_of(newcomer, HostOffline)] == [
        ("will", False)]  # gone before it came: it can't say since when
    assert newcomer.host_key == table.host_identity.key and not newcomer.joined
    assert not table.notices_of(newcomer, TableSeen)
    # The host comes back (same key) and announces: the newcomer is heard, and joins.
    host = table.host
    del host.tick  # type: ignore[method-assign]  # the instance override goes
    for pattern in (table.topics.all_outboxes, table.topics.all_presence):
        table.broker.subscribe(host, pattern, table._deliverer(host))
    host.announce()
    table.pump()
    assert table.notices_of(newcomer, HostBack) and newcomer.joined and newcomer.seat == 0


def test_stacks_tables_lists_a_table_whose_will_is_retained_as_offline_without_seats() -> None:
    table = Table(3, seed=76, rules=SHORT, join=False)
    topic = table.topics.announce
    info = table_from_announcement(topic, table.broker.retained[topic], "mqtt://x:1")
    assert info is not None and info.status == "lobby" and info.free == 3
    kill_host(table)
    info = table_from_announcement(topic, table.broker.retained[topic], "mqtt://x:1")
    assert info is not None
    assert (info.status, info.free, info.players, info.seated) == ("offline", 0, 3, ())
    assert "offline" in info.line() and "seats free" not in info.line()


def test_the_will_is_a_signed_frame_of_the_host_on_its_announce_topic() -> None:
    table = Table(2, seed=77, join=False)
    will = table.host.last_will()
    frame = decode(will.payload)
    assert will.topic == table.topics.announce and will.retain and will.qos == 1
    assert frame.type == "offline" and frame.sender == table.host_identity.key
    assert frame.body == {"host": table.host_identity.key, "name": TABLE, "players": 2,
                          "conn": table.host.conn}
