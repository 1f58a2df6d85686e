"""``stacks play --engine``: a program of the player's own takes a seat of the table the
interface hosts, as a peer of its own, and the game against it starts."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.tui.conftest import until
from tui.app import make_app
from tui.launch import MEMORY, Launch
from tui.screens.table import TableScreen

MINIMAL = Path(__file__).parents[2] / "examples" / "engines" / "minimal.py"


@pytest.mark.asyncio
async def test_play_seats_the_engine_beside_the_bots_and_the_game_starts(
    stacks_home: Path,
) -> None:
    launch = Launch(role="play", name="Ana", players=3, bots=1, broker=MEMORY, seed=3,
                    bot_delay=0.0, engines=(("mini", (sys.executable, str(MINIMAL))),))
    app = make_app(launch, profiles=stacks_home)
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, TableScreen), "the table")
        session = app.control.session
        assert session is not None and session.host is not None
        await until(pilot, lambda: session.host is not None and session.host.host.game
                    is not None, "the deal")
        names = [info.name for info in session.host.host.seats if info is not None]
        assert "mini" in names and "Ana" in names and len(names) == 3


def test_the_command_line_greets_the_engine_and_gives_it_a_bot_s_seat() -> None:
    from stacks.commands.ui import launch_from
    from stacks.parser import build_parser

    args = build_parser().parse_args(
        ["play", "--players", "3", "--engine", f"{sys.executable} {MINIMAL}"])
    launch, _, _ = launch_from(args)
    assert launch is not None
    assert launch.engines == (("minimal", (sys.executable, str(MINIMAL))),)
    assert launch.bots == 1
    host = build_parser().parse_args(
        ["host", "--players", "2", "--bots", "1", "--engine", f"m={sys.executable} {MINIMAL}"])
    with pytest.raises(ValueError, match="leave no seat for you at 2 players"):
        launch_from(host)
