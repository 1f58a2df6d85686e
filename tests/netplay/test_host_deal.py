"""The deal's rounds (``netplay.hosting.deal``): every player reveals the entropy it
committed to, then the host deals; a reveal that breaks its commitment frees the seat, a
player away at the reveal is dealt without (held), a late one loses the seat."""

from __future__ import annotations

import pytest

from netplay.entropy import COMMIT, REVEAL, REVEAL_WAIT, entropy_commitment
from netplay.errors import FrameError
from netplay.host import HostSession, HostSettings
from netplay.hosting.seats import SeatInfo
from netplay.hosting.state import Stage

from .harness import SHORT, identity_for

KEYS = [identity_for(9, f"p{i}").key for i in range(2)]
ENTROPIES = [bytes([i + 1]) * 32 for i in range(2)]


def _host(*, committed: bool = True) -> HostSession:
    host = HostSession(identity_for(9, "host"), HostSettings("deal", 2, rules=SHORT), 0.0)
    for seat, key in enumerate(KEYS):
        commit = entropy_commitment(ENTROPIES[seat]) if committed else None
        host.lobby.seat(seat, SeatInfo(f"p{seat}", key, b"", commit=commit), None)
    host.deal.seats_full()
    return host


def _reveal(host: HostSession, seat: int, entropy: bytes | None = None) -> None:
    host.deal.entropy(KEYS[seat], {"round": host.deal.round.number,
                                   "entropy": entropy or ENTROPIES[seat]})


def test_every_reveal_in_deals_with_the_commitments_the_reveal_round_listed() -> None:
    host = _host()
    assert host.state.stage is Stage.DEALING and host.deal.round.phase == REVEAL
    assert host.deal.next_deadline(0.0) == REVEAL_WAIT
    _reveal(host, 0)
    assert host.game is None and host.deal.round.waiting == {1}
    _reveal(host, 1)
    assert host.game is not None and host.state.stage is Stage.PLAYING
    assert host.deal.reveal_commits == [entropy_commitment(e) for e in ENTROPIES]
    assert [e["t"] for e in host.journal_to_write() if e["t"] in ("reveal", "start")] == [
        "reveal", "reveal", "start"]


def test_players_without_commitments_commit_first() -> None:
    host = _host(committed=False)
    assert host.deal.round.phase == COMMIT and host.deal.round.waiting == {0, 1}
    for seat, key in enumerate(KEYS):
        host.deal.entropy(key, {"round": host.deal.round.number,
                                "commit": entropy_commitment(ENTROPIES[seat])})
    assert host.deal.round.phase == REVEAL


def test_a_reveal_that_breaks_its_commitment_frees_the_seat_and_voids_the_round() -> None:
    host = _host()
    _reveal(host, 0, b"\xee" * 32)
    assert host.seats[0] is None and host.state.stage is Stage.LOBBY
    assert host.seats[1] is not None and host.seats[1].commit is None  # commits afresh
    assert host.deal.round.phase is None


def test_entropy_for_another_round_is_dropped_in_words() -> None:
    host = _host()
    with pytest.raises(FrameError, match="no round the host is in"):
        host.deal.entropy(KEYS[0], {"round": 99, "entropy": ENTROPIES[0]})


def test_players_away_at_the_reveal_are_dealt_without() -> None:
    host = _host()
    _reveal(host, 0)
    host.now = REVEAL_WAIT + 100.0  # seat 1 silent since 0: away
    seat0 = host.seats[0]
    assert seat0 is not None
    seat0.last_seen = host.now
    host.deal.tick(host.now)
    held = host.seats[1]
    assert held is not None and held.held and held.commit is None
    assert host.deal.round.phase == COMMIT and host.deal.round.waiting == {0}
    assert any(e["t"] == "hold" for e in host.journal_to_write())


def test_a_present_player_that_does_not_reveal_in_time_loses_the_seat() -> None:
    host = _host()
    _reveal(host, 0)
    host.now = REVEAL_WAIT
    for info in host.seats:
        assert info is not None
        info.last_seen = host.now
    host.deal.tick(host.now)
    assert host.seats[1] is None and host.seats[0] is not None
    assert host.state.stage is Stage.LOBBY
