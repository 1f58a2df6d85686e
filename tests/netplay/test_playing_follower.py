"""The batch follower, driven alone through its own interface with a real game's frames:
batches apply in order and only so, a gap is asked for after GAP_WAIT (and not more
often than RESYNC_EVERY), a hash that differs is a desync repaired by a snapshot, a lost
start is asked for, and a duplicate is kept, not applied twice."""

from __future__ import annotations

from dataclasses import replace

from netplay.playing.follower import GAP_WAIT, RESYNC_EVERY
from netplay.playing.notices import Applied, Desynced, GameEnded, GameStarted
from netplay.playing.pending_actions import PendingActions

from .playing_game import Peer, follower_for, public_game


def test_batches_in_order_apply_one_by_one_to_the_end() -> None:
    game = public_game()
    peer = Peer()
    follower = follower_for(peer)
    follower.take_facts(game.start)
    assert follower.view is not None and follower.facts is not None
    for batch in game.batches:
        follower.queue(batch, 0.0)
    assert follower.applied == len(game.batches) and follower.in_step
    applied = [n for n in peer.told if isinstance(n, Applied)]
    assert [n.n for n in applied] == [b.n for b in game.batches]
    assert isinstance(peer.told[-1], GameEnded)
    assert follower.definition.public_hash(follower.view) == game.batches[-1].hash
    assert peer.to_host == [] and not any(isinstance(n, GameStarted) for n in peer.told)


def test_a_batch_ahead_waits_for_the_gap_which_is_asked_for_after_a_while() -> None:
    game = public_game()
    peer = Peer()
    follower = follower_for(peer)
    follower.take_facts(game.start)
    follower.queue(game.batches[0], 10.0)
    follower.queue(game.batches[2], 10.0)
    assert follower.applied == 1 and set(follower.ahead) == {3}
    assert follower.gap_since == 10.0 and not follower.in_step
    assert follower.next_deadline(10.0) == 10.0 + GAP_WAIT
    follower.tick(10.0 + GAP_WAIT / 2)
    assert peer.asks() == []
    follower.tick(10.0 + GAP_WAIT)
    assert peer.asks() == [{"from": 2, "snapshot": False, "reason": "gap"}]
    follower.queue(game.batches[1], 11.0)
    assert follower.applied == 3 and not follower.ahead and follower.gap_since is None


def test_asks_for_the_same_gap_are_paced() -> None:
    game = public_game()
    peer = Peer()
    follower = follower_for(peer)
    follower.take_facts(game.start)
    follower.queue(game.batches[2], 0.0)
    follower.tick(GAP_WAIT)
    follower.gap_since = GAP_WAIT  # still missing: found again at once
    follower.tick(2 * GAP_WAIT)
    assert len(peer.asks("gap")) == 1
    assert follower.next_deadline(2 * GAP_WAIT) == GAP_WAIT + RESYNC_EVERY
    follower.tick(GAP_WAIT + RESYNC_EVERY)
    assert len(peer.asks("gap")) == 2


def test_a_batch_whose_hash_differs_is_a_desync_reported_and_repaired_by_a_snapshot() -> None:
    game = public_game()
    peer = Peer()
    follower = follower_for(peer)
    follower.take_facts(game.start)
    follower.queue(replace(game.batches[0], hash="0" * 64), 5.0)
    assert [type(n) for n in peer.told] == [Desynced]
    assert [t for t, _ in peer.reported] == ["desync"]
    assert peer.asks("desync") == [{"from": 1, "snapshot": True, "reason": "desync"}]
    # The view moved on to the batch (its events applied): the next one, wrong too, is
    # asked for again at once (a desync's ask is not paced).
    follower.queue(replace(game.batches[1], hash="1" * 64), 5.1)
    assert len(peer.asks("desync")) == 2 and peer.asks("desync")[1]["from"] == 2


def test_a_lost_start_is_asked_for_and_batches_wait_for_it() -> None:
    game = public_game()
    peer = Peer()
    follower = follower_for(peer)
    follower.queue(game.batches[0], 0.0)
    assert follower.applied == 0 and follower.start_missing()
    follower.note_start(0.0)
    assert follower.next_deadline(0.0) == GAP_WAIT
    follower.tick(GAP_WAIT)
    # One ask (the gap's and the start's are one), the game's facts first.
    assert peer.asks() == [{"from": 1, "snapshot": False, "reason": "gap", "start": True}]
    follower.take_facts(game.start)
    follower.drain(1.0)
    follower.note_start(1.0)
    assert follower.applied == 1 and follower.no_start_since is None


def test_behind_a_spectator_delay_a_start_not_come_is_not_missing() -> None:
    peer = Peer(announce={"status": "playing", "spectator_delay": 30})
    assert not follower_for(peer).start_missing()
    peer.seat = 0
    peer.watch = False
    assert follower_for(peer).start_missing()


def test_a_duplicate_is_kept_for_the_check_and_not_applied_twice() -> None:
    game = public_game()
    peer = Peer()
    follower = follower_for(peer)
    follower.take_facts(game.start)
    follower.queue(game.batches[0], 0.0)
    told = len(peer.told)
    follower.queue(game.batches[0], 0.1)
    assert follower.applied == 1 and len(peer.told) == told
    assert peer.kept == [0.0, 0.1]


def test_a_batch_carrying_an_actions_proof_answers_it() -> None:
    game = public_game()
    proved = next(b for b in game.batches if b.proof is not None)
    actions = PendingActions("t1", lambda _: True)
    actions.sent(proved.proof or b"", 0.0)
    peer = Peer()
    follower = follower_for(peer, actions)
    follower.take_facts(game.start)
    for batch in game.batches[:proved.n]:
        follower.queue(batch, 0.0)
    assert not actions


def test_a_spectator_behind_the_host_catches_up_in_chunks() -> None:
    game = public_game()
    peer = Peer()
    follower = follower_for(peer)
    follower.take_facts(game.start)
    follower.host_at(len(game.batches), None, 3.0)
    assert peer.to_host == [("resync", {"from": 1, "snapshot": False,
                                        "reason": "catch-up", "history": True})]
    assert follower.chunk is not None and follower.chunk.first == 1
    follower.host_at(len(game.batches), None, 3.5)  # one chunk in flight at a time
    assert len(peer.to_host) == 1


def test_behind_a_spectator_delay_a_spectator_counts_only_what_it_may_have() -> None:
    game = public_game()
    spectator, seat = Peer(), Peer(watch=False, seat=0)
    watching, seated = follower_for(spectator), follower_for(seat)
    watching.take_facts(game.start)
    for follower in (watching, seated):
        follower.host_at(10, 4, 1.0)
    assert watching.known == 4 and seated.known == 10
    watching.host_at(10, 12, 2.0)  # more than published: not believed
    assert watching.known == 10
