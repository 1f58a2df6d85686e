"""Put a screen on the real app with a fixed game state (no network): for tests and shots."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from textual.content import Content
from textual.pilot import Pilot

from engine.actions import Action
from engine.classic import SequenceGame, SequenceState
from engine.game import Game
from engine.results import seat_results
from engine.state import State
from tests.tui import board_states
from tests.tui.states import NAMES, mid_game, seat_view, story
from tui.app import StacksApp, make_app
from tui.history import History, Step
from tui.launch import Launch
from tui.model import SeatPresence, TableModel
from tui.replay import Replay
from tui.screens.board import BoardScreen
from tui.screens.gameover import GameOverScreen
from tui.screens.history import HistoryScreen
from tui.screens.lobby import LobbyScreen
from tui.screens.replay import ReplayScreen
from tui.screens.table import TableScreen


def presence(players: int, away: int | None = None) -> tuple[SeatPresence, ...]:
    return tuple(
        SeatPresence(NAMES[s], bot=s == players - 1, present=s != away, standin=False)
        for s in range(players)
    )


async def show_table(app: StacksApp, game: Game, *, seat: int = 0, away: int | None = None,
                     block_window: float = 3.0) -> TableScreen:
    players = game.state.players
    screen = TableScreen("friday", NAMES[:players], seat, block_window=block_window,
                         frozen=True)
    screen.seats = presence(players, away)
    await app.control.show(screen)
    for line in story(game, seat):
        screen.say(line)
    screen.view = seat_view(game, seat)
    return screen


@asynccontextmanager
async def table_on_screen(
    home: Path, game: Game | None = None, *, size: tuple[int, int] = (80, 24),
    away: int | None = None,
) -> AsyncIterator[tuple[StacksApp, Pilot[None], TableScreen]]:
    """The real app at ``size`` showing ``game`` (a game in the middle by default) from
    seat 0, with the profiles in ``home``."""
    app = make_app(profiles=home, frozen=True)
    async with app.run_test(size=size) as pilot:
        yield app, pilot, await show_table(app, mid_game() if game is None else game, away=away)


async def show_game_over(app: StacksApp, game: Game, *, verdict: bool = True) -> GameOverScreen:
    players = game.state.players
    model = TableModel(table="friday", me=0, names=NAMES[:players], view=seat_view(game),
                       players=players, results=seat_results(players, game.log))
    await show_table(app, game)
    screen = GameOverScreen(model, hosting=True)
    await app.push_screen(screen)
    if verdict:
        screen.verdict = (True, f"replayed {len(game.log)} events from the revealed seed")
    return screen


class Recorder:
    """Catches what the screens ask the app to send (instead of a session)."""

    def __init__(self, app: StacksApp) -> None:
        self.actions: list[Action] = []
        self.said: list[str] = []
        app.control.act = self.actions.append  # type: ignore[method-assign]
        app.control.say = self.said.append  # type: ignore[method-assign]


def plain(markup: object) -> str:
    """The text of a widget's markup, without styles."""
    return Content.from_markup(str(markup)).plain


def screen_lines(app: StacksApp) -> list[str]:
    """The lines the terminal shows, as text (the screen's rendering, row by row)."""
    return [strip.text for strip in app.screen._compositor.render_strips()]


def notes(app: StacksApp) -> list[str]:
    return [str(n.message) for n in app._notifications]


async def show_lobby(app: StacksApp, *, editing: bool = False) -> LobbyScreen:
    """A host's lobby: three of four seats taken (one by a bot), a little chat."""
    launch = Launch(role="host", table="friday", name="Ana", players=4, bots=1,
                    table_open=not editing)
    model = TableModel(table="friday", players=4, block_window=3.0, me=0)
    screen = LobbyScreen(launch, model)
    await app.control.show(screen)
    if not editing:
        screen.where = "mqtt://192.168.1.20:1883"
        screen.profile = "ana"
        screen.seats = (
            SeatPresence("Ana", bot=False, present=True, standin=False),
            SeatPresence("Bo", bot=False, present=False, standin=False),
            None,
            SeatPresence("Bot 4", bot=True, present=True, standin=False),
        )
        screen.me = 0
        screen.heard("Bo", "back in a minute")
        screen.heard("Ana", "no rush")
    return screen


