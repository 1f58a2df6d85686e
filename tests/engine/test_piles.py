"""RULES.md §1.4 sequence piles, A6, A7, A12, A19."""

from __future__ import annotations

from engine.actions import Discard, EndTurn, PassBlock, PlayCard
from engine.cards import Colour
from engine.config import RulesConfig
from engine.events import CardPlayed, ChipAwarded, PileCompleted
from engine.rules import legal_actions
from engine.state import NEW_PILE, Phase, Zone
from tests.engine.scenario import Cards, act, illegal, one, pile, table


def test_1_4_1_a_red_1_starts_a_new_red_pile() -> None:
    c = Cards()
    r1 = c("R1")
    state = table(hands={1: [r1, *c.many("B3", "B4")]}, piles=[pile(4, Colour.BLUE, [c("B1")])])
    events = act(state, PlayCard(1, r1, NEW_PILE))
    assert one(events, CardPlayed) == CardPlayed(1, r1, Zone.HAND, 5, True)
    new = state.pile(5)
    assert new is not None
    assert new.colour == Colour.RED
    assert new.cards == [r1]
    assert state.next_pile_id == 6


def test_1_4_1_a_wild_starts_a_pile_of_its_colour_as_its_1() -> None:
    c = Cards()
    bw = c("BW")
    b2 = c("B2")
    state = table(hands={1: [bw, b2, c("R5")]})
    act(state, PlayCard(1, bw, NEW_PILE))
    assert state.piles[0].colour == Colour.BLUE
    assert state.piles[0].height == 1
    act(state, PlayCard(1, b2, state.piles[0].id))
    assert state.piles[0].height == 2


def test_1_4_1_a_pile_cannot_start_with_a_2_to_5() -> None:
    c = Cards()
    cards = c.many("R2", "R3", "R4", "R5", "B2")
    state = table(hands={1: cards})
    for card in cards:
        illegal(state, PlayCard(1, card, NEW_PILE), "can't start a pile", "a 1 or a wild")


def test_1_4_2_number_must_be_one_higher_than_pile() -> None:
    c = Cards()
    r3, r4 = c("R3"), c("R4")
    state = table(hands={1: [r3, r4]}, piles=[pile(0, Colour.RED, c.many("R1", "R2"))])
    message = illegal(state, PlayCard(1, r4, 0), "Red 4", "Red pile a", "needs a 3")
    assert "colours" not in message
    act(state, PlayCard(1, r3, 0))
    assert state.piles[0].height == 3


def test_1_4_2_number_cannot_be_played_lower_or_equal() -> None:
    c = Cards()
    r2, r3 = c("R2"), c("R3")
    state = table(hands={1: [r2, r3]}, piles=[pile(0, Colour.RED, c.many("R1", "R2", "R3"))])
    illegal(state, PlayCard(1, r2, 0), "needs a 4")
    illegal(state, PlayCard(1, r3, 0), "needs a 4")


def test_1_4_2_red_4_on_a_blue_pile_says_colours_differ() -> None:
    c = Cards()
    r4 = c("R4")
    state = table(hands={1: [r4]}, piles=[pile(2, Colour.BLUE, c.many("B1", "B2", "B3"))])
    illegal(state, PlayCard(1, r4, 2), "Red 4", "Blue pile d", "colours differ")


def test_1_4_2_playing_on_a_pile_that_does_not_exist_is_refused() -> None:
    c = Cards()
    r2 = c("R2")
    state = table(hands={1: [r2]}, piles=[pile(0, Colour.RED, [c("R1")])])
    illegal(state, PlayCard(1, r2, 7), "no open pile 7")


def test_1_4_2_A12_wild_takes_the_next_value_only() -> None:
    c = Cards()
    rw, r3, r4 = c("RW"), c("R3"), c("R4")
    state = table(hands={1: [rw, r3, r4]}, piles=[pile(0, Colour.RED, c.many("R1", "R2"))])
    act(state, PlayCard(1, rw, 0))
    assert state.piles[0].height == 3
    illegal(state, PlayCard(1, r3, 0), "needs a 4")
    act(state, PlayCard(1, r4, 0))
    assert state.piles[0].height == 4


def test_1_4_2_wild_plays_as_5_and_completes_the_pile() -> None:
    c = Cards()
    bw = c("BW")
    state = table(
        hands={1: [bw, c("R2")]},
        piles=[pile(0, Colour.BLUE, c.many("B1", "B2", "B3", "B4"))],
        rest="special_discard",  # every Block public: no Block window
    )
    events = act(state, PlayCard(1, bw, 0))
    assert one(events, PileCompleted).pile == 0
    assert one(events, ChipAwarded) == ChipAwarded(1, Colour.BLUE)
    assert state.piles == []


