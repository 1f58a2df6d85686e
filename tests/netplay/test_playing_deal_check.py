"""The deal check, driven alone through its own interface: a seat commits in a void round
and reveals only the entropy it committed to, and a start that deals it otherwise (another
entropy, the host's secret after its reveal, commitments changed after the reveals) is
found unfair."""

from __future__ import annotations

from typing import Any

import pytest

from engine.config import RulesConfig
from netplay.entropy import entropy_commitment
from netplay.errors import FrameError
from netplay.playing.deal_check import DealCheck
from netplay.verify import GameFacts

OTHER = entropy_commitment(b"o" * 32)


def _check() -> tuple[DealCheck, list[dict[str, Any]]]:
    sent: list[dict[str, Any]] = []

    def send(type_: str, body: dict[str, Any]) -> None:
        assert type_ == "entropy"
        sent.append(body)

    return DealCheck("t1", send), sent


def _round(number: int, phase: str, commits: list[bytes | None],
           held: list[int] | None = None) -> dict[str, Any]:
    body: dict[str, Any] = {"round": number, "phase": phase, "commits": commits}
    if held is not None:
        body["held"] = held
    return body


def _facts(entropies: tuple[bytes, bytes], commits: tuple[bytes | None, ...]) -> GameFacts:
    return GameFacts("t1", 2, RulesConfig(), (None, None), b"c" * 32, entropies, None,
                     commits)


def test_a_void_round_is_answered_with_a_commitment_and_the_reveal_with_its_entropy() -> None:
    deal, sent = _check()
    deal.round(_round(1, "commit", [None, OTHER]), seat=0)
    ours = entropy_commitment(deal.entropy)
    assert sent == [{"round": 1, "commit": ours}]
    deal.round(_round(2, "reveal", [ours, OTHER]), seat=0)
    assert sent[-1] == {"round": 2, "entropy": deal.entropy}
    assert deal.revealed == deal.entropy and deal.reveals[deal.entropy] == (ours, OTHER)
    deal.check_start(_facts((deal.entropy, b"o" * 32), (ours, OTHER)), seat=0)
    assert deal.unfair is None


def test_a_reveal_round_listing_a_commitment_not_ours_gets_no_reveal() -> None:
    deal, sent = _check()
    deal.round(_round(1, "reveal", [OTHER, OTHER]), seat=0)
    assert sent == [] and deal.revealed is None


def test_a_start_dealing_our_seat_another_entropy_is_unfair() -> None:
    deal, _ = _check()
    ours = entropy_commitment(deal.entropy)
    deal.round(_round(1, "reveal", [ours, OTHER]), seat=0)
    deal.check_start(_facts((b"x" * 32, b"o" * 32), (ours, OTHER)), seat=0)
    assert deal.unfair is not None and "not the entropy this player revealed" in deal.unfair


def test_a_seat_dealt_by_the_hosts_secret_after_its_reveal_is_unfair() -> None:
    deal, _ = _check()
    ours = entropy_commitment(deal.entropy)
    deal.round(_round(1, "reveal", [ours, OTHER]), seat=0)
    deal.round(_round(2, "reveal", [None, OTHER], held=[0]), seat=0)  # our seat held
    assert deal.held_after_reveal
    deal.check_start(_facts((b"x" * 32, b"o" * 32), (None, OTHER)), seat=0)
    assert deal.unfair is not None and "by its own secret" in deal.unfair


def test_commitments_changed_after_the_reveal_round_are_unfair_even_to_a_spectator() -> None:
    deal, sent = _check()
    ours = entropy_commitment(b"s" * 32)
    deal.round(_round(3, "reveal", [ours, OTHER]), seat=None)
    assert sent == [] and deal.first_reveal_round == (3, (ours, OTHER))
    changed = entropy_commitment(b"g" * 32)
    deal.check_start(_facts((b"s" * 32, b"g" * 32), (ours, changed)), seat=None)
    assert deal.unfair is not None and "seat 1" in deal.unfair


def test_a_lost_seat_voids_the_round_heard() -> None:
    deal, _ = _check()
    deal.round(_round(3, "reveal", [OTHER, OTHER]), seat=None)
    deal.seat_lost()
    assert deal.first_reveal_round is None


def test_joining_again_before_the_deal_after_a_reveal_commits_to_fresh_entropy() -> None:
    deal, _ = _check()
    first = deal.entropy
    assert deal.join_commitment(dealt=False) == entropy_commitment(first)
    deal.round(_round(1, "reveal", [entropy_commitment(first), OTHER]), seat=0)
    fresh = deal.join_commitment(dealt=False)
    assert deal.entropy != first and fresh == entropy_commitment(deal.entropy)


@pytest.mark.parametrize("commits", [[b"short", None], ["text", None]])
def test_a_round_with_malformed_commitments_is_refused(commits: list[Any]) -> None:
    deal, sent = _check()
    with pytest.raises(FrameError):
        deal.round(_round(1, "commit", commits), seat=0)
    assert sent == []


def test_a_round_without_our_seat_is_refused() -> None:
    deal, _ = _check()
    with pytest.raises(FrameError, match="without our seat"):
        deal.round(_round(1, "commit", [None]), seat=3)
