"""At 80 columns every screen's words fit: nothing is cut inside a word (a path, a name, a
key in the footer, the waiting line, the board's legend); what does not fit is said
shorter, or goes on a line of its own."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.tui import states
from tests.tui.showcase import screen_lines, show_game_over
from tui.app import make_app

pytestmark = pytest.mark.asyncio

SIZE = (80, 24)


def _boxed(lines: list[str]) -> list[str]:
    """The text inside a box's edges, line by line."""
    return [line.strip().strip("║│").strip() for line in lines]


@pytest.mark.parametrize("where", ["home", "elsewhere"])
async def test_the_game_record_path_breaks_only_after_a_slash_and_its_file_name_is_whole(
    stacks_home: Path, monkeypatch: pytest.MonkeyPatch, where: str,
) -> None:
    home = Path("/home/someone-with-a-long-name")
    monkeypatch.setenv("HOME", str(home))
    name = "stacks-friday-night-20261207-1137.json"
    if where == "home":
        folder = home / ".local/share/sequence-stacks/records"
    else:  # no home to shorten: longer than the box is wide
        folder = Path("/srv/games/sequence-stacks/shared-records/friday-night-club/2026")
    record = str(folder / name)
    app = make_app(profiles=stacks_home, frozen=True)
    async with app.run_test(size=SIZE) as pilot:
        screen = await show_game_over(app, states.finished())
        screen.record = record
        await pilot.pause()
        await pilot.pause()
        lines = _boxed(screen_lines(app))
    start = next(i for i, line in enumerate(lines) if line.startswith("Game record:"))
    end = next(i for i, line in enumerate(lines) if line.endswith("FILE)"))
    shown = lines[start:end + 1]
    assert any(name in line for line in shown), shown  # the file name whole, on one line
    text = "".join(shown)
    expected = f"~/{folder.relative_to(home)}/{name}" if where == "home" else record
    assert expected in text.replace(" (", "(").replace("Game record:", ""), shown
    # Each line ends after a "/" (or with the whole file name): no folder is cut.
    for line in shown[:-1]:
        path_part = line.removeprefix("Game record:").strip()
        assert not path_part or path_part.endswith("/") or path_part.endswith(name), shown


async def test_your_games_rows_fit_80_columns_with_whole_names(stacks_home: Path) -> None:
    from netplay.hosts import fingerprint
    from ratings.local import local_database
    from ratings.store import Store
    from tests.netplay.harness import identity_for
    from tests.ratings.games import stacks_records
    from tests.tui.conftest import until
    from tui.launch import Launch
    from tui.screens.ratings import RatingsScreen

    ann = identity_for(0, "ann")  # the player of the stored games, as this profile
    folder = stacks_home / "ann"
    folder.mkdir(parents=True)
    (folder / "identity.key").write_text(bytes(ann.signing_key).hex() + "\n")
    records = stacks_records()
    store = await Store.open(local_database())
    for record in records:
        await store.add_record(record)
    await store.close()
    app = make_app(defaults=Launch("play", profile="ann"), profiles=stacks_home, frozen=True)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("k")
        await until(pilot, lambda: isinstance(app.screen, RatingsScreen), "the rankings")
        await pilot.press("y")
        await until(pilot, lambda: sum(" vs " in line for line in screen_lines(app))
                    == len(records), "your games, one line each")
        store = await Store.open(local_database())
        games = await store.games_of(fingerprint(ann.key), 100)
        await store.close()
        names = {name for game in games for name in game.others}
        lines = [line for line in screen_lines(app) if " vs " in line]
        # Wider: the names fitted again, all of them now.
        await pilot.resize_terminal(120, 30)
        await until(pilot, lambda: any("Bot 4 (medium)" in line
                                       for line in screen_lines(app)), "every name")
    assert "Bot 4 (medium)" in names  # a table of four: three others
    for line in lines:
        others = line.split(" vs ", 1)[1].strip(" ▎▊│▏▌▐█▁▂▃▄▅▆▇").rstrip()
        for part in others.split(", "):
            assert part in names or (part.startswith("+") and part.endswith(" more")), line



async def test_the_menu_footer_shows_every_key_it_offers_whole(stacks_home: Path) -> None:
    from textual.binding import Binding

    from tests.tui.conftest import until
    from tui.screens.menu import MenuScreen

    app = make_app(profiles=stacks_home)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: isinstance(app.screen, MenuScreen), "the menu")
        await pilot.pause()
        footer = screen_lines(app)[-1]
    shown = [b for b in MenuScreen.BINDINGS if isinstance(b, Binding) and b.show]
    assert len(shown) >= 4, shown  # the main ways to play, at least
    for binding in shown:
        assert f"{binding.key} {binding.description}" in footer, footer
    assert "q Quit" in footer, footer
    assert footer.rstrip().endswith(("palette", "Quit", "Help")), footer


@pytest.mark.parametrize("game", ["stacks", "sequence"])
async def test_the_status_line_says_whom_the_table_waits_for_in_whole_words(
    stacks_home: Path, game: str,
) -> None:
    from tests.tui import board_states
    from tests.tui.showcase import show_board, show_table

    one = "waiting for Bobby — 25 s left, then a bot plays"
    many = "; ".join([one, "waiting for Cyrille — away 12 s, bot plays in 8 s",
                      "waiting for Dominique — away 30 s, a bot plays for them"])
    app = make_app(profiles=stacks_home, frozen=True)
    async with app.run_test(size=SIZE) as pilot:
        if game == "sequence":
            screen: object = await show_board(app, board_states.mid_game())
        else:
            screen = await show_table(app, states.mid_game())
        screen.waiting = one  # type: ignore[attr-defined]
        await pilot.pause()
        await pilot.pause()
        status = screen_lines(app)[0].strip()
        assert status.endswith(one), status  # whole: what matters now, said in full
        screen.waiting = many  # type: ignore[attr-defined]
        await pilot.pause()
        await pilot.pause()
        status = screen_lines(app)[0].strip()
    assert status.endswith("…"), status  # too long for one line: cut, but at a word
    words = status.removesuffix("…").split()
    assert words[-1] in many.replace(";", " ").split(), status
    assert "waiting for Bobby — 25 s left, then a bot plays" in status, status


async def test_the_board_legend_reads_in_whole_words_at_80_columns(stacks_home: Path) -> None:
    from tests.tui import board_states
    from tests.tui.showcase import show_board

    app = make_app(profiles=stacks_home, frozen=True)
    async with app.run_test(size=SIZE) as pilot:
        await show_board(app, board_states.mid_game())
        await pilot.pause()
        await pilot.pause()
        board = [line[:54].rstrip() for line in screen_lines(app)]  # the board's column
    below = next(i for i, line in enumerate(board) if line.startswith("10 ")) + 1
    legend = " ".join(board[below:next(i for i, line in enumerate(board)
                                       if line.startswith("─You"))])
    for words in ("QHB Blue chip", "[..] sequence", "** free corner", "+ your card fits",
                  "× your jack removes it"):
        assert words in legend, board
    assert "…" not in legend, board
    assert any(line.startswith("Last:") for line in board), board  # nothing pushed off
