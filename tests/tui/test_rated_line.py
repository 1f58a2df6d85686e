"""The player is told in words what became of a finished game in the ratings: added, or
kept while the database is down (the game-over screen's line under the record)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.tui.conftest import until
from tests.tui.driver import play_to_the_end
from tui.app import make_app
from tui.launch import MEMORY, Launch
from tui.screens.gameover import GameOverScreen
from tui.screens.table import TableScreen

pytestmark = pytest.mark.asyncio


@pytest.mark.parametrize("down", [True, False])
async def test_the_game_over_screen_says_whether_the_game_was_rated(
    stacks_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, down: bool,
) -> None:
    if down:
        (tmp_path / "blocked").write_text("a file where the database's folder should be")
        monkeypatch.setenv("STACKS_DATABASE", f"sqlite:///{tmp_path / 'blocked' / 'r.sqlite'}")
    else:
        monkeypatch.setenv("STACKS_DATABASE", f"sqlite:///{tmp_path / 'r.sqlite'}")
    launch = Launch(role="play", name="Ana", players=3, bots=2, broker=MEMORY, seed=11,
                    bot_delay=0.0, block_window=0.3)
    app = make_app(launch, profiles=stacks_home)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, TableScreen), "the table")
        await play_to_the_end(app, pilot)
        screen = app.screen
        assert isinstance(screen, GameOverScreen)
        await until(pilot, lambda: bool(screen.rated), "the ratings line")
        if down:
            assert screen.rated.startswith("Not rated yet: the ratings database can't store "
                                           "games now"), screen.rated
            assert "stored when it is back" in screen.rated
        else:
            assert screen.rated == "Rated: the game is in this machine's ratings (Rankings, k)."
        await until(pilot, lambda: screen.rated in _verdict_text(screen), "the line shown")


def _verdict_text(screen: GameOverScreen) -> str:
    from textual.widgets import Static

    from tests.tui.showcase import plain

    return plain(screen.query_one("#over-verdict", Static).render()).replace("\n", " ")


async def test_a_player_who_leaves_the_game_over_screen_at_once_keeps_the_rating(
    stacks_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    from ratings.store import Store

    url = f"sqlite:///{tmp_path / 'r.sqlite'}"
    monkeypatch.setenv("STACKS_DATABASE", url)
    launch = Launch(role="play", name="Ana", players=3, bots=2, broker=MEMORY, seed=11,
                    bot_delay=0.0, block_window=0.3, verify_wait=5.0)
    app = make_app(launch, profiles=stacks_home)
    app.from_table = False  # a table hosted from the menu: m goes back there
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, TableScreen), "the table")
        await play_to_the_end(app, pilot)
        assert isinstance(app.screen, GameOverScreen)
        await pilot.press("m")  # straight back to the menu
        from tui.screens.menu import MenuScreen

        await until(pilot, lambda: isinstance(app.screen, MenuScreen), "the menu")
    store = await Store.open(url)
    try:
        assert len(await store.game_ids()) == 1
    finally:
        await store.close()
