"""Connection problems in words, with what to do: broker unreachable, host gone, desync."""

from __future__ import annotations

import re
import socket
from pathlib import Path

import pytest

from netplay.host import HostSettings
from netplay.host_peer import Host
from netplay.memory import AsyncMemoryBroker
from netplay.playing.liveness import HOST_SILENT
from netplay.playing.notices import Desynced, Resynced
from tests.support import free_port
from tests.tui import states
from tests.tui.conftest import TIMEOUT, until
from tests.tui.showcase import notes, plain, show_table
from tui.app import make_app
from tui.follow import Following
from tui.launch import MEMORY, Launch
from tui.model import TableModel
from tui.screens.lobby import LobbyScreen
from tui.screens.problem import ProblemScreen
from tui.widgets.banner import Banner

pytestmark = pytest.mark.asyncio


async def test_an_unreachable_broker_is_said_with_what_to_check(stacks_home: Path) -> None:
    port = free_port()  # nothing listens there
    launch = Launch(role="join", table="friday", name="Bo", broker=f"mqtt://127.0.0.1:{port}")
    app = make_app(launch, profiles=stacks_home)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
        screen = app.screen
        assert isinstance(screen, LobbyScreen)
        banner = screen.query_one(Banner)
        await until(pilot, lambda: banner.problem is not None, "the problem")
        text = plain(banner.render())
        assert "Can't reach the broker." in text
        assert f"127.0.0.1:{port}" in text and "stacks host" in text
        await pilot.press("escape")  # the command line opened the table: back to the shell
        await until(pilot, lambda: app.return_code == 0, "the program's end")


async def test_a_host_that_leaves_is_said_with_what_to_do(stacks_home: Path) -> None:
    broker = AsyncMemoryBroker()
    settings = HostSettings(table="friday", players=2)
    launch = Launch(role="join", table="friday", name="Bo", broker=MEMORY)
    app = make_app(launch, profiles=stacks_home, memory=broker)
    async with app.run_test(size=(80, 24)) as pilot:
        async with Host(settings, broker=broker):
            await until(pilot, lambda: isinstance(app.screen, LobbyScreen)
                        and app.screen.me == 0, "a seat")
        screen = app.screen
        assert isinstance(screen, LobbyScreen)
        banner = screen.query_one(Banner)
        await until(pilot, lambda: banner.problem is not None, "the problem")
        assert "The host closed the table." in plain(banner.render())


async def test_a_broker_that_cannot_start_is_said_with_what_to_do(stacks_home: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        launch = Launch(role="play", name="Ana", port=port, players=2, bots=1)
        app = make_app(launch, profiles=stacks_home)
        async with app.run_test(size=(80, 24)) as pilot:
            await until(pilot, lambda: isinstance(app.screen, ProblemScreen), "the problem")
            text = plain(app.screen.query_one("#problem-title").render())
            assert text == "Can't start the broker."
            assert "--port" in plain(app.screen.query_one("#problem-advice").render())


async def test_a_desync_is_said_and_its_repair_too(stacks_home: Path) -> None:
    app = make_app(profiles=stacks_home, frozen=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await show_table(app, states.mid_game())
        app.control.following = Following(app.control, TableModel(table="friday"))
        await app.control.notice(Desynced(12, "aa", "bb"))
        await app.control.notice(Resynced(12, "snapshot"))
        await pilot.pause()
        said = notes(app)
        assert any("disagreed with the host's at batch 12" in n for n in said), said
        assert any(n.startswith("Repaired") for n in said), said


async def test_a_silent_host_is_not_responding_then_offline_and_waited_for(
    stacks_home: Path,
) -> None:
    broker = AsyncMemoryBroker()
    settings = HostSettings(table="friday", players=2)
    launch = Launch(role="join", table="friday", name="Bo", broker=MEMORY)
    app = make_app(launch, profiles=stacks_home, memory=broker)
    async with app.run_test(size=(80, 24)) as pilot, Host(settings, broker=broker) as host:
        await until(pilot, lambda: isinstance(app.screen, LobbyScreen)
                    and app.screen.me == 0, "a seat")
        screen = app.screen
        assert isinstance(screen, LobbyScreen)
        banner = screen.query_one(Banner)
        assert banner.problem is None
        driver = host._task  # a crash: the host stops without a word
        assert driver is not None
        driver.cancel()
        await until(pilot, lambda: banner.problem is not None, "the problem",
                    timeout=HOST_SILENT + TIMEOUT)
        text = plain(banner.render())
        # Counting, not yet offline: from 2 s of silence on (a loaded machine may first
        # draw the banner a second late).
        assert re.match(r"Host not responding [234] s\.", text), text
        await until(pilot, lambda: "Host offline since" in plain(banner.render()), "offline",
                    timeout=HOST_SILENT + TIMEOUT)
        text = plain(banner.render())
        assert "Host offline since " in text and "waiting for it to come back" in text, text
        assert "nothing from it for 5 s" in text and "Esc leaves" in text, text


async def test_a_joiner_with_a_wrong_broker_address_is_told_about_the_address(
    stacks_home: Path,
) -> None:
    launch = Launch(role="join", table="x", name="Bo", broker="http://foo")
    app = make_app(launch, profiles=stacks_home)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, ProblemScreen), "the problem")
        advice = plain(app.screen.query_one("#problem-advice").render())
        assert "broker address" in advice and "players" not in advice, advice


async def test_join_refuses_a_wrong_broker_address_before_anything_starts(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from stacks.cli import main

    with pytest.raises(SystemExit) as exited:
        main(["join", "x", "--broker", "http://foo"])
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert "stacks join: error:" in err and "mqtt://" in err, err
