"""RULES.md §3.3: a turn — the dead-card exchange, exactly one card with its effect, the
draw, the win check, the pass to the left."""

from __future__ import annotations

import pytest

from engine.classic.actions import (
    DiscardUnplayable,
    ExchangeDeadCard,
    PlaceChip,
    RemoveChip,
)
from engine.classic.board import CORNERS, parse_cell
from engine.classic.config import SequenceConfig
from engine.classic.events import (
    CardsDrawn,
    ChipPlaced,
    ChipRemoved,
    GameOver,
    SequenceMade,
    TurnEnded,
    TurnStarted,
)
from engine.classic.rules import legal_actions
from engine.classic.state import EMPTY
from engine.state import Termination
from tests.engine.scenario import SequenceCards, act, illegal, one, sequence_table, types

E5 = parse_cell("E5")  # 5H
I7 = parse_cell("I7")  # the other 5H


# -- 1. the dead-card exchange -------------------------------------------------------------


def test_dead_card_both_spaces_covered_is_turned_in_and_replaced() -> None:
    c = SequenceCards()
    dead, top = c("5H"), c("2S")
    state = sequence_table(2, hands={0: [dead]}, chips={"E5": 1, "I7": 0}, draw=[top])
    events = act(state, ExchangeDeadCard(0, dead))
    assert types(events) == ["DeadCardExchanged", "CardsDrawn"]
    assert state.discards[0][-1] == dead and dead not in state.hands[0]
    assert one(events, CardsDrawn).cards == (top,) and top in state.hands[0]
    # ... and then P takes the normal turn.
    assert state.current == 0
    assert any(isinstance(a, PlaceChip) for a in legal_actions(state, 0))


def test_dead_card_of_any_colour_counts_own_chips_too() -> None:
    c = SequenceCards()
    dead = c("5H")
    state = sequence_table(2, hands={0: [dead]}, chips={"E5": 0, "I7": 0})
    act(state, ExchangeDeadCard(0, dead))


def test_a_card_with_one_open_space_is_not_dead() -> None:
    c = SequenceCards()
    card = c("5H")
    state = sequence_table(2, hands={0: [card]}, chips={"E5": 1})
    illegal(state, ExchangeDeadCard(0, card), "not dead")


def test_jacks_are_never_dead() -> None:
    c = SequenceCards()
    jack = c("JD")
    state = sequence_table(2, hands={0: [jack]})
    illegal(state, ExchangeDeadCard(0, jack), "never dead")


def test_dead_card_exchange_at_most_one_per_turn() -> None:
    c = SequenceCards()
    first, second = c("5H"), c("5H")
    state = sequence_table(2, hands={0: [first, second]}, chips={"E5": 1, "I7": 1})
    act(state, ExchangeDeadCard(0, first))
    illegal(state, ExchangeDeadCard(0, second), "per turn")


def test_dead_card_exchange_count_is_a_table_setting() -> None:
    c = SequenceCards()
    first, second = c("5H"), c("5H")
    chips = {"E5": 1, "I7": 1}
    two = sequence_table(2, config=SequenceConfig(dead_cards_per_turn=2),
                         hands={0: [first, second]}, chips=chips)
    act(two, ExchangeDeadCard(0, first), ExchangeDeadCard(0, second))
    none = sequence_table(2, config=SequenceConfig(dead_cards_per_turn=0), hands={0: [first]},
                          chips=chips)
    illegal(none, ExchangeDeadCard(0, first), "no dead-card exchange")


def test_dead_card_exchange_only_on_your_own_turn() -> None:
    c = SequenceCards()
    dead = c("5H")
    state = sequence_table(2, hands={1: [dead]}, chips={"E5": 1, "I7": 1}, current=0)
    illegal(state, ExchangeDeadCard(1, dead), "turn")


# -- 2. play exactly one card --------------------------------------------------------------


