"""Catch-up in bulk: a late spectator of a long game gets its whole history in a few
``history`` frames, every batch still checked, as fast as its byte budget allows; a flood
of catch-up requests costs the host no more than that budget; a spectator delay still
holds back what is not due."""

from __future__ import annotations

from typing import Any

import pytest

from engine.config import RulesConfig
from engine.games import STACKS
from engine.state import SPECTATOR
from netplay.codec import decode, pack, unpack
from netplay.errors import FrameError
from netplay.history import FRAME_BYTES, batches, frames
from netplay.player import PlayerSession
from netplay.playing.notices import Applied

from .harness import Table, forge

LONG = RulesConfig(win_chips=40, win_min_each_colour=10, unlimited_chips=True)
"""Rules for a long game: well over a thousand batches at six players."""


def long_game(seed: int, batches: int, **settings: Any) -> Table:
    table = Table(6, seed=seed, rules=LONG, **settings)
    table.run(lambda: len(table.host.batches) >= batches or table.host.over)
    assert not table.host.over, "the game ended too soon for this test"
    return table


def history_sent(table: Table, peer: PlayerSession, since: int) -> list[bytes]:
    """Every packed batch the host sent ``peer`` in history frames since log entry ``since``."""
    inbox = table.topics.inbox(peer.peer_id)
    out: list[bytes] = []
    for topic, payload in table.broker.log[since:]:
        if topic == inbox:
            frame = decode(payload)
            if frame.type == "history":
                out.extend(frame.body["batches"])
    return out


def test_a_late_spectator_of_a_long_game_gets_it_all_at_once_and_verifies_it() -> None:
    table = long_game(91, 1200)
    total = len(table.host.batches)
    mark = len(table.broker.log)
    late = table.add_player("late", watch=True)
    table.pump()  # no time passes: the whole history comes in the budget's burst
    assert late.applied == total
    table.assert_in_step([late])
    inbox = table.topics.inbox(late.peer_id)
    answers = [decode(p) for t, p in table.broker.log[mark:] if t == inbox]
    # A frame per ~150 batches, not one per batch.
    assert sum(1 for f in answers if f.type == "history") <= total // 100
    assert not [f for f in answers if f.type in ("events", "snapshot")]
    table.run_to_end()
    numbers = [n.n for n in table.notices_of(late, Applied)]
    assert numbers == list(range(1, len(table.host.batches) + 1))
    assert late.verdict is not None and late.verdict.ok


def test_a_flood_of_catch_up_requests_from_one_spectator_costs_at_most_its_budget() -> None:
    table = long_game(92, 1000)
    spy = table.add_player("spy", watch=True)
    table.pump()
    assert spy.applied == len(table.host.batches)
    # Its own catch-up spent part of the burst; every request of the flood asks for the
    # whole history again, from batch 1 (no time passes).
    limits = table.host.budgets.limits
    mark = len(table.broker.log)
    for _ in range(1000):
        table.to_host(forge(spy.identity, "resync", {"from": 1, "snapshot": False,
                                                      "reason": "catch-up", "history": True}),
                      table.out_topic(spy))
        table.to_host(forge(spy.identity, "heartbeat", {"at": 0}), table.out_topic(spy))
    sent = history_sent(table, spy, mark)
    assert sent  # answered while the budget lasts...
    assert sum(map(len, sent)) <= limits.spectator_history.burst  # ...and no further
    assert table.host.budgets.frames["spectator"].dropped(spy.peer_id) > 1900
    # A second spectator still catches up (the shared bucket holds more than one's), and
    # a seated player behind still gets its batches at once.
    other = table.add_player("other", watch=True)
    table.pump()
    assert other.applied == len(table.host.batches)
    player = table.at_seat(0)
    mark = len(table.broker.log)
    table.to_host(forge(player.identity, "resync", {"from": player.applied - 3,
                                                    "snapshot": False, "reason": "gap"}),
                  table.out_topic(player))
    assert len(table.sent(table.topics.inbox(player.peer_id), "events", since=mark)) == 4
    # With time the spectator's budget refills at its rate, no faster.
    mark = len(table.broker.log)
    table.clock += 1.0
    for _ in range(20):
        table.to_host(forge(spy.identity, "resync", {"from": 1, "snapshot": False,
                                                      "reason": "catch-up", "history": True}),
                      table.out_topic(spy))
    assert 0 < sum(map(len, history_sent(table, spy, mark))) <= limits.spectator_history.rate


def test_a_delayed_spectator_catching_up_gets_nothing_before_it_is_due() -> None:
    delay = 5.0
    table = long_game(93, 700, spectator_delay=delay)
    table.advance(delay + 1)  # the first ~700 batches are due to spectators
    due = table.host.released
    assert due >= 700
    table.run(lambda: len(table.host.batches) >= due + 300 or table.host.over)
    assert not table.host.over and table.host.released == due  # no time has passed
    mark = len(table.broker.log)
    late = table.add_player("late", watch=True)
    table.pump()
    assert late.applied == due
    # It asks for what the players have, and claims to be far behind: nothing more comes.
    for start in (due + 1, 1):
        table.to_host(forge(late.identity, "resync", {"from": start, "snapshot": False,
                                                       "reason": "catch-up", "history": True}),
                      table.out_topic(late))
    table.to_host(forge(late.identity, "heartbeat", {"at": 0}), table.out_topic(late))
    numbers = [unpack(packed)["n"] for packed in history_sent(table, late, mark)]
    assert numbers and max(numbers) == due
    assert late.applied == due and late.secret is None
    table.run_to_end()
    for _ in range(40):
        if late.verdict is not None:
            break
        table.advance(0.5)
    assert [n.n for n in table.notices_of(late, Applied)] == list(
        range(1, len(table.host.batches) + 1))
    assert late.verdict is not None and late.verdict.ok


def test_history_frames_are_split_under_the_frame_limit() -> None:
    packed = [bytes(300)] * 1000 + [bytes(FRAME_BYTES)]
    groups = frames(packed)
    assert [b for group in groups for b in group] == packed
    assert all(sum(map(len, g)) <= FRAME_BYTES and 0 < len(g) <= 256 for g in groups)


@pytest.mark.parametrize("body, why", [
    ({}, "non-empty list"),
    ({"batches": []}, "non-empty list"),
    ({"batches": "x"}, "non-empty list"),
    ({"batches": [1]}, "packed bodies"),
    ({"batches": [b"\xc1"]}, "undecodable"),
    ({"batches": [pack([1, 2])]}, "not a map"),
    ({"batches": [pack({"n": 1})]}, "missing field"),
])
def test_a_malformed_history_frame_is_refused_in_words(body: dict[str, Any], why: str) -> None:
    with pytest.raises(FrameError, match=why):
        batches(body, STACKS)


def test_a_history_frame_with_a_hole_is_refused() -> None:
    table = long_game(94, 30)
    good = [pack(b.redacted_for(SPECTATOR).to_body()) for b in table.host.batches[:3]]
    assert [b.n for b in batches({"batches": good}, STACKS)] == [1, 2, 3]
    with pytest.raises(FrameError, match="consecutive"):
        batches({"batches": [good[0], good[2]]}, STACKS)
