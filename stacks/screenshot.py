"""The README's picture of the table: the real interface at 100x30, as an SVG.

``python -m stacks.screenshot docs/table.svg`` writes it. The app is the one ``stacks play``
runs, showing its table screen from seat 0 of a four-player game dealt from a fixed seed
and played by medium bots until seat 0's turn comes round again some turns in: the piles,
the hand, the seats, the chips and the log all have something to show. Nothing in it
depends on the clock, the machine or the run (the screen's timers are stopped, the
profiles live in a temporary folder, and the SVG's ids are made from its content), so the
same code gives the same bytes, which ``tests/stacks/test_screenshot.py`` checks against
the committed file.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from engine.actions import PlayCard
from engine.bots import GreedyBot
from engine.config import RulesConfig
from engine.game import Game
from engine.rng import derive_seed
from engine.rules import legal_actions
from engine.state import NEW_PILE, Phase
from engine.views import view_for
from tui.app import make_app
from tui.model import SeatPresence
from tui.screens.table import TableScreen
from tui.words import Narrator

#: The picture's terminal, in columns and rows.
SIZE = (100, 30)
#: The players' names; the last seat is a bot, as in ``stacks play``.
NAMES = ("Ana", "Bo", "Cy", "Di")
#: The game's seed: a change of it (or of the engine's deal) changes the picture.
SEED = 7
#: Seat 0's turn is shown once at least this many turns were played.
TURNS = 10


def the_game(seed: int = SEED, turns: int = TURNS) -> Game:
    """A four-player game from ``seed``, played by medium bots until it is seat 0's turn
    to play, at least ``turns`` turns in, with a card it can add to an open pile.

    Raises :class:`ValueError` when the game ends first (a seed that can't be shown)."""
    game = Game.new(len(NAMES), derive_seed(seed, label="readme-screenshot"), RulesConfig())
    bot = GreedyBot(b"readme-screenshot")
    while not game.over:
        state = game.state
        if (state.phase == Phase.PLAY and state.current == 0 and state.turn >= turns
                and not state.plays_this_turn
                and any(isinstance(a, PlayCard) and a.pile != NEW_PILE
                        for a in legal_actions(state, 0))):
            return game
        if state.phase == Phase.BLOCK_WINDOW:
            assert state.window is not None
            seat = next(s for s in state.window.eligible if s not in state.window.passed)
        else:
            seat = state.current
        view = view_for(state, seat)
        game.act(bot.choose(view, seat, legal_actions(view, seat)))
    raise ValueError(f"the game of seed {seed} ended before seat 0's turn {turns}")


def _log(game: Game, seat: int = 0) -> list[str]:
    """The log lines ``seat`` read as the game went (its own view of every event)."""
    narrator = Narrator(NAMES, seat)
    lines = [narrator.describe(event.redacted_for(seat)) for event in game.log]
    return [line for line in lines if line]


@contextmanager
def _own_home() -> Iterator[Path]:
    """Profiles and settings in a temporary folder: the picture never reads the user's."""
    before = os.environ.get("STACKS_HOME")
    with tempfile.TemporaryDirectory(prefix="stacks-screenshot-") as home:
        os.environ["STACKS_HOME"] = home
        try:
            yield Path(home)
        finally:
            if before is None:
                os.environ.pop("STACKS_HOME", None)
            else:
                os.environ["STACKS_HOME"] = before


async def table_svg(game: Game | None = None) -> str:
    """The SVG of the table screen showing ``game`` (:func:`the_game` by default)."""
    game = the_game() if game is None else game
    with _own_home() as home:
        app = make_app(profiles=home / "profiles", frozen=True)
        async with app.run_test(size=SIZE) as pilot:
            screen = TableScreen("friday", NAMES, 0, frozen=True)
            screen.seats = tuple(
                SeatPresence(name, bot=seat == len(NAMES) - 1, present=True, standin=False)
                for seat, name in enumerate(NAMES))
            await app.control.show(screen)
            for line in _log(game):
                screen.say(line)
            screen.view = view_for(game.state, 0)
            await pilot.pause()
            await pilot.wait_for_scheduled_animations()
            await pilot.pause()
            return app.export_screenshot(title="stacks play")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m stacks.screenshot",
        description="Write the README's picture of the table (an SVG of the real interface "
                    "at 100x30, the same bytes every time).")
    parser.add_argument("path", type=Path, help="where to write the SVG (docs/table.svg)")
    args = parser.parse_args(argv)
    svg = asyncio.run(table_svg())
    try:
        args.path.write_text(svg, encoding="utf-8")
    except OSError as exc:
        print(f"can't write {args.path}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    print(f"wrote {args.path} ({len(svg):,} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
