"""Presence and the broker (protocol 7): wills and onlines name their connection, so a
replayed one marks nobody away or back; a host that found its broker fires wills beats
rarely and its seats wait for it longer, and a seat's will still finds it away."""

from __future__ import annotations

from engine.state import Phase
from netplay.codec import decode
from netplay.host import REST_HEARTBEAT
from netplay.player import PlayerSession
from netplay.playing.beats import HEARTBEAT, IDLE_HEARTBEAT
from netplay.playing.notices import HostOffline
from netplay.probe import Probe

from .harness import SHORT, Table, seat_heartbeats


def game_on(seed: int, **settings: object) -> tuple[Table, PlayerSession]:
    table = Table(3, seed=seed, rules=SHORT, **settings)
    table.run(lambda: len(table.host.batches) >= 4 and table.state.phase == Phase.PLAY)
    return table, table.at_seat(table.state.current)


def presence_frames(table: Table, player: PlayerSession) -> list[bytes]:
    topic = table.topics.presence(player.peer_id)
    return [p for t, p in table.broker.log if t == topic]


def reconnect(table: Table, player: PlayerSession) -> tuple[bytes, bytes]:
    """The player's link drops and comes back: the will of its first connection and of
    the new one (the broker holds the new one; nobody has seen it)."""
    first = player.last_will().payload  # the connection it has had since start()
    second = player.last_will().payload  # the next connection attempt: a new nonce
    player.connected(table.clock)
    table.pump()
    return first, second


def test_a_replayed_will_of_an_earlier_connection_marks_no_seat_away() -> None:
    table, player = game_on(71)
    seat = player.seat
    assert seat is not None
    info = table.host.seats[seat]
    assert info is not None
    old_will, new_will = reconnect(table, player)
    assert info.conn == player.conn and decode(new_will).body["conn"] == player.conn
    table.inject(table.topics.presence(player.peer_id), old_will, retain=True)
    assert info.online
    assert "an offline of an earlier connection (a stale will)" in table.host.dropped
    # The will of the connection the seat has now is its departure.
    table.inject(table.topics.presence(player.peer_id), new_will, retain=True)
    assert not info.online


def test_a_replayed_online_of_a_connection_that_ended_brings_no_seat_back() -> None:
    table, player = game_on(72)
    seat = player.seat
    assert seat is not None
    info = table.host.seats[seat]
    assert info is not None
    topic = table.topics.presence(player.peer_id)
    # The seat reconnects; its "online" on the new link is lost on the way to the host.
    table.filters.append(lambda receiver, t, _: receiver is table.host and t == topic)
    _, will = reconnect(table, player)
    table.filters.clear()
    online = presence_frames(table, player)[-1]
    assert decode(online).body == {"online": True, "conn": player.conn}
    table.remove(player)  # then it is gone: the broker publishes its will
    table.inject(topic, will, retain=True)
    assert not info.online
    # Its "online" replayed (the host never saw it, so its number is new to it) is of a
    # connection whose will was taken: it brings nobody back.
    table.inject(topic, online, retain=True)
    assert not info.online
    assert "an online of a connection whose will was taken" in table.host.dropped


def test_a_replayed_will_of_the_hosts_earlier_connection_is_not_its_departure() -> None:
    table, player = game_on(73)
    old_will = table.host.last_will().payload
    new_will = table.host.last_will().payload  # the host reconnects: a new connection
    table.host.connected(table.clock)
    table.pump()
    table.inject(table.topics.announce, old_will, retain=True)
    assert table.notices_of(player, HostOffline) == []
    assert not player.host_offline
    assert "the last will of an earlier connection of the host" in player.dropped
    table.inject(table.topics.announce, new_will, retain=True)
    assert [n.reason for n in table.notices_of(player, HostOffline)] == ["will"]


def trust(table: Table) -> None:
    """The host's broker probe: its will came in time."""
    probe = Probe.new(table.topics.outbox(table.host_identity.peer_id))
    table.host.probe_started(probe, table.clock + 10)
    table.inject(probe.topic, probe.will)
    assert table.host.resting


def test_a_host_on_a_broker_that_fires_wills_beats_rarely_and_its_seats_wait_for_it() -> None:
    table, _ = game_on(74)
    trust(table)
    table.advance(2.1)  # the host's next beat tells the seats
    assert all(p.resting for p in table.players)
    host_beats = len(seat_heartbeats(table))
    outs = {table.out_topic(p) for p in table.players}
    seat_frames = sum(t in outs for t, _ in table.broker.log)
    for _ in range(60):  # a minute without a move
        table.advance(1.0)
    # The host's beats to the seats (a box each): one in each 10 s of silence.
    assert len(seat_heartbeats(table)) - host_beats \
        <= len(table.players) * (60 / (0.8 * REST_HEARTBEAT) + 1)
    # The seats beat as before (a frozen seat is still found by its silence): the one the
    # table waits for every 4 s, the others every 8 s (protocol 8).
    assert sum(t in outs for t, _ in table.broker.log) - seat_frames \
        >= (60 / HEARTBEAT - 1) + (len(table.players) - 1) * (60 / IDLE_HEARTBEAT - 1)
    # Nobody is away, and no seat took the host for gone in its silences.
    assert all(info is None or info.is_bot or info.online for info in table.host.seats)
    assert all(not p.host_offline for p in table.players)
    assert table.notices_of(table.players[0], HostOffline) == []


def test_a_resting_hosts_seat_found_gone_by_its_will_gets_a_stand_in() -> None:
    table, waited = game_on(75, grace=1.0)
    trust(table)
    table.advance(2.1)
    seat = waited.seat
    assert seat is not None and waited.resting
    will = waited.last_will()  # its connection's will, which the broker holds
    table.remove(waited)  # frozen: the broker's keepalive fires the will
    table.inject(will.topic, will.payload, retain=True)
    info = table.host.seats[seat]
    assert info is not None and not info.online
    for _ in range(40):
        if info.standin is not None:
            break
        table.advance(0.1)
    assert info.standin is not None


def test_a_probe_answered_late_leaves_the_table_beating_as_before() -> None:
    table, _ = game_on(76)
    probe = Probe.new(table.topics.outbox(table.host_identity.peer_id))
    table.host.probe_started(probe, table.clock + 1)
    table.advance(1.5)
    table.inject(probe.topic, probe.will)
    assert not table.host.resting
    table.advance(2.1)
    assert not any(p.resting for p in table.players)


def test_a_forged_probe_answer_trusts_nothing() -> None:
    table, _ = game_on(77)
    probe = Probe.new(table.topics.outbox(table.host_identity.peer_id))
    table.host.probe_started(probe, table.clock + 10)
    table.inject(probe.topic, bytes(16))
    table.inject(probe.topic, probe.will[:-1])
    assert not table.host.resting


def test_a_resting_hosts_silence_is_not_called_unresponsive_until_its_beat_is_late() -> None:
    table, player = game_on(78)
    heard = player.host_heard
    assert heard is not None
    assert player.host_late_for(heard + 3.0) == 3.0  # beating every 2 s: 3 s is late
    trust(table)
    table.advance(2.1)
    assert player.resting
    heard = player.host_heard
    assert heard is not None
    assert player.host_late_for(heard + 8.0) is None  # it beats after 10 s of silence
    assert player.host_late_for(heard + 11.0) == 11.0
