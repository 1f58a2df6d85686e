"""Who is at the table (``netplay.hosting.seats``): seats and spectators, and the typed key
a peer is known by (its verdict is kept by it), with the label the journal and the record
use."""

from __future__ import annotations

import pytest

from netplay import budget
from netplay.hosting.seats import SeatInfo, Seating, SeatRef, SpectatorRef, ref_from_label
from netplay.identity import peer_id

ANA, BOB, EVE = b"a" * 32, b"b" * 32, b"e" * 32


def _seating() -> Seating:
    seating = Seating(3)
    seating.seats[0] = SeatInfo("ana", ANA, b"")
    seating.seats[2] = SeatInfo("Bot 3", None, b"\0" * 32)
    seating.spectators[EVE] = "eve"
    return seating


def test_a_peer_is_known_by_its_seat_or_as_a_spectator_by_name() -> None:
    seating = _seating()
    assert seating.ref_of(ANA) == SeatRef(0) and seating.seat_of(ANA) == 0
    assert seating.ref_of(EVE) == SpectatorRef("eve") and seating.seat_of(EVE) is None
    assert seating.ref_of(BOB) == SpectatorRef("?")
    assert seating.known(ANA) and seating.known(EVE) and not seating.known(BOB)


@pytest.mark.parametrize("ref", [SeatRef(0), SeatRef(11), SpectatorRef("eve"),
                                 SpectatorRef("two words"), SpectatorRef("?")])
def test_a_peer_refs_label_reads_back_as_the_same_ref(ref: SeatRef | SpectatorRef) -> None:
    assert ref_from_label(ref.label) == ref


def test_the_labels_are_the_ones_records_have_always_had() -> None:
    assert SeatRef(2).label == "seat 2"
    assert SpectatorRef("eve").label == "spectator eve"


@pytest.mark.parametrize("label", ["", "seat", "seat x", "player 1", "seat -1"])
def test_a_label_that_names_no_peer_is_refused_in_words(label: str) -> None:
    with pytest.raises(ValueError, match="names neither a seat nor a spectator"):
        ref_from_label(label)


def test_the_seats_players_and_free_seats_are_read_off_the_seats() -> None:
    seating = _seating()
    assert seating.player_keys() == [ANA, None, None]
    assert [seat for seat, _ in seating.players()] == [0]
    assert seating.humans() == {0} and seating.free() == 1 and not seating.full()
    seating.seats[1] = SeatInfo("bob", BOB, b"", held=True)
    assert seating.humans() == {0} and seating.full() and seating.free() is None


def test_a_peers_budget_role_follows_the_seats_and_spectators_as_they_change() -> None:
    seating = _seating()
    assert seating.role(peer_id(ANA)) == budget.SEAT
    assert seating.role(peer_id(EVE)) == budget.SPECTATOR
    assert seating.role(peer_id(BOB)) == budget.STRANGER
    seating.seats[1] = SeatInfo("bob", BOB, b"")
    assert seating.role(peer_id(BOB)) == budget.SEAT
