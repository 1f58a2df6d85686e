"""RULES.md §1.7 Steal a Card (A9) and Steal a Chip (A5, A20)."""

from __future__ import annotations

from engine.actions import Discard, PlayCard, StealCard, StealChip
from engine.cards import Colour
from engine.config import RulesConfig, StealChipWin
from engine.events import ActionPlayed, CardsDrawn, CardTaken, ChipTaken, GameOver
from engine.rng import Rng
from engine.rules import legal_actions
from engine.state import NEW_PILE, Phase, Zone
from tests.engine.scenario import Cards, act, illegal, of_type, one, table

RED, BLUE = Colour.RED, Colour.BLUE


def test_1_7_steal_a_card_takes_the_discard_top_and_exposes_the_card_below() -> None:
    c = Cards()
    steal, below, top = c("STEAL_CARD"), c("B2"), c("R1")
    state = table(hands={1: [steal, c("B5")]}, discards={2: [below, top]})
    events = act(state, StealCard(1, steal, 2, Zone.DISCARD))
    assert one(events, ActionPlayed) == ActionPlayed(1, steal, Zone.HAND)
    assert one(events, CardTaken) == CardTaken(1, 2, Zone.DISCARD, top)
    assert top in state.hands[1]
    assert state.discards[2] == [below]
    assert state.special_discard == [steal]
    # The stolen card may be played at once.
    act(state, PlayCard(1, top, NEW_PILE))
    assert state.piles[0].cards == [top]


def test_A9_steal_a_card_from_the_hand_takes_a_seeded_random_card() -> None:
    c = Cards()
    steal = c("STEAL_CARD")
    victim = c.many("R1", "R2", "B3", "BW", "SKIP")
    for seed in (b"seed", b"other", b"third"):
        state = table(hands={1: [steal], 2: victim})
        expected = victim[Rng(seed).below(len(victim))]
        events = act(state, StealCard(1, steal, 2, Zone.HAND), seed=seed)
        assert one(events, CardTaken) == CardTaken(1, 2, Zone.HAND, expected)
        assert expected in state.hands[1]
        assert sorted(state.hands[2]) == sorted(set(victim) - {expected})
        # A15: the steal was the last hand card: five are drawn, then the stolen card.
        assert state.hands[1][-1] == expected and len(state.hands[1]) == 6


def test_A15_steal_a_card_as_the_last_hand_card_draws_five_then_adds_the_stolen_card() -> None:
    c = Cards()
    steal, top = c("STEAL_CARD"), c("B2")
    draw = c.many("R1", "R2", "R3", "R4", "R5")  # the top of the draw pile is last
    for zone in (Zone.DISCARD, Zone.HAND):
        state = table(hands={1: [steal], 2: [c("B4")]}, discards={2: [top]}, draw=draw,
                      rest="out_of_play")
        taken = top if zone == Zone.DISCARD else state.hands[2][0]
        events = act(state, StealCard(1, steal, 2, zone))
        kinds = [type(e) for e in events]
        assert kinds == [ActionPlayed, CardsDrawn, CardTaken]
        assert one(events, CardsDrawn) == CardsDrawn(1, tuple(reversed(draw)))
        assert state.hands[1] == [*reversed(draw), taken]
        assert state.phase == Phase.PLAY and state.current == 1  # the turn goes on


def test_A15_steal_a_card_refills_nothing_while_the_hand_holds_cards() -> None:
    c = Cards()
    steal, keep, top = c("STEAL_CARD"), c("B5"), c("B2")
    state = table(hands={1: [steal, keep]}, discards={2: [top]})
    events = act(state, StealCard(1, steal, 2, Zone.DISCARD))
    assert not of_type(events, CardsDrawn)
    assert state.hands[1] == [keep, top]


def test_A15_a_steal_a_card_from_the_discard_top_never_refills() -> None:
    c = Cards()
    steal, top = c("STEAL_CARD"), c("B2")
    state = table(hands={1: []}, discards={1: [steal], 2: [top]})
    events = act(state, StealCard(1, steal, 2, Zone.DISCARD))
    assert not of_type(events, CardsDrawn)  # A23: only plays from the hand refill it
    assert state.hands[1] == [top]


def test_A9_hand_steal_picks_differ_between_seeds() -> None:
    # Uniform over the hand: with these seeds, more than one card can be taken.
    picks = {Rng(bytes([i])).below(5) for i in range(20)}
    assert len(picks) > 1
    c = Cards()
    steal = c("STEAL_CARD")
    victim = c.many("R1", "R2", "B3", "BW", "SKIP")
    taken = set()
    for i in range(20):
        state = table(hands={1: [steal], 2: victim})
        events = act(state, StealCard(1, steal, 2, Zone.HAND), seed=bytes([i]))
        taken.add(one(events, CardTaken).card)
    assert taken == {victim[p] for p in picks}


def test_A9_discard_only_setting_refuses_hand_steals() -> None:
    c = Cards()
    steal = c("STEAL_CARD")
    state = table(
        config=RulesConfig(steal_card_from_hand=False),
        hands={1: [steal, c("B5")], 2: c.many("R1", "R2")},
        discards={2: [c("B2")]},
    )
    illegal(state, StealCard(1, steal, 2, Zone.HAND), "only a discard top")
    steals = [a for a in legal_actions(state, 1) if isinstance(a, StealCard)]
    assert steals == [StealCard(1, steal, 2, Zone.DISCARD)]


