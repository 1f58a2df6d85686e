"""A frame the host sent every peer (a batch, or a signed frame on ``table``) stands for
its heartbeats for an interval, unless a heartbeat would say something new: the host beats
only in the silences, never silent longer than the interval, and peers still hear it,
find a lost batch and see whom the table waits for as before, with fewer frames. Nobody
watching, nothing goes on ``events`` at all."""

from __future__ import annotations

from engine.classic.config import SequenceConfig
from engine.state import Phase
from netplay.codec import Frame, decode
from netplay.host import IN_FLIGHT
from netplay.lobby import _heartbeat_of
from netplay.player import PlayerSession
from netplay.playing.beats import HEARTBEAT, IDLE_HEARTBEAT
from netplay.playing.notices import HostOffline

from .harness import SHORT, Table, forge_sealed, frames, observe, seat_heartbeats


def sequence_table(seed: int) -> Table:
    """Classic Sequence: no Block windows, so nothing a beat says changes with a move."""
    table = Table(2, seed=seed, game="sequence", rules=SequenceConfig())
    table.run(lambda: len(table.host.batches) >= 2)
    for peer in table.peers:
        peer.auto = False  # moves only when the test makes them
    table.advance(1.0)
    table.advance(1.0)  # quiet seconds: their beats went out
    return table


def beats(table: Table, topic: str = "/table") -> list[Frame]:
    """The host's beats to the seats (``/table``: a box each), or to the spectators
    (``/events``: signed)."""
    if topic == "/table":
        return seat_heartbeats(table)
    return [f for _, f in frames(table.broker.log, topic) if f.type == "heartbeat"]


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


def test_batches_stand_for_the_beats_and_a_silence_of_an_interval_gets_its_beat() -> None:
    table = sequence_table(51)
    every = table.settings.heartbeat
    assert every == 2.0  # the default: the longest a live host is silent
    sent, skipped = len(beats(table)), table.host.beats_skipped
    for _ in range(6):  # a batch every 1.5 s for 9 s: every seat hears the host in it
        move(table)
        table.advance(0.75)
        table.advance(0.75)
    assert len(beats(table)) == sent
    assert table.host.beats_skipped > skipped
    move(table)
    table.advance(every * 0.75)  # silent for less than the interval: still no beat
    assert len(beats(table)) == sent
    table.advance(every * 0.25)  # silent for the interval: the beat, with the batch count
    assert len(beats(table)) == sent + 1
    assert beats(table)[-1].body["at"] == len(table.host.batches)
    table.advance(every)  # and one an interval later, as long as the silence lasts
    assert len(beats(table)) == sent + 2


def test_nobody_watching_nothing_goes_on_events_and_a_late_spectator_gets_the_whole_game(
) -> None:
    table = Table(3, seed=61, rules=SHORT)
    table.run(lambda: len(table.host.batches) >= 8)
    assert not [t for t, _ in table.broker.log if t == table.topics.events]
    # The seats heard the host all along: their batches sealed, the rest on ``table``.
    assert all(p.applied == len(table.host.batches) for p in table.players)
    watcher = table.add_player("fan", watch=True)
    table.run_to_end()
    for _ in range(10):
        table.advance(1.0)
    assert watcher.applied == len(table.host.batches)
    assert watcher.verdict is not None and watcher.verdict.ok
    # From its welcome on, the public stream is there for it: live batches and beats.
    live = [f for _, f in frames(table.broker.log, "/events")]
    assert any(f.type == "events" for f in live) and any(f.type == "reveal" for f in live)


