"""RULES.md §1.5 turn structure, A15, A18, A21, A23, A24, A25."""

from __future__ import annotations

from engine.actions import Discard, EndTurn, PlayCard, PlaySkip, StealCard
from engine.cards import Colour
from engine.config import RulesConfig
from engine.events import (
    ActionPlayed,
    CardDiscarded,
    CardPlayed,
    CardsDrawn,
    TurnEnded,
    TurnSkipped,
    TurnStarted,
)
from engine.rules import legal_actions
from engine.state import NEW_PILE, Phase, Zone
from tests.engine.scenario import Cards, act, illegal, of_type, one, pile, table, types


def test_1_5_1_A25_a_skipped_turn_is_empty() -> None:
    c = Cards()
    r3 = c("R3")
    hand2 = c.many("R1", "B1", "RW", "R2", "B2")
    discard2 = [c("B5")]
    state = table(
        hands={1: [r3, *c.many("R4", "R5", "B4", "B3")], 2: hand2},
        discards={2: discard2},
        skip_tokens={2: 1},
    )
    draw_before = len(state.draw_pile)
    events = act(state, Discard(1, r3))
    assert types(events)[-3:] == ["TurnEnded", "TurnSkipped", "TurnStarted"]
    assert one(events, TurnSkipped) == TurnSkipped(2)
    assert events[-1] == TurnStarted(0)
    assert state.skip_tokens[2] == 0
    # Seat 2 played, discarded and drew nothing.
    assert state.hands[2] == hand2
    assert state.discards[2] == discard2
    assert [d.seat for d in of_type(events, CardsDrawn)] == [1]
    assert len(state.draw_pile) == draw_before - 1
    assert state.current == 0


def test_1_5_1_one_token_is_used_per_turn() -> None:
    c = Cards()
    r3 = c("R3")
    state = table(hands={1: [r3, *c.many("R4", "R5", "B4", "B3")]}, skip_tokens={2: 2})
    act(state, Discard(1, r3))
    assert state.skip_tokens[2] == 1
    assert state.current == 0


def test_1_5_1_no_card_is_drawn_at_the_start_of_a_turn() -> None:
    c = Cards()
    r3 = c("R3")
    hand2 = c.many("R1", "B1")
    state = table(hands={1: [r3, *c.many("R4", "R5", "B4", "B3")], 2: hand2})
    events = act(state, Discard(1, r3))
    assert events[-1] == TurnStarted(2)
    assert state.hands[2] == hand2


def test_1_5_2_play_from_the_top_of_the_personal_discard_pile() -> None:
    c = Cards()
    r1, r2 = c("R1"), c("R2")
    b4 = c("B4")
    state = table(hands={1: [b4]}, discards={1: [r2, r1]})
    events = act(state, PlayCard(1, r1, NEW_PILE))
    assert one(events, CardPlayed).zone == Zone.DISCARD
    assert state.discards[1] == [r2]
    # The card beneath has become playable.
    events = act(state, PlayCard(1, r2, 0))
    assert one(events, CardPlayed).zone == Zone.DISCARD
    assert state.discards[1] == []
    assert state.hands[1] == [b4]


def test_1_5_2_only_the_top_of_the_discard_pile_is_playable() -> None:
    c = Cards()
    r1, b5 = c("R1"), c("B5")
    state = table(hands={1: [c("B4")]}, discards={1: [r1, b5]})
    illegal(state, PlayCard(1, r1, NEW_PILE), "Red 1", "not in your hand or on top")


def test_1_5_2_cards_of_other_players_cannot_be_played() -> None:
    c = Cards()
    r1 = c("R1")
    state = table(hands={1: [c("B4")], 2: [r1]})
    illegal(state, PlayCard(1, r1, NEW_PILE), "not in your hand")


def test_1_5_2_only_the_current_player_plays() -> None:
    c = Cards()
    r1 = c("R1")
    state = table(hands={1: [c("B4")], 2: [r1]})
    illegal(state, PlayCard(2, r1, NEW_PILE), "seat 1's turn")
    assert legal_actions(state, 2) == []


def test_1_5_2b_action_cards_never_end_the_turn() -> None:
    c = Cards()
    skip, r1 = c("SKIP"), c("R1")
    state = table(hands={1: [skip, r1, c("B4")]})
    events = act(state, PlaySkip(1, skip))
    assert one(events, ActionPlayed) == ActionPlayed(1, skip, Zone.HAND)
    assert state.special_discard == [skip]
    assert state.current == 1
    assert state.phase == Phase.PLAY
    assert not of_type(events, TurnEnded)
    act(state, PlayCard(1, r1, NEW_PILE))
    assert state.current == 1


