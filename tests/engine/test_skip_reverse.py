"""RULES.md §1.7 Skip and Reverse: A13 stacking, A14 timing, 2-player Reverse = Skip."""

from __future__ import annotations

from engine.actions import Action, Discard, PlayReverse, PlaySkip
from engine.config import RulesConfig, SkipStacking, SkipTiming
from engine.events import Event, SkipsGiven, TurnSkipped, TurnStarted
from engine.rules import skip_targets
from engine.state import State
from tests.engine.scenario import Cards, act, of_type, one, table


def _turn(
    players: int, plays: list[str], *, config: RulesConfig | None = None, current: int = 1
) -> tuple[State, list[Event]]:
    """``current`` plays the action cards ``plays`` (codes), then discards a Red 3."""
    c = Cards()
    cards = c.many(*plays)
    r3 = c("R3")
    hands = {s: c.many("B4", "B5") for s in range(players)}
    hands[current] = [*cards, r3, *c.many("R4", "R5")]
    state = table(players, config=config, hands=hands, current=current)
    actions: list[Action] = [
        PlaySkip(current, card) if code == "SKIP" else PlayReverse(current, card)
        for code, card in zip(plays, cards, strict=True)
    ]
    events = act(state, *actions, Discard(current, r3))
    return state, events


def _started(events: list[Event]) -> int:
    return one(events, TurnStarted).seat


def test_1_7_skip_the_next_player_loses_their_next_turn() -> None:
    state, events = _turn(3, ["SKIP"])
    assert one(events, SkipsGiven) == SkipsGiven((2,))
    assert one(events, TurnSkipped) == TurnSkipped(2)
    assert _started(events) == 0
    assert state.skip_tokens == [0, 0, 0]


def test_1_7_skip_tokens_are_given_at_the_end_of_the_turn() -> None:
    c = Cards()
    skip = c("SKIP")
    state = table(hands={1: [skip, c("R2")]})
    act(state, PlaySkip(1, skip))
    assert state.skip_tokens == [0, 0, 0]
    assert skip_targets(state, 1) == (2,)


def test_1_7_reverse_flips_the_direction_with_three_or_more_players() -> None:
    state, events = _turn(4, ["REV"])
    assert state.direction == -1
    assert not of_type(events, SkipsGiven)
    assert _started(events) == 0
    # And the turn after that keeps going the new way.
    c = Cards()
    state2 = table(4, hands={0: [c("R3")]}, current=0, direction=-1)
    events2 = act(state2, Discard(0, state2.hands[0][0]))
    assert _started(events2) == 3


def test_1_7_two_reverses_cancel_out() -> None:
    state, events = _turn(4, ["REV", "REV"])
    assert state.direction == 1
    assert _started(events) == 2


def test_1_7_reverse_with_two_players_is_a_skip() -> None:
    state, events = _turn(2, ["REV"])
    assert state.direction == 1
    assert one(events, SkipsGiven) == SkipsGiven((0,))
    assert one(events, TurnSkipped) == TurnSkipped(0)
    assert _started(events) == 1  # the player who reversed goes again


def test_1_7_two_reverses_with_two_players_are_two_skips() -> None:
    state, events = _turn(2, ["REV", "REV"])
    assert state.direction == 1
    assert one(events, SkipsGiven) == SkipsGiven((0, 0))
    assert _started(events) == 1
    assert state.skip_tokens == [1, 0]


def test_A13_k_skips_skip_the_next_k_players() -> None:
    _state, events = _turn(5, ["SKIP", "SKIP"])
    assert one(events, SkipsGiven) == SkipsGiven((2, 3))
    assert [e.seat for e in of_type(events, TurnSkipped)] == [2, 3]
    assert _started(events) == 4


def test_A13_skips_cycle_over_the_other_players_when_k_reaches_n_minus_1() -> None:
    state, events = _turn(3, ["SKIP", "SKIP", "SKIP"])
    assert one(events, SkipsGiven) == SkipsGiven((2, 0, 2))
    # Seats 2 and 0 each lose a turn; seat 1 plays again, then seat 2 loses a second turn.
    assert [e.seat for e in of_type(events, TurnSkipped)] == [2, 0]
    assert _started(events) == 1
    assert state.skip_tokens == [0, 0, 1]
    events = act(state, Discard(1, state.hands[1][0]))
    assert [e.seat for e in of_type(events, TurnSkipped)] == [2]
    assert _started(events) == 0


def test_A13_two_players_the_opponent_loses_k_turns() -> None:
    state, events = _turn(2, ["SKIP", "REV"])
    assert one(events, SkipsGiven) == SkipsGiven((0, 0))
    assert _started(events) == 1
    assert state.skip_tokens == [1, 0]
    events = act(state, Discard(1, state.hands[1][0]))
    assert one(events, TurnSkipped) == TurnSkipped(0)
    assert _started(events) == 1
    events = act(state, Discard(1, state.hands[1][0]))
    assert _started(events) == 0


def test_A13_redundant_setting_applies_one_skip_only() -> None:
    config = RulesConfig(skip_stacking=SkipStacking.REDUNDANT)
    _state, events = _turn(4, ["SKIP", "SKIP", "SKIP"], config=config)
    assert one(events, SkipsGiven) == SkipsGiven((2,))
    assert _started(events) == 3


def test_A13_next_loses_k_setting_gives_the_next_player_every_token() -> None:
    config = RulesConfig(skip_stacking=SkipStacking.NEXT_LOSES_K)
    state, events = _turn(4, ["SKIP", "SKIP"], config=config)
    assert one(events, SkipsGiven) == SkipsGiven((2, 2))
    assert _started(events) == 3
    assert state.skip_tokens == [0, 0, 1, 0]


def test_A14_skip_then_reverse_hits_the_next_player_in_the_new_direction() -> None:
    state, events = _turn(4, ["SKIP", "REV"])
    assert state.direction == -1
    assert one(events, SkipsGiven) == SkipsGiven((0,))
    assert _started(events) == 3


def test_A14_reverse_then_skip_is_the_same() -> None:
    _state, events = _turn(4, ["REV", "SKIP"])
    assert one(events, SkipsGiven) == SkipsGiven((0,))
    assert _started(events) == 3


def test_A14_at_play_setting_uses_the_direction_when_the_skip_was_played() -> None:
    config = RulesConfig(skip_timing=SkipTiming.AT_PLAY)
    state, events = _turn(4, ["SKIP", "REV"], config=config)
    assert state.direction == -1
    assert one(events, SkipsGiven) == SkipsGiven((2,))
    assert _started(events) == 0  # seat 0 is next going right; seat 2 waits for its token
    state, events = _turn(4, ["REV", "SKIP"], config=config)
    assert one(events, SkipsGiven) == SkipsGiven((0,))
    assert _started(events) == 3


def test_1_7_skip_from_the_discard_top() -> None:
    c = Cards()
    skip, r3 = c("SKIP"), c("R3")
    state = table(hands={1: [r3, *c.many("R4", "R5", "B4", "B5")]}, discards={1: [skip]})
    events = act(state, PlaySkip(1, skip), Discard(1, r3))
    assert one(events, SkipsGiven) == SkipsGiven((2,))
    assert state.discards[1] == [r3]
