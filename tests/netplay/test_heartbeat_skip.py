"""A signed frame the host put on ``events`` stands for its next heartbeat, unless the
heartbeat would say something new: peers still hear the host, find a lost batch and see
whom the table waits for as before, with fewer frames."""

from __future__ import annotations

from engine.classic.config import SequenceConfig
from engine.state import Phase
from netplay.codec import Frame, decode
from netplay.lobby import _heartbeat_of
from netplay.player import HEARTBEAT, HostOffline, PlayerSession

from .harness import SHORT, Table, frames


def sequence_table(seed: int) -> Table:
    """Classic Sequence: no Block windows, so nothing a beat says changes with a move."""
    table = Table(2, seed=seed, game="sequence", rules=SequenceConfig())
    table.run(lambda: len(table.host.batches) >= 2)
    for peer in table.peers:
        peer.auto = False  # moves only when the test makes them
    table.advance(1.0)
    table.advance(1.0)  # quiet seconds: their beats went out
    return table


def beats(table: Table) -> list[Frame]:
    return [f for _, f in frames(table.broker.log, "/events") if f.type == "heartbeat"]


def move(table: Table) -> None:
    """The seat to move plays one action (one batch)."""
    batches = len(table.host.batches)
    definition = table.settings.definition
    for peer in table.peers:
        session, view = peer.session, peer.session.view
        if session.watch or session.seat is None or view is None:
            continue
        legal = definition.legal_actions(view, session.seat)
        if legal:
            session.act(peer.bot.choose(view, session.seat, legal))
    table.pump()
    assert len(table.host.batches) == batches + 1


def test_a_batch_stands_for_the_next_beat_and_a_quiet_second_gets_its_beat() -> None:
    table = sequence_table(51)
    sent, skipped = len(beats(table)), table.host.beats_skipped
    move(table)
    table.advance(1.0)
    assert len(beats(table)) == sent  # the batch went on events since the last beat
    assert table.host.beats_skipped == skipped + 1
    table.advance(1.0)  # nothing on events since: the beat goes out, with the batch count
    assert len(beats(table)) == sent + 1
    assert beats(table)[-1].body["at"] == len(table.host.batches)


def test_seats_and_spectators_hear_the_host_through_the_batches_for_longer_than_host_silent(
) -> None:
    table = sequence_table(52)
    watcher = table.add_player("fan", watch=True)
    table.pump()
    table.advance(1.0)
    table.advance(1.0)
    sent = len(beats(table))
    for _ in range(12):  # 12 s (HOST_SILENT is 5 s) of a move a second, no beat at all
        move(table)
        table.advance(1.0)
    assert len(beats(table)) == sent
    sessions: list[PlayerSession] = [*table.players]
    assert watcher in sessions
    for session in sessions:
        assert not table.notices_of(session, HostOffline)
        silent = session.host_silent_for(table.clock)
        assert silent is not None and silent <= 1.0
        assert session.applied == len(table.host.batches)


def test_a_seat_that_lost_the_last_batch_finds_it_at_the_next_quiet_beat() -> None:
    table = sequence_table(53)
    me = table.at_seat(0)
    inbox = table.topics.inbox(me.peer_id)
    lost: list[int] = []

    def lose_once(receiver: object, topic: str, _payload: bytes) -> bool:
        if receiver is me and topic == inbox and not lost:
            lost.append(1)
            return True
        return False

    table.filters.append(lose_once)
    move(table)
    assert lost and me.applied == len(table.host.batches) - 1
    table.advance(1.0)  # the beat is skipped: the batch went on events
    table.advance(1.0)  # a quiet second: the beat says the count, the seat sees its gap
    table.advance(0.5)  # it asks after a short wait, the host resends
    assert me.applied == len(table.host.batches)