def test_1_7_steal_a_card_needs_a_card_to_take_and_an_opponent() -> None:
    c = Cards()
    steal = c("STEAL_CARD")
    state = table(hands={1: [steal, c("B5")], 2: []}, discards={1: [c("B2")]})
    illegal(state, StealCard(1, steal, 2, Zone.DISCARD), "discard pile is empty")
    illegal(state, StealCard(1, steal, 2, Zone.HAND), "no cards in hand")
    illegal(state, StealCard(1, steal, 1, Zone.DISCARD), "opponent")
    illegal(state, StealCard(1, steal, 5, Zone.DISCARD), "no seat 5")
    assert not any(isinstance(a, StealCard) for a in legal_actions(state, 1))


def test_1_7_steal_a_card_from_the_discard_top_of_the_thief() -> None:
    c = Cards()
    steal, b2 = c("STEAL_CARD"), c("B2")
    state = table(hands={1: []}, discards={1: [steal], 2: [b2]})
    events = act(state, StealCard(1, steal, 2, Zone.DISCARD))
    assert one(events, ActionPlayed).zone == Zone.DISCARD
    assert state.hands[1] == [b2]


def test_1_7_steal_a_chip_moves_one_chip_of_the_chosen_colour() -> None:
    c = Cards()
    steal = c("STEAL_CHIP")
    state = table(hands={1: [steal, c("B5")]}, chips={2: (1, 2)})
    supply = list(state.supply)
    events = act(state, StealChip(1, steal, 2, BLUE))  # A20: the thief picks the colour
    assert one(events, ChipTaken) == ChipTaken(1, 2, BLUE)
    assert state.chips[1] == [0, 1]
    assert state.chips[2] == [1, 1]
    assert state.supply == supply
    assert state.special_discard == [steal]
    assert state.current == 1
    assert state.phase == Phase.PLAY


def test_1_7_steal_a_chip_needs_the_target_to_hold_that_colour() -> None:
    c = Cards()
    steal = c("STEAL_CHIP")
    state = table(hands={1: [steal, c("B5")]}, chips={2: (1, 0)})
    illegal(state, StealChip(1, steal, 0, RED), "seat 0 has no red chip")
    illegal(state, StealChip(1, steal, 2, BLUE), "no blue chip")
    illegal(state, StealChip(1, steal, 1, RED), "opponent")
    chips = [a for a in legal_actions(state, 1) if isinstance(a, StealChip)]
    assert chips == [StealChip(1, steal, 2, RED)]


def test_A5_steal_chip_illegal_when_it_would_win() -> None:
    c = Cards()
    steal = c("STEAL_CHIP")
    state = table(hands={1: [steal, c("B5")]}, chips={1: (2, 2), 2: (1, 1)})
    illegal(state, StealChip(1, steal, 2, RED), "can't be used to win", "3 red and 2 blue")
    illegal(state, StealChip(1, steal, 2, BLUE), "can't be used to win")
    assert not any(isinstance(a, StealChip) for a in legal_actions(state, 1))


def test_A5_steal_chip_is_legal_when_the_result_does_not_win() -> None:
    c = Cards()
    steal = c("STEAL_CHIP")
    # 3 red + 1 blue: a red chip makes 5 with only 1 blue (no win); a blue one would win.
    state = table(hands={1: [steal, c("B5")]}, chips={1: (3, 1), 2: (1, 1)})
    illegal(state, StealChip(1, steal, 2, BLUE), "can't be used to win")
    assert [a for a in legal_actions(state, 1) if isinstance(a, StealChip)] == [
        StealChip(1, steal, 2, RED)
    ]
    events = act(state, StealChip(1, steal, 2, RED))
    assert not of_type(events, GameOver)
    assert state.chips[1] == [4, 1]


def test_A5_no_win_check_setting_allows_the_steal_and_does_not_end_the_game() -> None:
    c = Cards()
    steal, b5 = c("STEAL_CHIP"), c("B5")
    config = RulesConfig(steal_chip_win=StealChipWin.NO_WIN_CHECK)
    state = table(config=config, hands={1: [steal, b5]}, chips={1: (2, 2), 2: (1, 1)})
    assert StealChip(1, steal, 2, RED) in legal_actions(state, 1)
    events = act(state, StealChip(1, steal, 2, RED))
    assert not of_type(events, GameOver)
    assert state.chips[1] == [3, 2]
    assert state.outcome is None
    act(state, Discard(1, b5))
    assert state.current == 2


def test_A15_steal_a_chip_as_the_last_hand_card_refills() -> None:
    c = Cards()
    steal = c("STEAL_CHIP")
    state = table(hands={1: [steal]}, chips={2: (1, 0)})
    events = act(state, StealChip(1, steal, 2, RED))
    assert len(one(events, CardsDrawn).cards) == 5


def test_1_7_steal_a_card_may_target_any_opponent() -> None:
    c = Cards()
    steal, top = c("STEAL_CARD"), c("R4")
    state = table(5, hands={1: [steal]}, discards={4: [top]}, rest="special_discard")
    act(state, StealCard(1, steal, 4, Zone.DISCARD))
    assert state.hands[1] == [top]
    assert state.discards[4] == []
