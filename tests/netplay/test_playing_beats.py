"""The peer's own heartbeats, driven alone with a fake clock: none before a welcome, every
HEARTBEAT while the table waits for the seat and every IDLE_HEARTBEAT while it doesn't,
an action stands for a beat, and a beat the host's answer made needless is not sent."""

from __future__ import annotations

from typing import Any

from netplay.clock import BEAT_JITTER
from netplay.playing.beats import HEARTBEAT, IDLE_HEARTBEAT, OwnBeats

from .playing_game import Peer, follower_for, public_game


def _beats(seat: int | None = None, *, dealt: bool = False
           ) -> tuple[Peer, OwnBeats, list[dict[str, Any]]]:
    peer = Peer(watch=seat is None, seat=seat, joined=False)
    follower = follower_for(peer)
    if dealt:
        follower.take_facts(public_game().start)
    sent: list[dict[str, Any]] = []
    return peer, OwnBeats(peer, follower, 0.0, send=sent.append), sent


def test_no_beat_before_the_welcome_then_one_at_once() -> None:
    peer, beats, sent = _beats()
    assert beats.next_deadline(0.0) is None
    beats.tick(100.0)
    assert sent == []
    peer.joined = True
    assert beats.next_deadline(100.0) == 0.0
    beats.tick(100.0)
    assert sent == [{"at": 0}]
    due = beats.next_deadline(100.0)
    assert due is not None and 100.0 + HEARTBEAT * (1 - BEAT_JITTER) <= due <= 100.0 + HEARTBEAT


def test_a_seat_not_to_move_beats_less_often_and_its_turn_brings_the_next_beat_near() -> None:
    game = public_game()
    peer, beats, _ = _beats(seat=0, dealt=True)
    peer.joined = True
    follower = beats.follower
    batches = iter(game.seat_batches)
    while beats.waited():  # to another seat's turn
        follower.queue(next(batches), 1.0)
    assert beats.interval() == IDLE_HEARTBEAT
    beats.next_at = 50.0
    beats.progressed(2.0)
    assert beats.next_at == 50.0  # not waited for: no nearer beat
    while not beats.waited():  # to seat 0's turn (the follower calls progressed)
        follower.queue(next(batches), 3.0)
        beats.progressed(3.0)
    assert beats.interval() == HEARTBEAT
    assert 3.0 + HEARTBEAT * (1 - BEAT_JITTER) <= beats.next_at <= 3.0 + HEARTBEAT


def test_a_spectator_and_a_seat_before_the_deal_are_always_waited_for() -> None:
    _, spectator, _ = _beats(seat=None, dealt=True)
    _, undealt, _ = _beats(seat=1)
    assert spectator.interval() == HEARTBEAT and undealt.interval() == HEARTBEAT


def test_an_action_answered_on_our_own_channel_stands_for_the_beat() -> None:
    peer, beats, sent = _beats()
    peer.joined = True
    beats.tick(0.0)
    beats.acted(1.0)
    assert beats.next_at >= 1.0 + HEARTBEAT * (1 - BEAT_JITTER)
    beats.answered(1.2)
    beats.tick(beats.next_at)
    assert sent == [{"at": 0}]  # only the first: the action and its answer told it all
    assert beats.acted_at is None and beats.answered_at is None


def test_an_action_not_answered_does_not_spare_the_beat() -> None:
    peer, beats, sent = _beats()
    peer.joined = True
    beats.tick(0.0)
    beats.acted(1.0)
    beats.tick(beats.next_at)
    assert len(sent) == 2


def test_a_peer_that_knows_it_misses_a_batch_beats_anyway() -> None:
    peer, beats, sent = _beats()
    peer.joined = True
    beats.tick(0.0)
    beats.acted(1.0)
    beats.answered(1.2)
    beats.follower.gap_since = 1.1
    beats.tick(beats.next_at)
    assert len(sent) == 2
