"""RULES.md §1.11 termination safeguards: stalemate (A17) and the turn cap."""

from __future__ import annotations

from typing import Any

from engine.actions import Discard, EndTurn, PlayCard
from engine.config import RulesConfig, StalemateResult
from engine.events import Event, GameOver, TurnSkipped, TurnStarted
from engine.state import NEW_PILE, Outcome, Phase, State, Termination
from tests.engine.scenario import Cards, act, illegal, of_type, table


def _dry_table(
    c: Cards,
    players: int = 3,
    *,
    config: RulesConfig | None = None,
    extra: dict[int, list[int]] | None = None,
    **kwargs: Any,
) -> State:
    """Nothing to draw and nothing to reshuffle; every seat holds two unplayable cards."""
    hands = {s: [*c.many("B4", "B5"), *(extra or {}).get(s, [])] for s in range(players)}
    return table(players, config=config, hands=hands, rest="special_discard", **kwargs)


def _discard_round(state: State, seats: list[int]) -> list[Event]:
    events: list[Event] = []
    for seat in seats:
        events += act(state, Discard(seat, state.hands[seat][0]))
    return events


def test_1_11_stalemate_after_a_full_cycle_without_a_play_is_a_draw() -> None:
    c = Cards()
    state = _dry_table(c)
    events = _discard_round(state, [1, 2])
    assert state.outcome is None
    assert events[-1] == TurnStarted(0)
    events = _discard_round(state, [0])
    assert events[-1] == GameOver(Termination.STALEMATE, None)
    assert state.outcome == Outcome(Termination.STALEMATE, None)
    assert state.phase == Phase.GAME_OVER
    illegal(state, Discard(1, state.hands[1][0]), "game is over")


def test_1_11_a_play_restarts_the_stalemate_count() -> None:
    c = Cards()
    r1 = c("R1")
    state = _dry_table(c, extra={0: [r1]})
    _discard_round(state, [1, 2])
    act(state, PlayCard(0, r1, NEW_PILE))
    _discard_round(state, [0, 1, 2])
    assert state.outcome is None
    events = _discard_round(state, [0])
    assert events[-1] == GameOver(Termination.STALEMATE, None)


def test_1_11_a_forfeited_turn_counts_toward_the_cycle() -> None:
    c = Cards()
    state = _dry_table(c, skip_tokens={0: 1})
    events = _discard_round(state, [1, 2])
    assert of_type(events, TurnSkipped) == [TurnSkipped(0)]
    assert events[-1] == GameOver(Termination.STALEMATE, None)


def test_1_11_no_stalemate_while_cards_can_be_drawn() -> None:
    c = Cards()
    hands = {s: c.many("B4", "B5", "B4", "B5", "B2") for s in range(3)}
    state = table(hands=hands)
    _discard_round(state, [1, 2, 0, 1, 2, 0, 1])
    assert state.outcome is None
    assert state.idle_turns == 0


def test_1_11_no_stalemate_while_the_reshuffle_pool_can_refill_the_draw_pile() -> None:
    c = Cards()
    hands = {s: c.many("B4", "B5", "B4", "B5", "B2") for s in range(3)}
    state = table(hands=hands, out_of_play=c.many("R2", "R3", "R4"), rest="special_discard")
    events = _discard_round(state, [1, 2, 0])
    assert state.outcome is None
    assert not of_type(events, GameOver)
    assert events[-1] == TurnStarted(1)


def test_1_11_stalemate_most_chips_setting_gives_the_win_to_the_unique_leader() -> None:
    c = Cards()
    config = RulesConfig(stalemate_result=StalemateResult.MOST_CHIPS)
    state = _dry_table(c, config=config, chips={2: (1, 2), 0: (2, 0)})
    events = _discard_round(state, [1, 2, 0])
    assert events[-1] == GameOver(Termination.STALEMATE, 2)


def test_1_11_stalemate_most_chips_tie_is_still_a_draw() -> None:
    c = Cards()
    config = RulesConfig(stalemate_result=StalemateResult.MOST_CHIPS)
    state = _dry_table(c, config=config, chips={2: (1, 2), 0: (3, 0)})
    events = _discard_round(state, [1, 2, 0])
    assert events[-1] == GameOver(Termination.STALEMATE, None)


def test_1_11_the_cycle_starts_only_once_nothing_is_left_to_draw() -> None:
    c = Cards()
    r3, r1 = c("R3"), c("R1")
    hand1 = [r3, *c.many("B4", "B5", "B4", "B5")]
    state = table(2, hands={1: hand1, 0: c.many("B2", "B3")}, draw=[r1], rest="special_discard")
    act(state, Discard(1, r3))  # seat 1 draws the last card, the Red 1
    assert state.draw_pile == []
    assert r1 in state.hands[1]
    events = act(state, Discard(0, state.hands[0][0]))  # the only turn after the draw
    # A full cycle has not passed since both piles ran dry: seat 1 may still play its 1.
    assert not of_type(events, GameOver)
    assert events[-1] == TurnStarted(1)


def test_1_11_max_turns_cap_ends_the_game_as_a_draw() -> None:
    c = Cards()
    r3 = c("R3")
    config = RulesConfig(max_turns=10)
    state = table(config=config, hands={1: [r3, *c.many("R4", "R5", "B4", "B5")]}, turn=10)
    events = act(state, Discard(1, r3))
    assert events[-1] == GameOver(Termination.MAX_TURNS, None)
    assert not of_type(events, TurnStarted)
    state = table(config=config, hands={1: [r3, *c.many("R4", "R5", "B4", "B5")]}, turn=9)
    events = act(state, Discard(1, r3))
    assert events[-1] == TurnStarted(2)
    assert state.turn == 10


def test_1_11_max_turns_counts_skipped_turns() -> None:
    c = Cards()
    r3 = c("R3")
    config = RulesConfig(max_turns=10)
    state = table(
        config=config, hands={1: [r3, *c.many("R4", "R5", "B4", "B5")]}, turn=9, skip_tokens={2: 1}
    )
    events = act(state, Discard(1, r3))
    assert of_type(events, TurnSkipped) == [TurnSkipped(2)]
    assert events[-1] == GameOver(Termination.MAX_TURNS, None)


def test_A17_end_turn_on_an_empty_hand_in_a_dry_game_still_advances() -> None:
    c = Cards()
    state = _dry_table(c)
    state.special_discard += state.hands[1]
    state.hands[1] = []
    events = act(state, EndTurn(1))
    assert events[-1] == TurnStarted(2)
