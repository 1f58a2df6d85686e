"""A table hosted from the interface on a broker that holds small messages back (a stock
Mosquitto) says so once, in words, in the lobby, with the one-line fix: the TUI hides
stderr, where the headless host says it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from broker.embedded import free_port
from tests.broker.test_nagle import STOCK, _mosquitto
from tests.tui.conftest import until
from tests.tui.showcase import plain
from tui.app import make_app
from tui.launch import Launch
from tui.screens.lobby import LobbyScreen

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


def _hint(app: object) -> str:
    screen = app.screen  # type: ignore[attr-defined]
    if not isinstance(screen, LobbyScreen):
        return ""
    return "\n".join(plain(w.render()) for w in screen.query("#lobby-hint"))


async def test_a_host_in_the_interface_on_a_stock_mosquitto_is_told_in_the_lobby(
    stacks_home: Path, stock_mosquitto: str,
) -> None:
    # Three seats, one bot: the lobby waits for a second player, the note in sight.
    launch = Launch(role="host", table="slowbroker", name="Ana", broker=stock_mosquitto,
                    players=3, bots=1, bot_delay=0.0, block_window=0.3)
    app = make_app(launch, profiles=stacks_home)
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: "holds small messages back" in _hint(app),
                    "the lobby's word on the broker", timeout=60)
        text = _hint(app)
        assert text.count("holds small messages back") == 1, text
        assert "set_tcp_nodelay true" in text
        assert "Waiting for 1 more player." in text  # the lobby's own hint stays
        assert app.control.broker_warning.count("holds small messages back") == 1
