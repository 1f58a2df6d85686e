"""Catch-up without gaps: a late or restarted spectator gets the whole public history from
the first batch, in chunks the host's budgets allow; a player who comes back hears what it
missed (its stand-in's moves included) as :class:`Missed` notices."""

from __future__ import annotations

import pytest

from engine.state import Phase
from netplay import history as history_module
from netplay.budget import HostBudgets, HostLimits, Limit
from netplay.codec import decode
from netplay.history import PublicCopies
from netplay.hosting import repair as host_module
from netplay.playing import follower as follower_module
from netplay.playing.beats import IDLE_HEARTBEAT
from netplay.playing.notices import Applied, Missed, Resynced

from .harness import SHORT, Table

CHUNK = 8
"""Chunks this small here, so that a short game's history takes several."""


@pytest.fixture(autouse=True)
def small_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(host_module, "MAX_RESEND", CHUNK)
    monkeypatch.setattr(history_module, "CHUNK", CHUNK)
    monkeypatch.setattr(follower_module, "CHUNK", CHUNK)
    monkeypatch.setattr(follower_module, "SEAT_CHUNK", CHUNK)


def history_bytes(table: Table, first: int, last: int) -> int:
    """What batches ``first``..``last`` cost a spectator's history budget."""
    return sum(map(len, PublicCopies().packed(table.host.batches, first, last)))


def long_game(seed: int, batches: int) -> Table:
    table = Table(3, seed=seed)
    table.run(lambda: len(table.host.batches) >= batches or table.host.over)
    assert not table.host.over, "the game ended too soon for this test"
    return table


def test_a_late_spectator_applies_every_batch_once_in_order_in_bounded_chunks() -> None:
    table = long_game(81, 3 * CHUNK + 10)
    mark = len(table.broker.log)
    late = table.add_player("late", watch=True)
    table.pump()
    outbox = table.out_topic(late)
    asks = [f.body for f in table.sent(outbox, "resync", since=mark)]
    # One chunk in flight at a time, each asked when the last one is in, from batch 1.
    assert [a["from"] for a in asks] == [1 + i * CHUNK for i in range(len(asks))]
    assert all(a["history"] is True and a["snapshot"] is False for a in asks)
    inbox = table.topics.inbox(late.peer_id)
    answered = [decode(p) for t, p in table.broker.log[mark:] if t == inbox]
    # In bulk: a few history frames, not a frame per batch (and never a snapshot).
    assert {f.type for f in answered} == {"welcome", "history"}
    assert len(answered) <= 1 + len(asks)
    table.run_to_end()
    numbers = [n.n for n in table.notices_of(late, Applied)]
    assert numbers == list(range(1, len(table.host.batches) + 1))
    assert not table.notices_of(late, Resynced)
    assert late.verdict is not None and late.verdict.ok


def test_a_spectator_over_its_budget_still_gets_everything_paced() -> None:
    table = long_game(82, 6 * CHUNK)
    two = history_bytes(table, 1, 2 * CHUNK)
    limits = HostLimits(spectator_history=Limit(two, two / 2))
    table.host.budgets = HostBudgets(limits)
    late = table.add_player("late", watch=True)
    table.pump()
    # The burst covers 2 chunks' bytes; the rest comes as the budget refills (about a
    # chunk a second).
    assert late.applied == 2 * CHUNK
    for _ in range(100):
        if late.applied == len(table.host.batches):
            break
        table.advance(0.5)
    table.assert_in_step([late])
    numbers = [n.n for n in table.notices_of(late, Applied)]
    assert numbers == sorted(set(numbers)) == list(range(1, late.applied + 1))


def test_a_restarted_player_hears_what_it_missed_with_its_stand_ins_moves() -> None:
    table = Table(3, seed=83, rules=SHORT, away_after=1.0, grace=1.0)
    table.run(lambda: len(table.host.batches) >= 5 and table.state.phase == Phase.PLAY)
    seat = table.state.current
    old = table.at_seat(seat)
    seen = old.applied
    table.remove(old)  # killed
    info = table.host.seats[seat]
    assert info is not None
    table.run(lambda: info.standin is not None and table.state.current != seat
              and any(b.standin for b in table.host.batches[seen:]))
    back = table.add_player("back", identity=old.identity)
    table.pump()
    total = len(back.received)
    missed = table.notices_of(back, Missed)
    # Everything up to the snapshot it came back with, once, in order, after the snapshot.
    (snapshot,) = table.notices_of(back, Resynced)
    assert [m.n for m in missed] == list(range(1, snapshot.n + 1))
    notices = table.notices(back)
    assert notices.index(snapshot) < notices.index(missed[0])
    standins = [m for m in missed if m.standin]
    assert standins and all(m.action is not None and m.action.seat == seat for m in standins)
    assert {m.n for m in standins} == {b.n for b in table.host.batches[:snapshot.n]
                                       if b.standin}
    assert total >= snapshot.n
    table.run_to_end()
    assert back.verdict is not None and back.verdict.ok


def test_a_player_back_from_a_long_silence_hears_the_batches_the_snapshot_skipped() -> None:
    table = Table(2, seed=84, away_after=1.0, grace=0.5)
    table.run(lambda: len(table.host.batches) >= 4 and table.state.phase == Phase.PLAY)
    me = table.at_seat(0)
    before = me.applied
    table.peer(me).deaf = True
    table.peer(me).paused = True
    table.run(lambda: len(table.host.batches) >= before + CHUNK + 5)
    table.peer(me).deaf = False
    table.peer(me).paused = False
    # Its heartbeat (it had not heard its turn come: an idle seat's, protocol 8): far
    # behind, the host answers with a snapshot.
    table.advance(IDLE_HEARTBEAT)
    table.pump()
    missed = [m.n for m in table.notices_of(me, Missed)]
    (snapshot,) = table.notices_of(me, Resynced)
    assert missed == list(range(before + 1, snapshot.n + 1))


def test_a_spectator_whose_buffer_fills_with_live_batches_still_fills_its_gap(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A spectator catching up on a fast game (bots at full speed, a spectator that
    joined late or reconnected) hears live batches far ahead of its gap while its budget
    paces the chunks: the batches that fill the gap must find room, or it never moves."""
    monkeypatch.setattr(follower_module, "MAX_BUFFER", 2 * CHUNK)
    table = long_game(84, 2 * CHUNK)
    one = history_bytes(table, 1, CHUNK)
    table.host.budgets = HostBudgets(HostLimits(spectator_history=Limit(one, one / 4)))
    late = table.add_player("late", watch=True)
    table.pump()
    assert late.applied == CHUNK  # one chunk in the burst, the rest paced
    target = len(table.host.batches) + 4 * CHUNK  # more than the buffer holds, no time passing
    table.run(lambda: len(table.host.batches) >= target or table.host.over)
    assert len(late.follower.ahead) == 2 * CHUNK
    table.run_to_end()
    numbers = [n.n for n in table.notices_of(late, Applied)]
    assert numbers == list(range(1, len(table.host.batches) + 1))
    assert late.verdict is not None and late.verdict.ok