def settled(app: StacksApp) -> bool:
    """What a screenshot shows is final: every log line laid out and scrolled into view,
    the pile slots mounted for the latest view, the history at its end."""
    from tui.screens.history import HistoryScreen
    from tui.widgets.log import TableLog
    from tui.widgets.piles import Piles, SlotView

    for screen in app.screen_stack:
        if screen.has_class("-too-small"):
            continue  # nothing but the notice shows
        if not all(log.settled for log in screen.query(TableLog)):
            return False
        for piles in screen.query(Piles):
            if piles.busy or len(piles.query(SlotView)) != len(piles.slots):
                return False
    screen = app.screen
    return not isinstance(screen, HistoryScreen) or screen.settled


async def settle(pilot: Pilot[None], limit: int = 500) -> None:
    """Let the app run until :func:`settled` holds twice in a row (or fail, never guess)."""
    app = pilot.app
    assert isinstance(app, StacksApp)
    calm = 0
    for _ in range(limit):
        await pilot.pause()
        await pilot.wait_for_scheduled_animations()
        calm = calm + 1 if settled(app) else 0
        if calm >= 2:
            return
    raise AssertionError("the screen did not settle")


def steps_of(game: Game, seat: int | None = None) -> list[Step]:
    """The game's events as batches of one event each (redacted for ``seat``)."""
    return [Step(n, None, (e if seat is None else e.redacted_for(seat),))
            for n, e in enumerate(game.log, start=1)]


async def show_history(app: StacksApp, game: Game, *, seat: int = 0) -> HistoryScreen:
    """The ``l`` screen over the table: the whole game so far from ``seat``."""
    await show_table(app, game, seat=seat)
    history = History(NAMES[: game.state.players], seat)
    history.extend(steps_of(game, seat))
    screen = HistoryScreen("friday", history.lines)
    await app.push_screen(screen)
    return screen


def replay_of(game: Game) -> Replay:
    players = game.state.players
    return Replay("friday", NAMES[:players], State.new(game.state.config, players),
                  steps_of(game))


async def show_replay(app: StacksApp, game: Game, *, turn: int = 12,
                      seat: int | None = None) -> ReplayScreen:
    """A replay of a finished game, at the start of turn ``turn``."""
    replay = replay_of(game)
    screen = ReplayScreen(replay, seat=seat, at=replay.turn_starts[turn - 1])
    await app.control.show(screen)
    return screen


# -- classic Sequence ------------------------------------------------------------------------


async def show_board(app: StacksApp, game: SequenceGame, *, seat: int = 0,
                     away: int | None = None) -> BoardScreen:
    """The board screen of a classic game, from ``seat``, with the log of its last events."""
    players = game.state.players
    screen = BoardScreen("friday", NAMES[:players], seat, frozen=True)
    screen.seats = presence(players, away)
    await app.control.show(screen)
    for line in board_states.story(game, seat):
        screen.say(line)
    screen.view = board_states.seat_view(game, seat)
    return screen


def board_replay_of(game: SequenceGame) -> Replay:
    players = game.state.players
    steps = [Step(n, None, (e,)) for n, e in enumerate(game.log, start=1)]
    return Replay("friday", NAMES[:players], SequenceState.new(game.state.config, players),
                  steps, "sequence")


async def show_board_replay(app: StacksApp, game: SequenceGame, *,
                            turn: int = 30) -> ReplayScreen:
    replay = board_replay_of(game)
    screen = ReplayScreen(replay, at=replay.turn_starts[turn - 1])
    await app.control.show(screen)
    return screen