def test_1_5_2d_A15_emptying_the_hand_draws_five_and_play_goes_on() -> None:
    c = Cards()
    r1, r2 = c("R1"), c("R2")
    top = c.many("B1", "B2", "B3", "B4", "B5", "R5")  # R5 is the top of the draw pile
    state = table(hands={1: [r1, r2]}, draw=top)
    events = act(state, PlayCard(1, r1, NEW_PILE))
    assert not of_type(events, CardsDrawn)
    events = act(state, PlayCard(1, r2, 0))
    assert one(events, CardsDrawn) == CardsDrawn(1, tuple(reversed(top[1:])))
    assert sorted(state.hands[1]) == sorted(top[1:])
    assert state.current == 1
    assert state.phase == Phase.PLAY


def test_A15_empty_hand_refill_repeats_within_a_turn() -> None:
    c = Cards()
    r1 = c("R1")
    second = c.many("SKIP", "SKIP", "B1", "B1", "R1")  # drawn from the end: R1 first
    third = c.many("R2", "R3", "B2", "B3", "RW")
    state = table(hands={1: [r1]}, draw=[*third, *second])
    events = act(state, PlayCard(1, r1, NEW_PILE))
    assert one(events, CardsDrawn).cards == tuple(reversed(second))
    events = act(
        state,
        PlayCard(1, second[4], NEW_PILE),
        PlayCard(1, second[3], NEW_PILE),
        PlayCard(1, second[2], NEW_PILE),
        PlaySkip(1, second[1]),
        PlaySkip(1, second[0]),
    )
    assert one(events, CardsDrawn).cards == tuple(reversed(third))
    assert types(events)[-2:] == ["ActionPlayed", "CardsDrawn"]
    assert sorted(state.hands[1]) == sorted(third)
    assert state.current == 1


def test_A15_refill_triggers_from_an_action_card_played_from_hand() -> None:
    c = Cards()
    skip = c("SKIP")
    state = table(hands={1: [skip]})
    events = act(state, PlaySkip(1, skip))
    assert len(one(events, CardsDrawn).cards) == 5
    assert len(state.hands[1]) == 5


def test_A15_refill_draws_fewer_when_fewer_are_left() -> None:
    c = Cards()
    r1 = c("R1")
    last = c.many("B2", "B3")
    state = table(hands={1: [r1]}, draw=last, rest="special_discard")
    events = act(state, PlayCard(1, r1, NEW_PILE))
    assert one(events, CardsDrawn).cards == (last[1], last[0])
    assert state.draw_pile == []
    assert state.current == 1


def test_A15_no_refill_at_the_start_of_a_turn() -> None:
    c = Cards()
    r3 = c("R3")
    state = table(hands={1: [r3, *c.many("R4", "R5", "B4", "B3")], 2: []})
    events = act(state, Discard(1, r3))
    assert events[-1] == TurnStarted(2)
    assert state.hands[2] == []
    assert [d.seat for d in of_type(events, CardsDrawn)] == [1]


def test_A23_playing_the_discard_top_with_an_empty_hand_does_not_refill() -> None:
    c = Cards()
    r1 = c("R1")
    state = table(hands={1: []}, discards={1: [r1]})
    events = act(state, PlayCard(1, r1, NEW_PILE))
    assert not of_type(events, CardsDrawn)
    assert state.hands[1] == []
    assert state.current == 1
    assert legal_actions(state, 1) == [EndTurn(1)]


def test_1_5_3_discard_moves_one_hand_card_onto_the_discard_top_and_ends_the_turn() -> None:
    c = Cards()
    rw, old = c("RW"), c("B5")
    state = table(hands={1: [rw, *c.many("R4", "R5", "B4", "B3")]}, discards={1: [old]})
    events = act(state, Discard(1, rw))  # wilds (and action cards) may be discarded
    assert one(events, CardDiscarded) == CardDiscarded(1, rw)
    assert state.discards[1] == [old, rw]
    assert rw not in state.hands[1]
    assert one(events, TurnEnded) == TurnEnded(1)
    assert state.current == 2


def test_1_5_3_action_cards_may_be_discarded() -> None:
    c = Cards()
    block = c("BLOCK")
    state = table(hands={1: [block, c("R4")]})
    act(state, Discard(1, block))
    assert state.discards[1] == [block]


def test_1_5_3_the_discard_comes_from_the_hand_only() -> None:
    c = Cards()
    top, foreign = c("R3"), c("R2")
    state = table(hands={1: [c("R4")], 2: [foreign]}, discards={1: [top]})
    illegal(state, Discard(1, top), "Red 3", "not in your hand")
    illegal(state, Discard(1, foreign), "not in your hand")


def test_A18_end_turn_without_discard_only_with_an_empty_hand() -> None:
    c = Cards()
    r4 = c("R4")
    state = table(hands={1: [r4]})
    illegal(state, EndTurn(1), "discard a card")
    state = table(hands={1: []}, rest="special_discard")
    assert legal_actions(state, 1) == [EndTurn(1)]
    events = act(state, EndTurn(1))
    assert not of_type(events, CardDiscarded)
    assert state.discards[1] == []
    assert state.current == 2


