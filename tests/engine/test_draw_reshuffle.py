"""RULES.md §1.8 draw pile exhaustion and reshuffle, A8, A17."""

from __future__ import annotations

from engine.actions import Discard, PlayCard, PlaySkip
from engine.cards import Colour
from engine.config import RulesConfig
from engine.events import CardsDrawn, Reshuffled, TurnStarted
from engine.rng import Rng
from engine.state import NEW_PILE
from tests.engine.scenario import SEED, Cards, act, of_type, one, pile, table, types


def _shuffled(cards: list[int], seed: bytes = SEED) -> tuple[int, ...]:
    order = list(cards)
    Rng(seed).shuffle(order)
    return tuple(order)


def test_1_8_an_empty_draw_pile_reshuffles_the_out_of_play_pool() -> None:
    c = Cards()
    r3 = c("R3")
    pool = c.many("R1", "R2", "R3", "R4", "R5", "B1", "B2")
    skip = c("SKIP")
    open_pile = [c("B1")]
    discard = [c("B5")]
    state = table(
        hands={1: [r3]},
        out_of_play=pool,
        special_discard=[skip],
        piles=[pile(0, Colour.BLUE, open_pile)],
        discards={2: discard},
        rest=0,  # everything else lies in seat 0's discard pile
    )
    hands_before = [list(h) for h in state.hands]
    discards_before = [list(d) for d in state.discards]
    events = act(state, Discard(1, r3))
    expected = _shuffled(pool)
    assert one(events, Reshuffled) == Reshuffled(expected)
    # The draw continues from the new pile: its top is the end of the list.
    assert one(events, CardsDrawn).cards == tuple(reversed(expected[-5:]))
    assert state.draw_pile == list(expected[:2])
    assert state.out_of_play == []
    # A8: played action cards stay out; open piles, discards and hands are never reshuffled.
    assert state.special_discard == [skip]
    assert state.piles[0].cards == open_pile
    assert state.discards[2] == discards_before[2]
    assert state.discards[0] == discards_before[0]
    assert state.discards[1] == [r3]
    assert state.hands[2] == hands_before[2]


def test_1_8_the_draw_takes_what_is_left_then_reshuffles_for_the_rest() -> None:
    c = Cards()
    r3 = c("R3")
    last = c.many("B3", "B4")
    pool = c.many("R1", "R2", "R4", "R5")
    state = table(hands={1: [r3]}, draw=last, out_of_play=pool, rest="special_discard")
    events = act(state, Discard(1, r3))
    assert types(events)[:4] == ["CardDiscarded", "CardsDrawn", "Reshuffled", "CardsDrawn"]
    first, second = of_type(events, CardsDrawn)
    assert first.cards == (last[1], last[0])
    expected = _shuffled(pool)
    assert second.cards == tuple(reversed(expected))[:3]
    assert len(state.hands[1]) == 5
    assert state.draw_pile == [expected[0]]


def test_1_8_reshuffle_feeds_the_empty_hand_refill_too() -> None:
    c = Cards()
    r1 = c("R1")
    pool = c.many("B1", "B2", "B3", "B4", "B5", "BW")
    state = table(hands={1: [r1]}, out_of_play=pool, rest="special_discard")
    events = act(state, PlayCard(1, r1, NEW_PILE))
    assert types(events) == ["CardPlayed", "Reshuffled", "CardsDrawn"]
    assert len(state.hands[1]) == 5


def test_A8_reshuffle_includes_action_cards_setting() -> None:
    c = Cards()
    r3 = c("R3")
    pool = c.many("R1", "R2")
    played = c.many("SKIP", "STEAL_CHIP")
    state = table(
        config=RulesConfig(reshuffle_includes_action_cards=True),
        hands={1: [r3]},
        out_of_play=pool,
        special_discard=played,
        rest=2,
    )
    events = act(state, Discard(1, r3))
    assert sorted(one(events, Reshuffled).cards) == sorted(pool + played)
    assert one(events, Reshuffled).cards == _shuffled(pool + played)
    assert state.special_discard == []
    assert sorted(state.hands[1]) == sorted(pool + played)


def test_A8_by_default_action_cards_alone_are_no_reshuffle_pool() -> None:
    c = Cards()
    r3 = c("R3")
    state = table(hands={1: [r3]}, special_discard=c.many("SKIP", "REV"), rest=2)
    events = act(state, Discard(1, r3))
    assert not of_type(events, Reshuffled)
    assert not of_type(events, CardsDrawn)
    assert len(state.special_discard) == 2


def test_A17_draws_fail_quietly_when_both_are_empty_and_play_continues() -> None:
    c = Cards()
    r3, r1 = c("R3"), c("R1")
    state = table(hands={1: [r3, r1]}, rest="special_discard")
    events = act(state, PlayCard(1, r1, NEW_PILE))
    assert not of_type(events, CardsDrawn)
    events = act(state, Discard(1, r3))
    assert not of_type(events, CardsDrawn)
    assert not of_type(events, Reshuffled)
    assert state.hands[1] == []
    assert events[-1] == TurnStarted(2)
    assert state.outcome is None


def test_A17_an_empty_hand_refill_with_nothing_to_draw_leaves_the_hand_empty() -> None:
    c = Cards()
    skip = c("SKIP")
    state = table(hands={1: [skip]}, rest="special_discard")
    events = act(state, PlaySkip(1, skip))
    assert types(events) == ["ActionPlayed"]
    assert state.hands[1] == []
    assert state.current == 1
