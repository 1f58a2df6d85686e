"""A table hosted from the interface on a broker that holds small messages back (a stock
Mosquitto) says so once, short, in a toast, with the one-line fix (the TUI hides stderr,
where the headless host says it); a game on its own embedded broker never does."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from textual.widgets import Static

from broker.embedded import free_port
from netplay import nagle
from tests.broker.test_nagle import STOCK, _mosquitto
from tests.tui.conftest import until
from tests.tui.showcase import notes, plain
from tui.app import make_app
from tui.launch import Launch
from tui.screens.lobby import LobbyScreen
from tui.screens.table import TableScreen

pytestmark = pytest.mark.asyncio


@pytest.fixture
def stock_mosquitto(tmp_path: Path) -> Iterator[str]:
    port = free_port()
    proc = _mosquitto(tmp_path, STOCK.format(port=port), port)
    try:
        yield f"mqtt://127.0.0.1:{port}"
    finally:
        proc.terminate()
        proc.wait(5)


async def test_a_host_in_the_interface_on_a_stock_mosquitto_is_told_once_in_a_toast(
    stacks_home: Path, stock_mosquitto: str,
) -> None:
    # Three seats, one bot: the lobby waits for a second player, the note in sight.
    launch = Launch(role="host", table="slowbroker", name="Ana", broker=stock_mosquitto,
                    players=3, bots=1, bot_delay=0.0, block_window=0.3)
    app = make_app(launch, profiles=stacks_home)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: any("holds small messages back" in n for n in notes(app)),
                    "the word on the broker", timeout=60)
        said = [n for n in notes(app) if "holds small messages back" in n]
        assert len(said) == 1 and "set_tcp_nodelay true" in said[0], said
        assert len(said[0]) < 140, said[0]  # short: a toast, not a paragraph
        screen = app.screen
        assert isinstance(screen, LobbyScreen)
        hint = plain(screen.query_one("#lobby-hint", Static).render())
        assert "holds small messages back" not in hint, hint  # the lobby keeps its room
        assert "Waiting for 1 more player." in hint


async def test_a_game_on_its_own_embedded_broker_never_blames_the_broker(
    stacks_home: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    asked: list[str] = []

    async def slow(url: str, **_: object) -> float:
        asked.append(url)
        return 45.0  # as a busy machine measures it

    monkeypatch.setattr(nagle, "probe", slow)
    launch = Launch(role="play", name="Ana", players=2, bots=1, port=free_port(),
                    bind="127.0.0.1", bot_delay=0.05, block_window=0.3)
    app = make_app(launch, profiles=stacks_home)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, TableScreen), "the game")
        await pilot.pause(0.5)
        assert asked == [] and app.control.broker_warning == ""
        assert not any("broker" in n for n in notes(app)), notes(app)


async def test_slowness_that_a_busy_machine_explains_is_not_the_broker(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    async def slow(url: str, **_: object) -> float:
        return 45.0

    async def busy(**_: object) -> float:
        return 40.0  # as slow without any broker on the way

    async def mosquitto(url: str, **_: object) -> str:
        return "mosquitto version 2.0.11"

    monkeypatch.setattr(nagle, "probe", slow)
    monkeypatch.setattr(nagle, "software", mosquitto)
    monkeypatch.setattr(nagle, "baseline", busy)
    assert await nagle.holds_back("mqtt://127.0.0.1:1") is None

    async def idle(**_: object) -> float:
        return 0.2

    monkeypatch.setattr(nagle, "baseline", idle)
    assert await nagle.holds_back("mqtt://127.0.0.1:1") == 45.0

    async def other(url: str, **_: object) -> str | None:
        return None  # not a Mosquitto (or it won't say): its option is not the fix

    monkeypatch.setattr(nagle, "software", other)
    assert await nagle.holds_back("mqtt://127.0.0.1:1") is None


async def test_only_a_table_you_host_yourself_measures_its_broker() -> None:
    from tui.session import measures_broker

    assert measures_broker(Launch(role="host", table="t"))
    assert not measures_broker(Launch(role="join", table="t"))
    # Over ssh, a table the server holds (opened or joined) is the server's broker: its
    # players can't change it, so they are never told (the server's log says it).
    assert not measures_broker(Launch(role="host", table="t", held=True))
    assert not measures_broker(Launch(role="join", table="t", held=True))


async def test_the_ssh_server_says_a_slow_broker_in_its_own_log(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from types import SimpleNamespace

    from sshserver import server as ssh

    async def slow(url: str) -> float:
        return 42.0

    monkeypatch.setattr(nagle, "holds_back", slow)
    said: list[str] = []
    fake = SimpleNamespace(settings=SimpleNamespace(broker="mqtt://127.0.0.1:18830"),
                           status=SimpleNamespace(event=said.append))
    await ssh._check_broker(fake)  # type: ignore[arg-type]
    assert len(said) == 1 and "set_tcp_nodelay true" in said[0], said