def test_1_4_3_at_most_two_open_piles_per_colour() -> None:
    c = Cards()
    r1, rw, b1 = c("R1"), c("RW"), c("B1")
    state = table(
        hands={1: [r1, rw, b1]},
        piles=[pile(0, Colour.RED, [c("R1")]), pile(1, Colour.RED, c.many("R1", "R2"))],
    )
    illegal(state, PlayCard(1, r1, NEW_PILE), "can't start a pile", "2 red piles")
    illegal(state, PlayCard(1, rw, NEW_PILE), "2 red piles")
    assert PlayCard(1, r1, NEW_PILE) not in legal_actions(state, 1)
    act(state, PlayCard(1, b1, NEW_PILE))  # the other colour has its own limit
    assert state.open_piles(Colour.BLUE) == 1


def test_1_4_3_a_completed_pile_frees_its_slot() -> None:
    c = Cards()
    r5, r1 = c("R5"), c("R1")
    state = table(
        hands={1: [r5, r1, c("B5")]},
        piles=[pile(0, Colour.RED, [c("R1")]), pile(1, Colour.RED, c.many("R1", "R2", "R3", "R4"))],
        rest="special_discard",
    )
    act(state, PlayCard(1, r5, 1))
    act(state, PlayCard(1, r1, NEW_PILE))
    assert state.open_piles(Colour.RED) == 2


def test_A7_max_open_piles_zero_means_no_limit() -> None:
    c = Cards()
    ones = c.many("R1", "R1", "R1", "R1")
    state = table(config=RulesConfig(max_open_piles_per_colour=0), hands={1: [*ones, c("B2")]})
    act(state, *(PlayCard(1, card, NEW_PILE) for card in ones))
    assert state.open_piles(Colour.RED) == 4


def test_A7_max_open_piles_setting_of_one() -> None:
    c = Cards()
    r1 = c("R1")
    state = table(
        config=RulesConfig(max_open_piles_per_colour=1),
        hands={1: [r1, c("B2")]},
        piles=[pile(0, Colour.RED, [c("R1")])],
    )
    illegal(state, PlayCard(1, r1, NEW_PILE), "1 red piles are already open")


def test_1_4_4_A19_anyone_may_add_to_any_pile_and_the_completer_takes_the_chip() -> None:
    c = Cards()
    r4, r5 = c("R4"), c("R5")
    state = table(
        hands={1: [c("B2"), c("B3")], 2: [r4, r5, c("B4")]},
        piles=[pile(0, Colour.RED, c.many("R1", "R2", "R3"))],  # started by someone else
        current=2,
    )
    events = act(state, PlayCard(2, r4, 0), PlayCard(2, r5, 0))
    # Seat 0 has no cards, seat 1 might hold a Block: only seat 1 may answer.
    assert one(events, PileCompleted) == PileCompleted(2, 0, False, (1,))
    events = act(state, PassBlock(1))
    assert one(events, ChipAwarded) == ChipAwarded(2, Colour.RED)
    assert state.chips[2] == [1, 0]
    assert state.chips[1] == [0, 0]


def test_1_4_5_A6_playing_is_optional() -> None:
    c = Cards()
    r2 = c("R2")
    state = table(
        hands={1: [r2, *c.many("R5", "B5", "B4", "B3")]}, piles=[pile(0, Colour.RED, [c("R1")])]
    )
    assert PlayCard(1, r2, 0) in legal_actions(state, 1)
    assert Discard(1, r2) in legal_actions(state, 1)
    act(state, Discard(1, r2))
    assert state.current == 2


def test_A6_forced_play_setting_refuses_to_end_the_turn_while_a_card_fits() -> None:
    c = Cards()
    r2, b5 = c("R2"), c("B5")
    state = table(
        config=RulesConfig(forced_play=True),
        hands={1: [r2, b5]},
        piles=[pile(0, Colour.RED, [c("R1")])],
    )
    illegal(state, Discard(1, b5), "must keep playing")
    assert all(not isinstance(a, Discard) for a in legal_actions(state, 1))
    act(state, PlayCard(1, r2, 0))
    act(state, Discard(1, b5))  # nothing fits any more: the turn may end
    assert state.current == 2


def test_A6_forced_play_counts_the_discard_top_and_blocks_end_turn() -> None:
    c = Cards()
    r2 = c("R2")
    state = table(
        config=RulesConfig(forced_play=True),
        hands={1: []},
        discards={1: [r2]},
        piles=[pile(0, Colour.RED, [c("R1")])],
    )
    illegal(state, EndTurn(1), "must keep playing")
    act(state, PlayCard(1, r2, 0), EndTurn(1))
    assert state.current == 2
    assert state.phase == Phase.PLAY


def test_a_pile_with_a_high_id_is_played_on_like_any_other() -> None:
    # legal_actions keeps the plays it has made for low pile ids; a long game's piles
    # beyond them get theirs made each time, listed and accepted all the same.
    c = Cards()
    b2, bw = c("B2"), c("BW")
    for pile_id in (3, 600):
        state = table(hands={1: [b2, bw]}, piles=[pile(pile_id, Colour.BLUE, [c("B1")])])
        legal = legal_actions(state, 1)
        assert PlayCard(1, b2, pile_id) in legal
        assert PlayCard(1, bw, pile_id) in legal
        act(state, PlayCard(1, b2, pile_id))
        assert state.pile(pile_id) is not None
