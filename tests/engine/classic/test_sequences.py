"""RULES.md §3.4: sequences — five in a line any way, corners for everyone, unbreakable,
the one space a second sequence may share, and the DEFAULT choice in longer runs."""

from __future__ import annotations

import pytest

from engine.classic.actions import PlaceChip, RemoveChip
from engine.classic.board import WINDOWS, parse_cell
from engine.classic.cards import CardId
from engine.classic.config import SequenceConfig
from engine.classic.events import GameOver, SequenceEvent, SequenceMade
from engine.classic.reducer import apply_checked
from engine.classic.rules import legal_actions
from engine.classic.state import SequenceState
from engine.errors import InvalidEventError
from tests.engine.scenario import SequenceCards, act, cells, illegal, of_type, one, sequence_table


def made(events: list[SequenceEvent], team: int = 0) -> list[tuple[int, ...]]:
    return [e.cells for e in of_type(events, SequenceMade) if e.team == team]


def line(*names: str) -> tuple[int, ...]:
    return tuple(sorted(cells(*names)))


def test_sequence_across() -> None:
    c = SequenceCards()
    card = c("6S")
    state = sequence_table(2, hands={0: [card]}, chips=dict.fromkeys(["B1", "C1", "D1", "E1"], 0))
    events = act(state, PlaceChip(0, card, parse_cell("F1")))
    assert made(events) == [line("B1", "C1", "D1", "E1", "F1")]
    assert all(state.locked[cell] for cell in cells("B1", "C1", "D1", "E1", "F1"))


def test_sequence_down() -> None:
    c = SequenceCards()
    card = c("10S")
    state = sequence_table(2, hands={0: [card]}, chips=dict.fromkeys(["B2", "B3", "B4", "B5"], 0))
    events = act(state, PlaceChip(0, card, parse_cell("B6")))
    assert made(events) == [line("B2", "B3", "B4", "B5", "B6")]


def test_sequence_diagonal_down_right_through_a_corner_needs_only_four_chips() -> None:
    c = SequenceCards()
    card = c("5H")
    state = sequence_table(2, hands={0: [card]}, chips=dict.fromkeys(["B2", "C3", "D4"], 0))
    events = act(state, PlaceChip(0, card, parse_cell("E5")))
    assert made(events) == [line("A1", "B2", "C3", "D4", "E5")]


def test_sequence_diagonal_down_left() -> None:
    c = SequenceCards()
    card = c("4H")
    state = sequence_table(2, hands={0: [card]}, chips=dict.fromkeys(["I2", "H3", "G4"], 0))
    events = act(state, PlaceChip(0, card, parse_cell("F5")))
    assert made(events) == [line("J1", "I2", "H3", "G4", "F5")]


def test_four_in_a_row_without_a_corner_is_no_sequence() -> None:
    c = SequenceCards()
    card = c("5S")
    state = sequence_table(2, hands={0: [card]}, chips=dict.fromkeys(["B1", "C1", "D1"], 0))
    assert made(act(state, PlaceChip(0, card, parse_cell("E1")))) == [
        line("A1", "B1", "C1", "D1", "E1")  # ... but the corner A1 makes it five
    ]
    c = SequenceCards()
    card = c("6S")
    state = sequence_table(2, hands={0: [card]}, chips=dict.fromkeys(["C1", "D1", "E1"], 0))
    assert made(act(state, PlaceChip(0, card, parse_cell("F1")))) == []


def test_an_opponent_chip_breaks_the_line() -> None:
    c = SequenceCards()
    card = c("6S")
    state = sequence_table(2, hands={0: [card]}, chips={"B1": 0, "C1": 1, "D1": 0, "E1": 0})
    assert made(act(state, PlaceChip(0, card, parse_cell("F1")))) == []


def test_several_teams_may_use_the_same_corner_in_different_lines() -> None:
    c = SequenceCards()
    blue, green = c("5S"), c("9C")
    state = sequence_table(
        2, hands={0: [blue], 1: [green]},
        chips={"B1": 0, "C1": 0, "D1": 0, "A2": 1, "A3": 1, "A4": 1},
    )
    first = act(state, PlaceChip(0, blue, parse_cell("E1")))
    second = act(state, PlaceChip(1, green, parse_cell("A5")))
    assert made(first, 0) == [line("A1", "B1", "C1", "D1", "E1")]
    assert made(second, 1) == [line("A1", "A2", "A3", "A4", "A5")]


def test_a_completed_sequence_cannot_be_broken_by_a_one_eyed_jack() -> None:
    c = SequenceCards()
    jack = c("JS")
    chips = dict.fromkeys(["B1", "C1", "D1", "E1", "F1"], 1) | {"G1": 1}
    state = sequence_table(2, hands={0: [jack]}, chips=chips,
                           sequences=[(1, ["B1", "C1", "D1", "E1", "F1"])])
    illegal(state, RemoveChip(0, jack, parse_cell("C1")), "completed sequence")
    assert {a.cell for a in legal_actions(state, 0) if isinstance(a, RemoveChip)} == {
        parse_cell("G1")
    }