def test_A18_end_turn_then_refills_when_cards_came_back() -> None:
    c = Cards()
    r5 = c("R5")
    done = c.many("R1", "R2", "R3", "R4")
    state = table(
        hands={1: []}, discards={1: [r5]}, piles=[pile(0, Colour.RED, done)], rest="special_discard"
    )
    act(state, PlayCard(1, r5, 0))  # the pile completes: its 5 cards are the pool
    assert sorted(state.out_of_play) == sorted([*done, r5])
    events = act(state, EndTurn(1))
    assert len(one(events, CardsDrawn).cards) == 5
    assert sorted(state.hands[1]) == sorted([*done, r5])


def test_1_5_4_refill_draws_up_to_five() -> None:
    c = Cards()
    r3 = c("R3")
    top = c.many("B1", "B2", "B3")
    state = table(hands={1: [r3, c("R4"), c("R5")]}, draw=top)
    events = act(state, Discard(1, r3))
    assert one(events, CardsDrawn) == CardsDrawn(1, (top[2], top[1], top[0]))
    assert len(state.hands[1]) == 5


def test_A21_no_draw_and_no_forced_discard_above_five() -> None:
    c = Cards()
    steal = c("STEAL_CARD")
    hand = [steal, *c.many("R2", "R3", "R4", "R5", "B5")]
    state = table(hands={1: hand}, discards={2: [c("B4")]})
    act(state, StealCard(1, steal, 2, Zone.DISCARD))
    assert len(state.hands[1]) == 6
    events = act(state, Discard(1, hand[1]))
    assert not of_type(events, CardsDrawn)
    assert len(state.hands[1]) == 5
    state2 = table(hands={1: [*c.many("R1", "R1", "R1", "R1", "R1", "R2", "R2")]})
    events = act(state2, Discard(1, state2.hands[1][0]))
    assert len(state2.hands[1]) == 6
    assert not of_type(events, CardsDrawn)


def test_A21_hand_limit_setting_refuses_steal_a_card_at_the_limit() -> None:
    c = Cards()
    steal = c("STEAL_CARD")
    hand = [steal, *c.many("R2", "R3", "R4", "R5", "B5")]
    state = table(config=RulesConfig(hand_limit=5), hands={1: hand}, discards={2: [c("B4")]})
    illegal(state, StealCard(1, steal, 2, Zone.DISCARD), "limit of 5")
    assert not any(isinstance(a, StealCard) for a in legal_actions(state, 1))
    ok = table(config=RulesConfig(hand_limit=5), hands={1: hand[:5]}, discards={2: [c("B3")]})
    act(ok, StealCard(1, steal, 2, Zone.DISCARD))
    assert len(ok.hands[1]) == 5


def test_A24_draws_are_automatic() -> None:
    c = Cards()
    r3 = c("R3")
    state = table(hands={1: [r3]})
    events = act(state, Discard(1, r3))
    assert types(events) == ["CardDiscarded", "CardsDrawn", "TurnEnded", "TurnStarted"]
    assert len(state.hands[1]) == 5


def test_1_5_6_the_turn_passes_one_seat_and_wraps_around() -> None:
    c = Cards()
    r3 = c("R3")
    state = table(4, hands={3: [r3, *c.many("R4", "R5", "B4", "B3")]}, current=3)
    events = act(state, Discard(3, r3))
    assert events[-1] == TurnStarted(0)
    assert state.turn == 2


def test_1_5_4_hand_size_setting_changes_the_refill_and_the_empty_hand_draw() -> None:
    c = Cards()
    r3, skip = c("R3"), c("SKIP")
    config = RulesConfig(hand_size=7)
    state = table(config=config, hands={1: [r3, *c.many("R4", "R5")]})
    act(state, Discard(1, r3))
    assert len(state.hands[1]) == 7
    state = table(config=config, hands={1: [skip]})
    act(state, PlaySkip(1, skip))
    assert len(state.hands[1]) == 7


def test_engine_safeguard_max_plays_per_turn_leaves_only_the_discard() -> None:
    c = Cards()
    r1, r2, r3, b5 = c.many("R1", "R2", "R3", "B5")
    state = table(config=RulesConfig(max_plays_per_turn=2), hands={1: [r1, r2, r3, b5]})
    act(state, PlayCard(1, r1, NEW_PILE), PlayCard(1, r2, 0))
    illegal(state, PlayCard(1, r3, 0), "2 plays this turn")
    assert all(isinstance(a, Discard) for a in legal_actions(state, 1))
    act(state, Discard(1, b5))
    assert state.current == 2
