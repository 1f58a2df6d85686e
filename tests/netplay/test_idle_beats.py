"""Protocol 8: a seated player beats every 4 s while the table waits for it (its turn, a
Block window it may still answer, the deal's rounds) and every 8 s while it waits for
others; the host counts a seat it waits for away 10 s after the later of its last frame
and the moment the waiting began, and any other seat after 20 s of silence. A frozen
player is still found, and its turn still goes to a stand-in; a live one never counts as
away; at a table of four acting every 2 s about 0.6 beats an action go out instead of 1.6."""

from __future__ import annotations

from engine.classic.config import SequenceConfig
from netplay.player import PlayerSession
from netplay.playing.beats import HEARTBEAT, IDLE_HEARTBEAT

from .harness import Table


def sequence_table(seed: int, **settings: object) -> Table:
    table = Table(2, seed=seed, game="sequence", rules=SequenceConfig(), **settings)
    table.run(lambda: len(table.host.batches) >= 2)
    for peer in table.peers:
        peer.auto = False  # moves only when the test makes them
    table.advance(1.0)
    return table


def mover_and_other(table: Table) -> tuple[PlayerSession, PlayerSession]:
    definition = table.settings.definition
    mover = next(p for p in table.players if p.view is not None and p.seat is not None
                 and p.seat in definition.to_move(p.view))
    return mover, next(p for p in table.players if p is not mover)


def beats(table: Table, session: PlayerSession) -> int:
    return len(table.sent(table.out_topic(session), "heartbeat"))


def wait(table: Table, seconds: float, step: float = 0.25) -> None:
    for _ in range(round(seconds / step)):
        table.advance(step)


def test_the_seat_the_table_waits_for_beats_every_heartbeat_the_other_every_idle_beat(
) -> None:
    table = sequence_table(71)
    mover, other = mover_and_other(table)
    assert mover.beats.interval() == HEARTBEAT and other.beats.interval() == IDLE_HEARTBEAT
    mine, theirs = beats(table, mover), beats(table, other)
    wait(table, 32.0)
    # A beat comes 0.8 to 1 interval after the last one (jitter), the first of them within
    # one interval: 32 s hold 7-10 beats of 4 s and 3-5 of 8 s.
    assert 7 <= beats(table, mover) - mine <= 10
    assert 3 <= beats(table, other) - theirs <= 5
    for info in table.host.seats:  # and neither ever counts as away
        assert info is not None and not table.host.presence.away(info)


def test_a_seat_whose_turn_comes_beats_within_a_heartbeat_of_it() -> None:
    table = sequence_table(72)
    mover, other = mover_and_other(table)
    theirs = beats(table, other)
    while beats(table, other) == theirs:  # until just after an idle beat: the next one
        table.advance(0.25)               # would be 6.4 s or more away
    theirs = beats(table, other)
    session, view = mover, mover.view
    assert view is not None and session.seat is not None
    definition = table.settings.definition
    session.act(table.peer(session).bot.choose(
        view, session.seat, definition.legal_actions(view, session.seat)))
    table.pump()
    assert other.beats.interval() == HEARTBEAT  # its turn now
    wait(table, HEARTBEAT)
    assert beats(table, other) == theirs + 1


def test_a_frozen_seat_the_table_does_not_wait_for_counts_away_after_idle_away_after(
) -> None:
    table = sequence_table(73)
    _, other = mover_and_other(table)
    info = table.host.seats[other.seat or 0]
    assert info is not None
    table.peer(other).paused = True  # frozen: no beats, no will (the broker keeps it)
    frozen_at = table.clock
    wait(table, table.settings.away_after + 2.0)
    assert not table.host.presence.away(info)  # 12 s: it may just be between two idle beats
    wait(table, frozen_at + table.settings.idle_away_after + 0.5 - table.clock)
    assert table.host.presence.away(info)


def test_a_frozen_seat_whose_turn_comes_is_found_away_ten_seconds_into_it_and_gets_a_bot(
) -> None:
    table = sequence_table(74, grace=5.0)
    mover, other = mover_and_other(table)
    info = table.host.seats[other.seat or 0]
    assert info is not None
    table.peer(other).paused = True
    wait(table, 6.0)  # frozen 6 s before its turn: not yet away (idle)
    view = mover.view
    assert view is not None and mover.seat is not None
    definition = table.settings.definition
    mover.act(table.peer(mover).bot.choose(view, mover.seat,
                                           definition.legal_actions(view, mover.seat)))
    table.pump()
    turn_at, batches = table.clock, len(table.host.batches)
    assert other.seat in table.host.deciders()
    wait(table, table.settings.away_after - 0.5)
    assert not table.host.presence.away(info)
    wait(table, 1.0)
    assert table.host.presence.away(info)
    assert any(w.seat == other.seat and w.away is not None for w in table.host.waits())
    wait(table, turn_at + table.settings.away_after + table.settings.grace + 0.5 - table.clock)
    assert len(table.host.batches) > batches  # a stand-in played the frozen seat's turn


def test_a_seat_the_table_waits_for_is_found_away_ten_seconds_after_its_last_beat() -> None:
    table = sequence_table(75)
    mover, _ = mover_and_other(table)
    info = table.host.seats[mover.seat or 0]
    assert info is not None
    wait(table, 2.0)
    table.peer(mover).paused = True
    last = info.last_seen
    wait(table, last + table.settings.away_after - 0.5 - table.clock)
    assert not table.host.presence.away(info)
    wait(table, 1.0)
    assert table.host.presence.away(info)


def test_after_the_game_a_live_seat_beating_every_idle_beat_never_counts_as_away() -> None:
    table = Table(2, seed=76, game="sequence", rules=SequenceConfig())
    table.run_to_end()
    assert all(p.beats.interval() == IDLE_HEARTBEAT for p in table.players)
    me = table.at_seat(0)
    out = table.out_topic(me)

    def lost(receiver: object, topic: str, payload: bytes) -> bool:
        return receiver is table.host and topic == out

    table.filters.append(lost)  # a beat or so lost: silent for up to 9 + 8 s
    for step in range(round(3 * IDLE_HEARTBEAT / 0.5)):
        if step == 18:
            table.filters.remove(lost)
        table.advance(0.5)
        for info in table.host.seats:
            assert info is not None and not table.host.presence.away(info)
