"""The table says whom it waits for and how long: the turn clock counting down for you,
a stand-in bot playing the turn when it runs out, and the host not responding."""

from __future__ import annotations

import math
import re
import time
from pathlib import Path

import pytest

from engine.state import Phase
from netplay.host import HostSettings
from netplay.host_peer import Host
from netplay.memory import AsyncMemoryBroker
from netplay.playing.notices import Applied, Notice
from tests.tui.conftest import TIMEOUT, until
from tests.tui.showcase import plain
from tui.app import make_app
from tui.launch import MEMORY, Launch
from tui.screens.table import TableScreen

pytestmark = pytest.mark.asyncio

CLOCK = 3.0


def status(app: object) -> str:
    screen = app.screen  # type: ignore[attr-defined]
    if not isinstance(screen, TableScreen):
        return ""
    found = screen.query("#table-status")  # not there yet while the screen is composed
    return plain(found.first().render()) if found else ""


async def test_the_clock_counts_down_for_you_then_a_stand_in_plays_your_turn(
    stacks_home: Path,
) -> None:
    broker = AsyncMemoryBroker()
    settings = HostSettings(table="friday", players=2, bots=("greedy",), turn_clock=CLOCK)
    launch = Launch(role="join", table="friday", name="Bo", broker=MEMORY)
    app = make_app(launch, profiles=stacks_home, memory=broker)
    async with app.run_test(size=(120, 40)) as pilot, Host(settings, broker=broker) as host:
        session = host.host

        def my_turn() -> bool:
            game = session.game
            return (game is not None and game.state.phase == Phase.PLAY
                    and game.state.current == 0)

        await until(pilot, lambda: isinstance(app.screen, TableScreen) and my_turn(),
                    "my turn at the table", timeout=TIMEOUT * 2)
        await until(pilot, lambda: "left for you, then a bot plays" in status(app),
                    "the clock in the status line")
        line = status(app)
        assert "s left for you" in line, line
        seconds = int(line.split(" s left for you")[0].rsplit(" ", 1)[-1])
        assert 0 <= seconds <= CLOCK, line
        # I don't play: when the clock runs out, the host's stand-in plays my turn.
        await until(pilot, lambda: any(b.standin and b.action is not None
                                       and b.action.seat == 0 for b in session.batches),
                    "the stand-in's move", timeout=CLOCK + TIMEOUT)
        info = session.seats[0]
        assert info is not None and info.standin is None  # my seat, not away


async def test_the_board_of_a_new_turn_never_shows_the_last_turns_countdown(
    stacks_home: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The waiting line the board shows when a batch ends my turn: not my last countdown
    ("0 s left for you" until the host's next heartbeat), nothing until the host says."""
    broker = AsyncMemoryBroker()
    settings = HostSettings(table="friday", players=2, bots=("greedy",), turn_clock=CLOCK)
    launch = Launch(role="join", table="friday", name="Bo", broker=MEMORY)
    app = make_app(launch, profiles=stacks_home, memory=broker)
    shown: list[str] = []
    control = app.control
    handle = control.notice

    async def notice(notice: Notice) -> None:
        table = control.following.table if control.following is not None else None
        if isinstance(notice, Applied) and notice.standin and table is not None:
            shown.append(table.waiting)  # what the board shows with the batch
        await handle(notice)

    monkeypatch.setattr(control, "notice", notice)
    async with app.run_test(size=(120, 40)) as pilot, Host(settings, broker=broker):
        await until(pilot, lambda: "left for you, then a bot plays" in status(app),
                    "the clock in the status line", timeout=TIMEOUT * 2)
        # I don't play: the stand-in plays my turn when the clock runs out.
        await until(pilot, lambda: bool(shown), "the stand-in's move", timeout=CLOCK + TIMEOUT)
        assert shown[0] == "", shown


async def test_a_frozen_host_is_said_not_responding_in_the_status_line(
    stacks_home: Path,
) -> None:
    broker = AsyncMemoryBroker()
    settings = HostSettings(table="friday", players=2, bots=("greedy",), turn_clock=30.0)
    launch = Launch(role="join", table="friday", name="Bo", broker=MEMORY)
    app = make_app(launch, profiles=stacks_home, memory=broker)
    async with app.run_test(size=(120, 40)) as pilot, Host(settings, broker=broker) as host:
        await until(pilot, lambda: isinstance(app.screen, TableScreen), "the table",
                    timeout=TIMEOUT * 2)
        driver = host._task
        assert driver is not None
        driver.cancel()  # frozen: not a word more from the host
        frozen = time.monotonic()
        await until(pilot, lambda: "host not responding" in status(app),
                    "host not responding", timeout=TIMEOUT)
        seen = time.monotonic() - frozen
        said = re.search(r"host not responding (\d+) s", status(app))
        assert said is not None, status(app)
        # Said from 2 s of silence on, counting the seconds since its last word (a loaded
        # machine may look later than that: never more than the time since it froze).
        assert 2 <= int(said.group(1)) <= max(3, math.ceil(seen)), (status(app), seen)


async def test_the_clock_is_off_against_bots_and_on_by_default_at_networked_tables(
    stacks_home: Path,
) -> None:
    from stacks.commands.ui import launch_from
    from stacks.parser import build_parser

    assert build_parser("host").parse_args(["host", "--headless"]).turn_clock == 60.0
    hosted, _, _ = launch_from(build_parser("host").parse_args(["host"]))
    assert hosted is not None and hosted.turn_clock == 60.0
    assert Launch(role="host").turn_clock == 60.0  # the menu's host form starts there
    for role, clock in (("play", 0.0), ("host", 60.0)):
        launch = Launch(role=role, table="friday", name="Bo", players=2, bots=1,
                        broker=MEMORY, bot_delay=0.0)
        app = make_app(launch, profiles=stacks_home, memory=AsyncMemoryBroker())
        async with app.run_test(size=(80, 24)) as pilot:
            await until(pilot, lambda app=app: app.control.session is not None
                        and app.control.session.host is not None, f"the {role} table",
                        timeout=TIMEOUT * 2)
            session = app.control.session
            assert session is not None and session.host is not None
            assert session.host.host.settings.turn_clock == clock, role