def test_a_non_jack_puts_a_chip_on_either_matching_space() -> None:
    for cell in (E5, I7):
        c = SequenceCards()
        card = c("5H")
        state = sequence_table(2, hands={0: [card]})
        events = act(state, PlaceChip(0, card, cell))
        assert one(events, ChipPlaced) == ChipPlaced(0, card, cell)
        assert state.chips[cell] == 0
        assert state.discards[0] == [card]


def test_a_non_jack_cannot_go_on_another_cards_space() -> None:
    c = SequenceCards()
    card = c("5H")
    state = sequence_table(2, hands={0: [card]})
    illegal(state, PlaceChip(0, card, parse_cell("A2")), "E5 or I7, not A2")


def test_a_non_jack_cannot_go_on_a_covered_space() -> None:
    c = SequenceCards()
    card = c("5H")
    state = sequence_table(2, hands={0: [card]}, chips={"E5": 1})
    illegal(state, PlaceChip(0, card, E5), "already holds a green chip")
    act(state, PlaceChip(0, card, I7))


def test_a_card_must_be_in_your_hand() -> None:
    c = SequenceCards()
    card, other = c("5H"), c("5H")
    state = sequence_table(2, hands={0: [card], 1: [other]})
    illegal(state, PlaceChip(0, other, E5), "not in your hand")


def test_only_the_player_to_move_plays() -> None:
    c = SequenceCards()
    card = c("5H")
    state = sequence_table(2, hands={1: [card]}, current=0)
    illegal(state, PlaceChip(1, card, E5), "seat 0's turn")
    assert legal_actions(state, 1) == []


def test_two_eyed_jack_is_wild_any_empty_non_corner_space() -> None:
    for code in ("JD", "JC"):
        c = SequenceCards()
        jack = c(code)
        state = sequence_table(2, hands={0: [jack]}, chips={"B2": 1})
        places = {a.cell for a in legal_actions(state, 0)
                  if isinstance(a, PlaceChip) and a.card == jack}
        assert places == set(range(100)) - CORNERS - {parse_cell("B2")}
        act(state, PlaceChip(0, jack, parse_cell("D4")))
        assert state.chips[parse_cell("D4")] == 0


def test_two_eyed_jack_cannot_cover_a_chip_or_a_corner() -> None:
    c = SequenceCards()
    jack = c("JD")
    state = sequence_table(2, hands={0: [jack]}, chips={"B2": 1})
    illegal(state, PlaceChip(0, jack, parse_cell("B2")), "already holds")
    illegal(state, PlaceChip(0, jack, parse_cell("A1")), "free corner")


def test_one_eyed_jack_removes_one_opponent_chip() -> None:
    for code in ("JS", "JH"):
        c = SequenceCards()
        jack = c(code)
        state = sequence_table(2, hands={0: [jack]}, chips={"B2": 1, "C3": 0})
        assert {a.cell for a in legal_actions(state, 0) if isinstance(a, RemoveChip)} == {
            parse_cell("B2")
        }
        events = act(state, RemoveChip(0, jack, parse_cell("B2")))
        assert one(events, ChipRemoved).cell == parse_cell("B2")
        assert state.chips[parse_cell("B2")] == EMPTY
        assert state.discards[0] == [jack]


def test_one_eyed_jack_cannot_remove_own_chip_an_empty_space_or_a_corner() -> None:
    c = SequenceCards()
    jack = c("JS")
    state = sequence_table(2, hands={0: [jack]}, chips={"B2": 1, "C3": 0})
    illegal(state, RemoveChip(0, jack, parse_cell("C3")), "your own team")
    illegal(state, RemoveChip(0, jack, parse_cell("D4")), "no chip")
    illegal(state, RemoveChip(0, jack, parse_cell("A1")), "no chip")


def test_one_eyed_jack_places_no_chip_and_other_cards_remove_none() -> None:
    c = SequenceCards()
    one_eyed, two_eyed, five = c("JH"), c("JC"), c("5H")
    state = sequence_table(2, hands={0: [one_eyed, two_eyed, five]}, chips={"B2": 1})
    illegal(state, PlaceChip(0, one_eyed, parse_cell("D4")), "removes")
    illegal(state, RemoveChip(0, two_eyed, parse_cell("B2")), "not a one-eyed jack")
    illegal(state, RemoveChip(0, five, parse_cell("B2")), "not a one-eyed jack")


