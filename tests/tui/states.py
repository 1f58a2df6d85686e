"""Fixed game states for screen tests and screenshots: engine games from fixed seeds."""

from __future__ import annotations

from collections.abc import Callable

from engine.actions import Block, PlayCard, StealCard, StealChip
from engine.bots import GreedyBot
from engine.config import RulesConfig
from engine.game import Game
from engine.rng import derive_seed
from engine.rules import legal_actions
from engine.state import NEW_PILE, Phase, State
from engine.views import view_for
from tui.words import Narrator

NAMES = ("Ana", "Bo", "Cy", "Di")


def seat_view(game: Game, seat: int = 0) -> State:
    return view_for(game.state, seat)


def story(game: Game, seat: int = 0, last: int = 40) -> list[str]:
    """The log lines seat ``seat`` would have read for the game's last events."""
    narrator = Narrator(NAMES[: game.state.players], seat)
    lines = [narrator.describe(e.redacted_for(seat)) for e in game.log]
    return [line for line in lines if line][-last:]


def _play_until(players: int, seed: int, stop: Callable[[Game], bool],
                limit: int = 3000) -> Game | None:
    game = Game.new(players, derive_seed(seed, label="tui-test"), RulesConfig())
    bot = GreedyBot(b"tui-states")
    for _ in range(limit):
        if game.over:
            return None
        if stop(game):
            return game
        state = game.state
        if state.phase == Phase.BLOCK_WINDOW:
            assert state.window is not None
            seat = next(s for s in state.window.eligible if s not in state.window.passed)
        else:
            seat = state.current
        view = view_for(state, seat)
        game.act(bot.choose(view, seat, legal_actions(view, seat)))
    return None


def find(players: int, stop: Callable[[Game], bool], seeds: range = range(200)) -> Game:
    for seed in seeds:
        game = _play_until(players, seed, stop)
        if game is not None:
            return game
    raise AssertionError("no seed gives that position")


def mid_game(players: int = 4) -> Game:
    """Seat 0's view on its own turn, some turns in, with cards to play and a steal card."""

    def stop(game: Game) -> bool:
        s = game.state
        if s.phase != Phase.PLAY or s.current != 0 or s.turn < 8 or s.plays_this_turn:
            return False
        legal = legal_actions(s, 0)
        return (any(isinstance(a, PlayCard) and a.pile != NEW_PILE and a.card in s.hands[0]
                    for a in legal)
                and any(isinstance(a, StealCard | StealChip) for a in legal)
                and sum(map(sum, s.chips)) >= 2)

    return find(players, stop)


def block_window(players: int = 4) -> Game:
    """Seat 0's view while an opponent's pile waits in a Block window and seat 0 holds a Block."""

    def stop(game: Game) -> bool:
        s = game.state
        if s.phase != Phase.BLOCK_WINDOW or s.window is None or s.window.seat == 0:
            return False
        if s.turn < 6:
            return False
        return 0 in s.window.eligible and any(
            isinstance(a, Block) for a in legal_actions(s, 0))

    return find(players, stop)


def finished(players: int = 4) -> Game:
    """Seat 0's view of a finished game with a winner."""
    for seed in range(50):
        game = Game.new(players, derive_seed(seed, label="tui-test"), RulesConfig())
        bot = GreedyBot(b"tui-states")
        while not game.over:
            state = game.state
            if state.phase == Phase.BLOCK_WINDOW:
                assert state.window is not None
                seat = next(s for s in state.window.eligible if s not in state.window.passed)
            else:
                seat = state.current
            view = view_for(state, seat)
            game.act(bot.choose(view, seat, legal_actions(view, seat)))
        if game.state.outcome is not None and game.state.outcome.winner is not None:
            return game
    raise AssertionError("no game with a winner")
