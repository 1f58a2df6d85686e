"""RULES.md §1.9 chips and §1.10 the win condition, A4."""

from __future__ import annotations

from typing import Any

from engine.actions import Block, Discard, PassBlock, PlayCard, StealChip
from engine.cards import Colour
from engine.config import RulesConfig
from engine.events import CardsDrawn, ChipAwarded, GameOver
from engine.rules import legal_actions
from engine.state import Outcome, Phase, State, Termination
from tests.engine.scenario import Cards, act, illegal, of_type, one, pile, table, types

RED, BLUE = Colour.RED, Colour.BLUE


def _about_to_complete(
    c: Cards,
    held: tuple[int, int],
    colour: Colour,
    *,
    hand: list[int] | None = None,
    **kwargs: Any,
) -> tuple[State, int]:
    """Seat 1 holds ``held`` chips and a 5 for a 4-high pile 0 of ``colour``."""
    five = c(f"{colour.letter}5")
    base = c.many(*(f"{colour.letter}{r}" for r in range(1, 5)))
    hands = dict(kwargs.pop("hands", {}))
    hands[1] = [five, *(c.many("R3", "B3") if hand is None else hand)]
    all_chips = dict(kwargs.pop("chips", {}))
    all_chips[1] = held
    state = table(hands=hands, piles=[pile(0, colour, base)], chips=all_chips, **kwargs)
    return state, five


def _total(state: State, colour: Colour) -> int:
    return state.supply[colour] + sum(chips[colour] for chips in state.chips)


def test_1_9_chips_are_conserved_and_change_only_by_completion_and_steals() -> None:
    c = Cards()
    steal, r3 = c("STEAL_CHIP"), c("R3")
    state, five = _about_to_complete(c, (0, 0), BLUE, hand=[steal, r3], chips={2: (1, 0)})
    before = [list(ch) for ch in state.chips]
    act(state, PlayCard(1, five, 0))
    assert state.chips[1] == [0, 1]
    act(state, StealChip(1, steal, 2, RED))
    assert state.chips[1] == [1, 1]
    assert state.chips[2] == [0, 0]
    after_steal = [list(ch) for ch in state.chips]
    act(state, Discard(1, r3))  # discarding and drawing never touch chips
    assert state.chips == after_steal
    assert state.chips != before
    assert _total(state, RED) == 20
    assert _total(state, BLUE) == 20


def test_1_10_five_chips_with_two_of_each_colour_wins_at_once() -> None:
    c = Cards()
    state, five = _about_to_complete(c, (3, 1), BLUE)
    events = act(state, PlayCard(1, five, 0))
    assert events[-1] == GameOver(Termination.WIN, 1)
    assert state.outcome == Outcome(Termination.WIN, 1)
    assert state.phase == Phase.GAME_OVER
    assert state.chips[1] == [3, 2]


def test_1_10_the_win_ends_the_game_before_discard_and_refill() -> None:
    c = Cards()
    state, five = _about_to_complete(c, (1, 3), RED, hand=[])
    events = act(state, PlayCard(1, five, 0))
    assert types(events)[-2:] == ["ChipAwarded", "GameOver"]
    assert not of_type(events, CardsDrawn)  # the emptied hand is not refilled
    assert state.hands[1] == []
    assert legal_actions(state, 1) == []
    state2, five2 = _about_to_complete(Cards(), (1, 3), RED)
    act(state2, PlayCard(1, five2, 0))
    illegal(state2, Discard(1, state2.hands[1][0]), "game is over")


def test_1_10_the_win_is_checked_after_the_block_window_closes() -> None:
    c = Cards()
    state, five = _about_to_complete(c, (3, 1), BLUE, hands={2: [c("BLOCK")]})
    events = act(state, PlayCard(1, five, 0))
    assert not of_type(events, GameOver)
    assert state.phase == Phase.BLOCK_WINDOW
    events = act(state, PassBlock(2))
    assert events[-1] == GameOver(Termination.WIN, 1)


def test_1_10_a_blocked_completion_cannot_win() -> None:
    c = Cards()
    block = c("BLOCK")
    state, five = _about_to_complete(c, (3, 1), BLUE, hands={2: [block]})
    events = act(state, PlayCard(1, five, 0), Block(2, block))
    assert not of_type(events, GameOver)
    assert state.outcome is None
    assert state.chips[1] == [3, 1]


def test_A4_five_of_one_colour_does_not_win_by_default() -> None:
    c = Cards()
    state, five = _about_to_complete(c, (4, 1), RED)
    events = act(state, PlayCard(1, five, 0))
    assert one(events, ChipAwarded) == ChipAwarded(1, RED)
    assert not of_type(events, GameOver)
    assert state.chips[1] == [5, 1]
    assert state.phase == Phase.PLAY


def test_1_10_chip_counts_above_five_are_allowed_and_win_once_both_colours_reach_two() -> None:
    c = Cards()
    state, five = _about_to_complete(c, (6, 0), BLUE)
    events = act(state, PlayCard(1, five, 0))
    assert not of_type(events, GameOver)
    assert state.chips[1] == [6, 1]
    c2 = Cards()
    state2, five2 = _about_to_complete(c2, (6, 1), BLUE)
    assert act(state2, PlayCard(1, five2, 0))[-1] == GameOver(Termination.WIN, 1)


def test_A4_win_min_each_colour_zero_lets_one_colour_win() -> None:
    c = Cards()
    config = RulesConfig(win_min_each_colour=0)
    state, five = _about_to_complete(c, (4, 0), RED, config=config)
    events = act(state, PlayCard(1, five, 0))
    assert events[-1] == GameOver(Termination.WIN, 1)


def test_A4_win_chips_setting() -> None:
    c = Cards()
    config = RulesConfig(win_chips=3, win_min_each_colour=1)
    state, five = _about_to_complete(c, (1, 1), RED, config=config)
    assert act(state, PlayCard(1, five, 0))[-1] == GameOver(Termination.WIN, 1)
    c2 = Cards()
    state2, five2 = _about_to_complete(c2, (2, 0), RED, config=config)
    assert not of_type(act(state2, PlayCard(1, five2, 0)), GameOver)


def test_A16_no_chip_from_an_empty_supply_means_no_win() -> None:
    c = Cards()
    state, five = _about_to_complete(c, (3, 1), BLUE, chips={0: (0, 19)})
    assert state.supply[BLUE] == 0
    events = act(state, PlayCard(1, five, 0))
    assert not of_type(events, ChipAwarded)
    assert not of_type(events, GameOver)