def test_second_sequence_may_reuse_one_space_of_the_first() -> None:
    # Blue has B1..F1; F2..F5 under F1 make a second sequence through the shared F1.
    c = SequenceCards()
    card = c("4H")
    chips = dict.fromkeys(["B1", "C1", "D1", "E1", "F1", "F2", "F3", "F4"], 0)
    state = sequence_table(2, hands={0: [card]}, chips=chips,
                           sequences=[(0, ["B1", "C1", "D1", "E1", "F1"])])
    events = act(state, PlaceChip(0, card, parse_cell("F5")))
    assert made(events) == [line("F1", "F2", "F3", "F4", "F5")]
    assert one(events, GameOver).winner == 0  # two sequences win a 2-sided game


def test_second_sequence_may_not_share_two_spaces_runs_of_six_to_eight_count_once() -> None:
    c = SequenceCards()
    g1, h1, i1 = c("7S"), c("8S"), c("9S")
    chips = dict.fromkeys(["B1", "C1", "D1", "E1", "F1"], 0)
    first = [(0, ["B1", "C1", "D1", "E1", "F1"])]
    state = sequence_table(2, hands={0: [g1, h1, i1]}, chips=chips, sequences=first)
    assert made(act(state, PlaceChip(0, g1, parse_cell("G1")))) == []  # run of 6
    state.current = 0
    assert made(act(state, PlaceChip(0, h1, parse_cell("H1")))) == []  # run of 7
    state.current = 0
    # I1 makes the run of nine B1..J1 (J1 is a corner): F1..J1 shares only F1.
    events = act(state, PlaceChip(0, i1, parse_cell("I1")))
    assert made(events) == [line("F1", "G1", "H1", "I1", "J1")]


def test_a_run_of_nine_made_at_once_counts_two_sequences_sharing_the_middle() -> None:
    c = SequenceCards()
    card = c("5H")
    chips = dict.fromkeys(["A5", "B5", "C5", "D5", "F5", "G5", "H5", "I5"], 0)
    state = sequence_table(2, hands={0: [card]}, chips=chips)
    events = act(state, PlaceChip(0, card, parse_cell("E5")))
    assert made(events) == [line("A5", "B5", "C5", "D5", "E5"), line("E5", "F5", "G5", "H5", "I5")]
    assert one(events, GameOver).winner == 0


def test_one_chip_may_complete_sequences_in_two_lines_at_once() -> None:
    c = SequenceCards()
    card = c("5H")
    chips = dict.fromkeys(["A5", "B5", "C5", "D5", "E1", "E2", "E3", "E4"], 0)
    state = sequence_table(2, hands={0: [card]}, chips=chips)
    events = act(state, PlaceChip(0, card, parse_cell("E5")))
    assert sorted(made(events)) == sorted(
        [line("E1", "E2", "E3", "E4", "E5"), line("A5", "B5", "C5", "D5", "E5")]
    )


def test_longer_run_default_takes_the_lowest_start_when_overlaps_tie() -> None:
    c = SequenceCards()
    card = c("6H")
    chips = dict.fromkeys(["A5", "B5", "C5", "E5", "F5"], 0)
    state = sequence_table(3, hands={0: [card]}, chips=chips)
    events = act(state, PlaceChip(0, card, parse_cell("D5")))
    assert made(events) == [line("A5", "B5", "C5", "D5", "E5")]


def _overlap_position() -> tuple[SequenceState, CardId]:
    # Blue's sequence A1..A5 (column A) ends on A5; row 5 holds A5, B5, C5, E5, F5.
    c = SequenceCards()
    card = c("6H")
    chips = dict.fromkeys(["A2", "A3", "A4", "A5", "B5", "C5", "E5", "F5"], 0)
    state = sequence_table(2, config=SequenceConfig(sequences_to_win=3), hands={0: [card]},
                           chips=chips, sequences=[(0, ["A1", "A2", "A3", "A4", "A5"])])
    return state, card


def test_longer_run_default_prefers_the_window_that_overlaps_existing_sequences_least() -> None:
    state, card = _overlap_position()
    events = act(state, PlaceChip(0, card, parse_cell("D5")))
    assert made(events) == [line("B5", "C5", "D5", "E5", "F5")]


def test_choose_sequences_setting_lets_the_player_pick_the_five() -> None:
    state, card = _overlap_position()
    state.config = SequenceConfig(sequences_to_win=3, choose_sequences=True)
    low = WINDOWS.index(line("A5", "B5", "C5", "D5", "E5"))
    high = WINDOWS.index(line("B5", "C5", "D5", "E5", "F5"))
    d5 = parse_cell("D5")
    claims = {a.claim for a in legal_actions(state, 0) if isinstance(a, PlaceChip)}
    assert claims == {(), (low,), (high,)}
    illegal(state, PlaceChip(0, card, d5, (low, high)), "not a choice")
    events = act(state, PlaceChip(0, card, d5, (low,)))
    assert made(events) == [line("A5", "B5", "C5", "D5", "E5")]


def test_a_claim_is_refused_where_the_engine_picks() -> None:
    state, card = _overlap_position()
    low = WINDOWS.index(line("A5", "B5", "C5", "D5", "E5"))
    illegal(state, PlaceChip(0, card, parse_cell("D5"), (low,)), "engine picks")


def test_a_forged_sequence_sharing_two_spaces_is_refused_by_every_reducer() -> None:
    state, _ = _overlap_position()
    state.chips[parse_cell("A6")] = 0
    state.played = True  # as if a chip had just gone down
    before = state.copy()
    with pytest.raises(InvalidEventError, match="at most one space"):
        apply_checked(state, SequenceMade(0, line("A2", "A3", "A4", "A5", "A6")))
    assert state.sequences == before.sequences and state.locked == before.locked
