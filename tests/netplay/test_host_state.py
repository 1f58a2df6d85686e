"""The table's state (``netplay.hosting.state``): one explicit stage, moved by a table of
allowed moves; a move from the wrong stage is a bug, and says so."""

from __future__ import annotations

import pytest

from netplay.hosting.state import Stage, StateError, TableState


def test_a_table_goes_from_the_lobby_through_the_deal_and_a_race_to_its_public_end() -> None:
    state = TableState()
    assert state.stage is Stage.LOBBY and state.status == "lobby" and not state.started
    state.dealing()
    assert state.stage is Stage.DEALING and state.status == "lobby"
    state.started_game()
    assert state.stage is Stage.PLAYING and state.started and state.status == "playing"
    state.race_opened()
    assert state.stage is Stage.RACE and state.status == "playing"
    state.race_closed()
    assert state.stage is Stage.PLAYING
    state.ended()
    assert state.over and not state.public_over and state.status == "over"
    state.ended_publicly()
    assert state.stage is Stage.PUBLIC_OVER and state.over and state.public_over


def test_a_void_round_goes_back_to_the_lobby_but_never_undoes_a_started_game() -> None:
    state = TableState()
    state.dealing()
    state.void_round()
    assert state.stage is Stage.LOBBY
    state.started_game()
    state.void_round()
    assert state.stage is Stage.PLAYING


def test_a_race_that_closes_with_the_games_end_leaves_the_game_over() -> None:
    state = TableState()
    state.started_game()
    state.race_opened()
    state.ended()
    state.race_closed()
    assert state.stage is Stage.OVER


@pytest.mark.parametrize("move", ["race_opened", "ended", "ended_publicly"])
def test_a_move_the_lobby_does_not_allow_raises_a_state_error_in_words(move: str) -> None:
    state = TableState()
    with pytest.raises(StateError, match="a table lobby can't become"):
        getattr(state, move)()
    assert state.stage is Stage.LOBBY


def test_a_game_that_started_does_not_start_again() -> None:
    state = TableState()
    state.started_game()
    with pytest.raises(StateError):
        state.started_game()


def test_a_closed_table_remembers_how_far_its_game_got() -> None:
    state = TableState()
    state.started_game()
    state.close()
    assert state.stage is Stage.CLOSED and state.closed and state.progress is Stage.PLAYING
    assert not state.over and state.status == "playing"
    state.ended()  # the game still ends, for the record
    assert state.stage is Stage.CLOSED and state.over
    assert "CLOSED in OVER" in repr(state)


def test_a_resumed_host_may_hold_the_end_back_from_spectators_again() -> None:
    state = TableState()
    state.started_game()
    state.ended()
    state.ended_publicly()
    state.move(Stage.OVER)
    assert state.over and not state.public_over
