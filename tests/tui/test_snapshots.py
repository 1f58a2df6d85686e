"""Screenshots of the main screens at 80x24 and 120x40, against committed baselines.

Fixed seeds, names and texts; no clock shows (the Block countdown is frozen). A shot is
taken once what it shows has settled (every log line laid out and scrolled into view, the
pile slots mounted: ``showcase.settle``), never after a fixed time. After a deliberate
change of the look: ``pytest tests/tui/test_snapshots.py --snapshot-update``, then look at
the new SVGs before committing them.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from textual.pilot import Pilot

from tests.tui import board_states, states
from tests.tui.showcase import (
    settle,
    show_board,
    show_board_replay,
    show_game_over,
    show_history,
    show_lobby,
    show_replay,
    show_table,
)
from tui.app import StacksApp, make_app

SIZES = [(80, 24), (120, 40)]
Compare = Callable[..., bool]


def _app() -> StacksApp:
    return make_app(frozen=True)


Show = Callable[[StacksApp], Awaitable[Any]]


def _before(show: Show, *keys: str) -> Callable[[Pilot[None]], Awaitable[None]]:
    async def run_before(pilot: Pilot[None]) -> None:
        app = pilot.app
        assert isinstance(app, StacksApp)
        await show(app)
        await settle(pilot)
        if keys:
            await pilot.press(*keys)
            await settle(pilot)

    return run_before


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_snapshot_lobby_host_settings(snap_compare: Compare, size: tuple[int, int]) -> None:
    assert snap_compare(_app(), terminal_size=size,
                        run_before=_before(lambda app: show_lobby(app, editing=True)))


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_snapshot_lobby_waiting(snap_compare: Compare, size: tuple[int, int]) -> None:
    assert snap_compare(_app(), terminal_size=size, run_before=_before(show_lobby))


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_snapshot_table_mid_game(snap_compare: Compare, size: tuple[int, int]) -> None:
    game = states.mid_game()
    assert snap_compare(_app(), terminal_size=size,
                        run_before=_before(lambda app: show_table(app, game, away=2)))


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_snapshot_table_card_picked(snap_compare: Compare, size: tuple[int, int]) -> None:
    game = states.mid_game()
    assert snap_compare(_app(), terminal_size=size,
                        run_before=_before(lambda app: show_table(app, game), "2"))


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_snapshot_block_prompt(snap_compare: Compare, size: tuple[int, int]) -> None:
    game = states.block_window()
    assert snap_compare(_app(), terminal_size=size,
                        run_before=_before(lambda app: show_table(app, game)))


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_snapshot_game_over(snap_compare: Compare, size: tuple[int, int]) -> None:
    game = states.finished()
    assert snap_compare(_app(), terminal_size=size,
                        run_before=_before(lambda app: show_game_over(app, game)))


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_snapshot_history(snap_compare: Compare, size: tuple[int, int]) -> None:
    game = states.mid_game()
    assert snap_compare(_app(), terminal_size=size,
                        run_before=_before(lambda app: show_history(app, game)))


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_snapshot_replay(snap_compare: Compare, size: tuple[int, int]) -> None:
    game = states.finished()
    assert snap_compare(_app(), terminal_size=size,
                        run_before=_before(lambda app: show_replay(app, game), "right"))


@pytest.mark.parametrize("size", [(60, 20)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_snapshot_too_small(snap_compare: Compare, size: tuple[int, int]) -> None:
    game = states.mid_game()
    assert snap_compare(_app(), terminal_size=size,
                        run_before=_before(lambda app: show_table(app, game)))


# -- classic Sequence: the board -----------------------------------------------------------


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_snapshot_board_mid_game(snap_compare: Compare, size: tuple[int, int]) -> None:
    game = board_states.mid_game()
    assert snap_compare(_app(), terminal_size=size,
                        run_before=_before(lambda app: show_board(app, game, away=2)))


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_snapshot_board_card_picked(snap_compare: Compare, size: tuple[int, int]) -> None:
    """The first card picked: its two cells marked ``+`` and the cursor on the first."""
    game = board_states.mid_game()
    assert snap_compare(_app(), terminal_size=size,
                        run_before=_before(lambda app: show_board(app, game), "1"))


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_snapshot_board_jack_picked(snap_compare: Compare, size: tuple[int, int]) -> None:
    """A one-eyed jack picked: the chips it may remove edged with ``×``."""
    game = board_states.mid_game()
    view = board_states.seat_view(game)
    from engine.classic.cards import FACES, JackKind

    key = next(str(i + 1) for i, c in enumerate(view.hands[0])
               if FACES[c].jack is JackKind.ONE_EYED)
    assert snap_compare(_app(), terminal_size=size,
                        run_before=_before(lambda app: show_board(app, game), key))


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_snapshot_board_replay(snap_compare: Compare, size: tuple[int, int]) -> None:
    game = board_states.finished()
    assert snap_compare(_app(), terminal_size=size,
                        run_before=_before(lambda app: show_board_replay(app, game), "right"))
