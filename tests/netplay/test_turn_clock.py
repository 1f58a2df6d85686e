"""The turn clock (the stand-in bot plays a turn whose time ran out), the waiting lines
every peer gets in the host's heartbeat, and the spectator delay."""

from __future__ import annotations

from engine.state import Phase
from netplay.codec import decode
from netplay.playing.notices import Applied

from .harness import SHORT, Table, seat_heartbeats

CLOCK = 5.0


def at_a_persons_turn(seed: int, **settings: object) -> Table:
    table = Table(2, seed=seed, rules=SHORT, **settings)  # type: ignore[arg-type]
    table.run(lambda: len(table.host.batches) >= 3 and table.state.phase == Phase.PLAY)
    return table


def test_with_the_clock_off_a_silent_player_turn_waits_forever() -> None:
    table = at_a_persons_turn(91)
    me = table.at_seat(table.state.current)
    table.peer(me).auto = False  # present (heartbeats) but not playing
    batches = len(table.host.batches)
    for _ in range(60):
        table.advance(1.0)
    assert len(table.host.batches) == batches
    (wait,) = table.host.waits()
    assert (wait.seat, wait.away, wait.bot_in, wait.left) == (me.seat, None, None, None)


def test_when_the_clock_runs_out_the_stand_in_plays_that_turn_and_only_that_one() -> None:
    table = at_a_persons_turn(92, turn_clock=CLOCK)
    seat = table.state.current
    me = table.at_seat(seat)
    table.peer(me).auto = False
    batches = len(table.host.batches)
    turn = table.state.turn
    table.advance(CLOCK - 0.1)
    assert len(table.host.batches) == batches  # still the player's time
    (wait,) = table.host.waits()
    assert wait.left is not None and abs(wait.left - 0.1) < 1e-6 and wait.bot_in == wait.left
    table.advance(0.2)
    assert table.host.next_deadline() <= table.clock  # the stand-in is due at once
    for _ in range(20):
        table.tick()
    played = table.host.batches[batches:]
    assert played and all(b.standin and b.action is not None and b.action.seat == seat
                          for b in played)
    assert table.state.turn > turn  # the stand-in ended the turn
    info = table.host.seats[seat]
    assert info is not None and info.standin is None  # not away: the seat stays its own
    # The player's next turn has the whole clock again and is the player's own.
    table.peer(me).auto = True
    table.run(lambda: table.state.current == seat and table.state.phase == Phase.PLAY
              and table.state.turn > turn + 1)
    mine = len(table.host.batches)
    table.run(lambda: table.state.current != seat)
    assert not any(b.standin for b in table.host.batches[mine:])
    assert table.host.clock.remaining(table.clock) is not None


def test_every_peer_hears_whom_the_table_waits_for_and_counts_it_down() -> None:
    table = at_a_persons_turn(93, turn_clock=30.0, away_after=1.0, grace=10.0)
    seat = table.state.current
    me = table.at_seat(seat)
    other = next(p for p in table.players if p is not me)
    table.peer(me).paused = True  # frozen: no heartbeat, no action
    table.advance(0.5)
    table.advance(1.0)
    table.advance(1.0)  # away now (no heartbeat for 2.5 s > 1 s)
    beats = seat_heartbeats(table)
    told = beats[-1].body["wait"]
    assert [w[0] for w in told] == [seat]
    (wait,) = other.waiting(table.clock)
    assert wait.seat == seat and wait.away is not None and wait.away > 1.0
    # The stand-in comes at grace after away, well before the clock's 30 s.
    assert wait.bot_in is not None and wait.bot_in < 10.0 and wait.left is not None
    later = other.waiting(table.clock + 0.5)[0]
    assert later.bot_in == max(0.0, wait.bot_in - 0.5) and later.away == wait.away + 0.5


def test_spectators_get_the_public_stream_late_and_players_do_not() -> None:
    delay = 3.0
    table = Table(2, seed=94, rules=SHORT, spectator_delay=delay, join=False)
    watcher = table.add_player("watcher", watch=True)
    for index in range(2):
        table.add_player(f"p{index}")
    table.pump()
    table.run(lambda: len(table.host.batches) >= 6)
    player = table.players[1]
    assert player.applied == len(table.host.batches)  # players: at once
    seen = watcher.applied
    assert seen < len(table.host.batches)  # the spectator: not yet
    published = [decode(p).body["n"] for t, p in table.broker.log
                 if t == table.topics.events and decode(p).type == "events"]
    assert published == list(range(1, seen + 1))
    table.run_to_end()
    for _ in range(int(delay / 0.5) + 2):
        table.advance(0.5)
    assert [n.n for n in table.notices_of(watcher, Applied)] == list(
        range(1, len(table.host.batches) + 1))
    assert watcher.verdict is not None and watcher.verdict.ok


def test_a_late_spectator_catches_up_only_as_far_as_the_delay_allows() -> None:
    delay = 4.0
    table = Table(2, seed=95, rules=SHORT, spectator_delay=delay)
    table.run(lambda: len(table.host.batches) >= 8)
    released = table.host.released
    assert released < len(table.host.batches)
    late = table.add_player("late", watch=True)
    table.pump()
    assert late.applied == released  # the history it gets stops at the delay


def test_a_new_turn_never_shows_the_last_turns_countdown() -> None:
    """The last heartbeat's waits belong to the turn it was sent in: once a batch moves a
    peer's view past it, the peer shows nothing until the host's next heartbeat (which
    has the new turn's whole clock), never the old turn's time counted down."""
    table = at_a_persons_turn(96, turn_clock=30.0)
    seat = table.state.current
    me = table.at_seat(seat)
    for player in table.players:
        table.peer(player).auto = False
    for _ in range(25):
        table.advance(1.0)  # heartbeats: 5 s left for the seat at the last
    for player in table.players:
        (wait,) = player.waiting(table.clock)
        assert wait.seat == seat and wait.left is not None and 4.0 < wait.left <= 5.0
    turn = table.state.turn
    while table.state.turn == turn or table.state.phase != Phase.PLAY:
        assert table.host_move()  # no tick: no heartbeat in between
    assert me.applied == len(table.host.batches)
    for player in table.players:
        assert player.applied == len(table.host.batches)
        assert player.waiting(table.clock) == []
        assert player.waiting(table.clock + 0.5) == []
    moved = table.clock
    beats = table.host.beats.next_beat_at
    while table.host.beats.next_beat_at == beats:
        table.advance(0.1)  # up to the next heartbeat, for the new turn
    now = table.state.current
    for player in table.players:
        (wait,) = player.waiting(table.clock)
        assert wait.seat == now and wait.left is not None
        assert abs(wait.left - (30.0 - (table.clock - moved))) < 0.11  # its whole clock