def test_one_eyed_jack_the_space_cannot_be_refilled_in_the_same_turn() -> None:
    # One card per turn: after the removal the turn is over and the next seat moves.
    c = SequenceCards()
    jack, card = c("JS"), c("5H")
    state = sequence_table(2, hands={0: [jack, card]}, chips={"E5": 1})
    events = act(state, RemoveChip(0, jack, E5))
    assert events[-1] == TurnStarted(1)
    illegal(state, PlaceChip(0, card, E5), "seat 1's turn")


def test_corners_never_receive_a_chip() -> None:
    c = SequenceCards()
    jack = c("JD")
    state = sequence_table(2, hands={0: [jack]})
    for corner in CORNERS:
        assert PlaceChip(0, jack, corner) not in legal_actions(state, 0)
        illegal(state, PlaceChip(0, jack, corner), "free corner")


# -- 3-5. draw, win check, pass ------------------------------------------------------------


def test_after_the_play_the_player_draws_one_card_and_the_turn_passes() -> None:
    c = SequenceCards()
    card, top = c("5H"), c("2S")
    state = sequence_table(2, hands={0: [card]}, draw=[top])
    events = act(state, PlaceChip(0, card, E5))
    assert types(events) == ["ChipPlaced", "CardsDrawn", "TurnEnded", "TurnStarted"]
    assert one(events, CardsDrawn) == CardsDrawn(0, (top,))
    assert len(state.hands[0]) == state.hand_size
    assert one(events, TurnEnded).seat == 0 and state.current == 1


def test_a_team_that_reaches_the_sequences_needed_wins_at_once() -> None:
    # 3 players: one sequence wins. Blue holds B1..E1 (2S..5S); 6S on F1 completes it.
    c = SequenceCards()
    card = c("6S")
    state = sequence_table(3, hands={0: [card]}, chips={"B1": 0, "C1": 0, "D1": 0, "E1": 0})
    draw_before = len(state.draw_pile)
    events = act(state, PlaceChip(0, card, parse_cell("F1")))
    assert types(events) == ["ChipPlaced", "SequenceMade", "GameOver"]
    assert one(events, GameOver) == GameOver(Termination.WIN, 0)
    assert state.outcome is not None and state.outcome.winner == 0
    assert len(state.draw_pile) == draw_before  # the game ends before the draw
    assert legal_actions(state, 1) == []
    illegal(state, PlaceChip(1, card, E5), "game is over")


def test_one_sequence_of_two_does_not_end_a_two_sequence_game() -> None:
    c = SequenceCards()
    card = c("6S")
    state = sequence_table(2, hands={0: [card]}, chips={"B1": 0, "C1": 0, "D1": 0, "E1": 0})
    events = act(state, PlaceChip(0, card, parse_cell("F1")))
    assert one(events, SequenceMade).team == 0
    assert state.outcome is None and state.current == 1


@pytest.mark.parametrize("players", [4, 6])
def test_teammates_place_one_team_colour_and_win_together(players: int) -> None:
    # Seat 2 is seat 0's teammate: chips placed by either count for team 0.
    c = SequenceCards()
    card = c("6S")
    config = SequenceConfig(sequences_to_win=1)
    state = sequence_table(players, config=config, hands={2: [card]}, current=2,
                           chips={"B1": 0, "C1": 0, "D1": 0, "E1": 0})
    events = act(state, PlaceChip(2, card, parse_cell("F1")))
    assert state.chips[parse_cell("F1")] == 0
    assert one(events, GameOver).winner == 0
    assert state.members(0) == tuple(range(0, players, state.teams))


def test_discard_with_no_effect_is_refused_while_a_play_exists() -> None:
    c = SequenceCards()
    card = c("5H")
    state = sequence_table(2, hands={0: [card]})
    illegal(state, DiscardUnplayable(0, card), "can play")
