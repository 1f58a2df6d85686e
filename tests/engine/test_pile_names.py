"""Pile names: a pile gets one letter when it opens and keeps it, on every peer."""

from __future__ import annotations

import pytest

from engine.actions import PlayCard
from engine.cards import Colour
from engine.errors import MalformedError
from engine.snapshot import state_from_wire, state_to_wire
from engine.state import NEW_PILE, PILE_NAMES, default_pile_name
from engine.views import public_hash, view_for
from tests.engine.scenario import Cards, act, illegal, pile, table


def test_a_new_pile_is_named_by_its_id_in_turn() -> None:
    c = Cards()
    r1 = c("R1")
    state = table(hands={1: [r1, c("B2")]},
                  piles=[pile(0, Colour.RED, c.many("R1", "R2"))])
    act(state, PlayCard(1, r1, NEW_PILE))
    assert [p.name for p in state.piles] == ["a", "c"]
    assert state.piles[1].label() == "Red pile c"


def test_a_name_still_held_by_an_open_pile_is_skipped() -> None:
    c = Cards()
    r1 = c("R1")
    size = len(PILE_NAMES)
    # Pile 0 ("a") is still open when pile `size` opens: that one would be "a" too.
    state = table(hands={1: [r1]}, piles=[pile(0, Colour.BLUE, c.many("B1"))])
    state.next_pile_id = size
    act(state, PlayCard(1, r1, NEW_PILE))
    assert [p.name for p in state.piles] == ["a", PILE_NAMES[1]]


def test_refusals_name_the_pile_by_its_letter() -> None:
    c = Cards()
    r4 = c("R4")
    state = table(hands={1: [r4]}, piles=[pile(3, Colour.BLUE, c.many("B1", "B2", "B3"))])
    illegal(state, PlayCard(1, r4, 3), "Blue pile f", "colours differ")


def test_a_snapshot_carries_pile_names_to_a_rejoining_peer() -> None:
    c = Cards()
    state = table(hands={1: [c("R1")]}, piles=[pile(5, Colour.RED, c.many("R1"))])
    state.piles[0].name = "z"
    view = view_for(state, 1)
    again = state_from_wire(state_to_wire(view))
    assert [p.name for p in again.piles] == ["z"]
    assert public_hash(again) == public_hash(view)


def test_a_snapshot_without_names_gets_the_usual_ones() -> None:
    c = Cards()
    state = table(hands={1: [c("R1")]}, piles=[pile(4, Colour.RED, c.many("R1"))])
    wire = state_to_wire(view_for(state, 1))
    wire["piles"] = [p[:3] for p in wire["piles"]]
    assert [p.name for p in state_from_wire(wire).piles] == [default_pile_name(4)]


@pytest.mark.parametrize("name", ["", "e", "A", "a" * 20, 7])
def test_a_snapshot_with_a_bad_pile_name_is_refused(name: object) -> None:
    c = Cards()
    state = table(hands={1: [c("R1")]}, piles=[pile(0, Colour.RED, c.many("R1"))])
    wire = state_to_wire(view_for(state, 1))
    wire["piles"][0][3] = name
    with pytest.raises(MalformedError):
        state_from_wire(wire)


def test_two_open_piles_with_one_name_is_an_impossible_snapshot() -> None:
    c = Cards()
    state = table(hands={1: [c("R1")]}, piles=[pile(0, Colour.RED, c.many("R1")),
                                              pile(1, Colour.BLUE, c.many("B1"))])
    wire = state_to_wire(view_for(state, 1))
    wire["piles"][1][3] = "a"
    with pytest.raises(MalformedError, match="share a name"):
        state_from_wire(wire)