def test_while_a_block_window_is_open_every_beat_goes_out_and_the_first_after_it_too() -> None:
    table = Table(2, seed=54, rules=SHORT, block_window=5.0)
    table.run(lambda: table.state.phase == Phase.BLOCK_WINDOW)
    for peer in table.peers:
        peer.auto = False
    sent = len(beats(table))
    table.advance(1.0)  # the batch that opened the window went on events, but the beat
    told = beats(table)[sent:]  # says how long the window has left
    assert told and any(w[3] is not None for w in told[-1].body["wait"])
    other = table.players[0]
    assert any(w.left is not None for w in other.waiting(table.clock))
    while table.state.phase == Phase.BLOCK_WINDOW:
        assert table.host_move()  # every eligible seat passes
    sent = len(beats(table))
    table.advance(1.0)  # a batch went out, but the last beat had a line to clear
    assert len(beats(table)) == sent + 1
    assert not any(w.left is not None for w in other.waiting(table.clock))


def test_with_a_spectator_delay_no_beat_is_skipped() -> None:
    table = Table(2, seed=55, rules=SHORT, spectator_delay=2.0)
    table.run(lambda: len(table.host.batches) >= 3)
    for peer in table.peers:
        peer.auto = False
    sent = len(beats(table))
    for _ in range(5):  # a batch every second, and a beat every second all the same
        assert table.host_move()
        table.advance(1.0)
    assert len(beats(table)) == sent + 5 and table.host.beats_skipped == 0


def test_the_table_listing_hears_a_host_by_any_of_its_signed_frames_on_events() -> None:
    table = sequence_table(56)
    move(table)
    topic, payload = next((t, p) for t, p in reversed(table.broker.log)
                          if t == table.topics.events and decode(p).type == "events")
    assert _heartbeat_of(topic, payload) == (table.settings.table, table.host_identity.key)
    assert _heartbeat_of("nope/x/events", payload) is None
    assert _heartbeat_of(table.topics.events, b"not a frame") is None


def test_a_host_back_from_a_freeze_beats_at_once_even_after_a_batch() -> None:
    table = sequence_table(57)
    sent = len(beats(table))
    move(table)
    table.advance(3.0)  # the host's loop stood still for 3 s (a stop, a long stall)
    assert len(beats(table)) == sent + 1  # the batch is old news: the beat goes out


def seat_beats(table: Table, session: PlayerSession) -> int:
    return len(table.sent(table.out_topic(session), "heartbeat"))


def test_a_seat_whose_action_the_host_answered_skips_its_next_beat_only() -> None:
    table = sequence_table(58)
    mover = next(p for p in table.players
                 if p.view is not None and p.seat is not None
                 and table.settings.definition.legal_actions(p.view, p.seat))
    other = next(p for p in table.players if p is not mover)
    mine, theirs = seat_beats(table, mover), seat_beats(table, other)
    move(table)  # the host answers with the batch, sealed to the mover too
    table.advance(HEARTBEAT)
    assert seat_beats(table, mover) == mine  # the action said it all
    assert seat_beats(table, other) == theirs + 1
    table.advance(HEARTBEAT)
    assert seat_beats(table, mover) == mine + 1  # a quiet interval: it beats again


def test_a_seat_whose_action_got_no_answer_beats_as_usual() -> None:
    table = sequence_table(59)
    mover = next(p for p in table.players
                 if p.view is not None and p.seat is not None
                 and table.settings.definition.legal_actions(p.view, p.seat))
    mine = seat_beats(table, mover)
    table.peer(mover).deaf = True  # it hears nothing back: maybe behind, the host must know
    move(table)
    table.advance(HEARTBEAT)
    assert seat_beats(table, mover) == mine + 1


def test_seats_acting_in_turn_with_skipped_beats_never_count_as_away() -> None:
    table = Table(2, seed=60, game="sequence", rules=SequenceConfig(), away_after=2.5)
    table.run(lambda: len(table.host.batches) >= 2)
    for peer in table.peers:
        peer.auto = False
    for _ in range(10):
        move(table)
        table.advance(1.0)
    for info in table.host.seats:
        assert info is not None and not table.host._away(info)
    assert not any(w.away is not None for w in table.host.waits())