def test_seats_and_spectators_hear_the_host_through_the_batches_for_longer_than_host_silent(
) -> None:
    table = sequence_table(52)
    watcher = table.add_player("fan", watch=True)
    table.pump()
    table.advance(1.0)
    table.advance(1.0)
    sent, seats = len(beats(table, "/events")), len(beats(table))
    for _ in range(12):  # 12 s (HOST_SILENT is 5 s) of a move a second, no beat at all
        move(table)
        table.advance(1.0)
    assert len(beats(table, "/events")) == sent and len(beats(table)) == seats
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
    stream = table.topics.table_stream
    lost: list[int] = []

    def lose_once(receiver: object, topic: str, payload: bytes) -> bool:
        if receiver is me and topic == stream and observe(payload).type == "boxes" \
                and not lost:
            lost.append(1)
            return True
        return False

    table.filters.append(lose_once)
    move(table)
    assert lost and me.applied == len(table.host.batches) - 1
    table.advance(1.0)  # no beat: the batch went to every seat (this one lost it)
    table.advance(1.0)  # a silence of an interval: the beat says the count, the seat sees its gap
    table.advance(0.5)  # it asks after a short wait, the host resends
    assert me.applied == len(table.host.batches)


def test_while_a_block_window_is_open_every_beat_goes_out_and_the_first_after_it_too() -> None:
    table = Table(2, seed=54, rules=SHORT, block_window=5.0)
    table.run(lambda: table.state.phase == Phase.BLOCK_WINDOW)
    for peer in table.peers:
        peer.auto = False
    sent = len(beats(table))
    every = table.settings.heartbeat
    table.advance(every)  # the batch that opened the window went to everyone, but the beat
    told = beats(table)[sent:]  # says how long the window has left
    assert told and any(w[3] is not None for w in told[-1].body["wait"])
    other = table.players[0]
    assert any(w.left is not None for w in other.waiting(table.clock))
    while table.state.phase == Phase.BLOCK_WINDOW:
        assert table.host_move()  # every eligible seat passes
    sent = len(beats(table))
    table.advance(every)  # a batch went out, but the last beat had a line to clear
    assert len(beats(table)) == sent + 1
    assert not any(w.left is not None for w in other.waiting(table.clock))


def test_with_a_spectator_delay_no_beat_is_skipped() -> None:
    table = Table(2, seed=55, rules=SHORT, spectator_delay=2.0)
    table.add_player("fan", watch=True)
    table.run(lambda: len(table.host.batches) >= 3)
    for peer in table.peers:
        peer.auto = False
    sent, public = len(beats(table)), len(beats(table, "/events"))
    every = table.settings.heartbeat
    for _ in range(5):  # a batch every interval, and a beat every interval all the same
        assert table.host_move()
        table.advance(every)
    assert len(beats(table)) == sent + 5 and table.host.beats_skipped == 0
    assert len(beats(table, "/events")) == public + 5


def test_the_table_listing_hears_a_host_by_any_of_its_signed_frames_on_events() -> None:
    table = sequence_table(56)
    table.add_player("fan", watch=True)  # a public stream: someone watches
    table.pump()
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
    assert seat_beats(table, other) == theirs + 1  # its turn now: it beats within HEARTBEAT
    table.advance(IDLE_HEARTBEAT)
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
        assert info is not None and not table.host.presence.away(info)
    assert not any(w.away is not None for w in table.host.waits())


def test_a_seat_beat_that_crossed_a_batch_gets_no_resend_and_a_lost_batch_is_sent_again(
) -> None:
    """A seat's beat that does not count the batch just published crossed it on its way
    (under load, often): the host sends nothing again for it. Once the batch is older
    than ``IN_FLIGHT``, a beat that still does not count it was lost: the host resends."""
    table = sequence_table(62)
    me = table.at_seat(0)
    inbox = table.topics.inbox(me.peer_id)
    table.filters.append(lambda receiver, topic, payload: receiver is me
                         and topic == table.topics.table_stream)  # it hears no batch now
    move(table)
    behind = len(table.host.batches) - 1
    assert me.applied == behind
    before = len(table.sent(inbox, "events"))
    table.to_host(forge_sealed(me.identity, table.host_identity.key, "heartbeat",
                               {"at": behind}), table.out_topic(me))
    assert len(table.sent(inbox, "events")) == before  # crossed: nothing sent again
    table.clock += IN_FLIGHT
    table.to_host(forge_sealed(me.identity, table.host_identity.key, "heartbeat",
                               {"at": behind}), table.out_topic(me))
    assert [f.body["n"] for f in table.sent(inbox, "events")[before:]] == [behind + 1]
