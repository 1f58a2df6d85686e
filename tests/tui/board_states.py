"""Fixed classic Sequence positions for board tests and screenshots.

The games are played by a small greedy policy of the tests' own (not the shipped bots,
which change as they improve): each chip goes where it lengthens the team's best open line.
"""

from __future__ import annotations

from collections.abc import Callable

from engine.classic import (
    CORNERS,
    WINDOWS,
    ExchangeDeadCard,
    PlaceChip,
    RemoveChip,
    SequenceAction,
    SequenceConfig,
    SequenceGame,
    SequenceState,
    legal_actions,
    view_for,
)
from engine.classic.state import EMPTY
from engine.rng import derive_seed
from engine.state import SPECTATOR
from tests.tui.states import NAMES
from tui.classic_words import ClassicNarrator


def _score(state: SequenceState, action: SequenceAction) -> int:
    if isinstance(action, ExchangeDeadCard):
        return 100
    team = state.team_of(action.seat)
    if isinstance(action, RemoveChip):
        return 1
    if not isinstance(action, PlaceChip):
        return 0
    best = 0
    for cells in WINDOWS:
        if action.cell not in cells:
            continue
        if any(state.chips[c] not in (EMPTY, team) and c not in CORNERS for c in cells):
            continue
        best = max(best, sum(1 for c in cells if c in CORNERS or state.chips[c] == team))
    return 2 + best * 3


def choose(state: SequenceState, seat: int) -> SequenceAction:
    legal = legal_actions(state, seat)
    return max(legal, key=lambda a: _score(state, a))


def play_until(players: int, seed: int, stop: Callable[[SequenceGame], bool],
               limit: int = 1000) -> SequenceGame | None:
    game = SequenceGame.new(players, derive_seed(seed, label="tui-board"), SequenceConfig())
    for _ in range(limit):
        if stop(game):
            return game
        if game.over:
            return None
        game.act(choose(game.state, game.state.current))
    return None


def find(players: int, stop: Callable[[SequenceGame], bool],
         seeds: range = range(100)) -> SequenceGame:
    for seed in seeds:
        game = play_until(players, seed, stop)
        if game is not None:
            return game
    raise AssertionError("no seed gives that position")


def _mid(game: SequenceGame) -> bool:
    state = game.state
    if game.over or state.current != 0 or not state.sequences:
        return False
    hand = state.hands[0]
    legal = legal_actions(state, 0)
    plain = [a for a in legal if isinstance(a, PlaceChip) and a.card == hand[0]]
    return len(plain) == 2 and any(isinstance(a, RemoveChip) for a in legal)


def mid_game(players: int = 4) -> SequenceGame:
    """Seat 0 to move, a sequence on the board, its first card with both spaces open and a
    one-eyed jack in hand with chips to take."""
    return find(players, _mid)


def finished(players: int = 2) -> SequenceGame:
    return find(players, lambda game: game.over)


def story(game: SequenceGame, seat: int | None = 0, last: int = 40) -> list[str]:
    narrator = ClassicNarrator(NAMES[: game.state.players], seat, game.state.teams)
    audience = SPECTATOR if seat is None else seat
    lines = [narrator.describe(e.redacted_for(audience)) for e in game.log]
    return [line for line in lines if line][-last:]


def seat_view(game: SequenceGame, seat: int = 0) -> SequenceState:
    return view_for(game.state, seat)
