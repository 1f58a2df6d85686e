"""The end-of-game check, driven alone through its own interface with a real game's
frames: the reveal gives a verdict once every batch is in (history missing is asked for
first), an unfair deal fails it, a reveal sent again has the verdict said again, and only
a seat with a passing verdict has a record."""

from __future__ import annotations

from dataclasses import replace

import pytest

from netplay.errors import FrameError
from netplay.playing.deal_check import DealCheck
from netplay.playing.follower import RESYNC_EVERY, Follower
from netplay.playing.notices import Verified
from netplay.playing.verification import Verification

from .playing_game import Peer, follower_for, public_game


def _checked(batches: int | None = None) -> tuple[Peer, Follower, DealCheck, Verification]:
    game = public_game()
    peer = Peer()
    follower = follower_for(peer)
    follower.take_facts(game.start)
    for batch in game.batches[:batches]:
        follower.queue(batch, 0.0)
    deal = DealCheck("t1", lambda type_, body: None)
    verification = Verification(follower, deal, to_host=peer.send, tell=peer.told.append)
    return peer, follower, deal, verification


def test_a_reveal_after_every_batch_gives_a_passing_verdict_sent_to_the_host() -> None:
    peer, _, _, verification = _checked()
    verification.reveal(public_game().reveal, 1.0)
    assert verification.verdict is not None and verification.verdict.ok
    assert peer.told[-1] == Verified(verification.verdict)
    assert peer.to_host[-1] == ("verified", {"ok": True, "detail": verification.verdict.detail})


def test_a_reveal_sent_again_has_the_verdict_said_again_and_not_judged_anew() -> None:
    peer, _, _, verification = _checked()
    verification.reveal(public_game().reveal, 1.0)
    told = len(peer.told)
    verification.reveal(public_game().reveal, 2.0)
    assert [t for t, _ in peer.to_host] == ["verified", "verified"] and len(peer.told) == told


def test_an_unfair_deal_fails_the_verdict() -> None:
    _, _, deal, verification = _checked()
    deal.unfair = "the host dealt seat 0 with an entropy that is not ours"
    verification.reveal(public_game().reveal, 1.0)
    assert verification.verdict is not None and not verification.verdict.ok
    assert verification.verdict.detail == deal.unfair


def test_a_verdict_waits_for_the_batches_still_to_come() -> None:
    game = public_game()
    _, follower, _, verification = _checked(batches=len(game.batches) - 1)
    verification.reveal(game.reveal, 1.0)
    assert verification.verdict is None and verification.waiting
    assert verification.next_deadline(1.0) is None  # still catching up: no ask of its own
    follower.queue(game.batches[-1], 2.0)
    verification.retry(2.0)
    assert verification.verdict is not None and verification.verdict.ok


def test_history_missing_for_the_check_is_asked_for_and_again_later() -> None:
    game = public_game()
    peer, follower, _, verification = _checked()
    del follower.received[2]  # came inside a snapshot, say
    verification.reveal(game.reveal, 1.0)
    assert verification.verdict is None
    assert peer.asks("history") == [{"from": 2, "snapshot": False, "reason": "history"}]
    assert verification.next_deadline(1.0) == 1.0 + RESYNC_EVERY
    verification.tick(1.0 + RESYNC_EVERY)
    assert len(peer.asks("history")) == 2


def test_a_reveal_of_an_unknown_ending_is_refused() -> None:
    _, _, _, verification = _checked()
    with pytest.raises(FrameError, match="termination"):
        verification.reveal({**public_game().reveal, "termination": 99}, 1.0)


def test_only_a_seat_with_a_passing_verdict_has_a_record() -> None:
    _, follower, _, verification = _checked()
    assert verification.record(0, b"h" * 32, 5.0) is None  # no verdict yet
    verification.reveal(public_game().reveal, 1.0)
    assert verification.record(None, b"h" * 32, 5.0) is None  # a spectator
    record = verification.record(0, b"h" * 32, 5.0)
    assert record is not None and record["seat"] == 0 and record["ended_at"] == 5.0
    assert len(record["batches"]) == len(follower.received)
    assert verification.verdict is not None
    verification.verdict = replace(verification.verdict, ok=False)
    assert verification.record(0, b"h" * 32, 5.0) is None
