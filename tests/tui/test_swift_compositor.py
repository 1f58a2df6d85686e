"""A partial repaint by `SwiftCompositor` shows what Textual's would, and renders less.

The menu repaints a highlight move with it (`tui.compositor`): each widget under the
changed lines is asked for those lines only, not for all of its own. What goes to the
terminal must not change: the same strips at the same cuts, line for line, on the menu
and on a screen scrolled part of the way (its widgets clipped by the view).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from textual._compositor import Compositor
from textual.geometry import Region
from textual.screen import Screen
from textual.strip import Strip
from textual.widget import Widget
from textual.widgets import OptionList

from tests.tui.conftest import until
from tests.tui.test_menu_repaint import menu_options
from tui.app import make_app
from tui.compositor import SwiftCompositor
from tui.screens.menu import MenuScreen

pytestmark = pytest.mark.asyncio


def _crops(width: int, height: int) -> list[Region]:
    """Repaints of every kind: each line alone, a few lines, a part of a line, a box in
    the middle, lines far apart (the crop spans what lies between), the whole screen."""
    crops = [Region(0, y, width, 1) for y in range(height)]
    crops += [Region(0, 3, width, 4), Region(5, 10, 20, 1), Region(width // 3, height // 3,
              width // 3, height // 3), Region(0, 0, width, height)]
    return crops


def _shown(chops: object, lines: set[int]) -> list[list[tuple[int, list[object]]]]:
    """The strips of ``lines`` at their cuts, as comparable values."""
    assert isinstance(chops, list)
    out = []
    for y in sorted(lines):
        line = chops[y]
        out.append([(cut, list(strip) if isinstance(strip, Strip) else strip)
                    for cut, strip in sorted(line.items())])
    return out


def _same_as_textual(screen: Screen[object]) -> int:
    """Compare the two on every crop of ``screen``; the number of crops compared."""
    compositor = screen._compositor
    width, height = compositor.size
    compared = 0
    for crop in _crops(width, height):
        lines = set(crop.line_range)
        rendered = lines.__contains__
        textual = Compositor._render_chops(compositor, crop, rendered)
        # (Any screen's compositor: the method reads only what every compositor has.)
        swift = SwiftCompositor._render_chops(compositor, crop, rendered)  # type: ignore[arg-type]
        assert _shown(swift, lines) == _shown(textual, lines), crop
        # A line not repainted is left alone by both.
        assert all(v is None for y in range(height) if y not in lines
                   for v in swift[y].values()), crop
        compared += 1
    return compared


async def test_the_menu_repaints_the_same_lines_textual_would(stacks_home: Path) -> None:
    app = make_app(profiles=stacks_home)
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, MenuScreen), "the menu")
        assert isinstance(app.screen._compositor, SwiftCompositor)
        options = app.screen.query_one("#menu-options", OptionList)
        await until(pilot, lambda: options.highlighted == 0 and options.has_focus,
                    "the first option highlighted")
        await pilot.press("down", "down")
        await until(pilot, lambda: options.highlighted == 2, "the third option")
        await pilot.pause()
        assert _same_as_textual(app.screen) == 30 + 4


async def test_a_scrolled_screen_repaints_the_same_lines_textual_would(
    stacks_home: Path,
) -> None:
    """The rules, scrolled down: widgets cut by the top and the bottom of the view."""
    app = make_app(profiles=stacks_home)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, MenuScreen), "the menu")
        await pilot.press("r")
        await until(pilot, lambda: type(app.screen).__name__ == "RulesScreen", "the rules")
        await pilot.pause()
        for _ in range(7):
            await pilot.press("pagedown")
        await pilot.pause()
        screen = app.screen
        clipped = [w for w, (region, clip) in screen._compositor.visible_widgets.items()
                   if not clip.contains_region(region)]
        assert clipped, "nothing is cut by the view: the test would not test that"
        assert _same_as_textual(screen) == 24 + 4


async def test_a_highlight_move_renders_two_lines_of_each_widget_under_them(
    stacks_home: Path,
) -> None:
    """What the compositor asks of the widgets for a move of the menu's highlight: the
    two lines concerned, of the screen, the menu's box and the list (Textual asks each
    for all of its lines)."""
    app = make_app(profiles=stacks_home)
    async with app.run_test(size=(100, 30)) as pilot:
        options = await menu_options(app, pilot)
        await pilot.pause()
        asked: list[tuple[Widget, int]] = []
        for widget in app.screen._compositor.visible_widgets:
            def counted(crop: Region, widget: Widget = widget,
                        render_lines: object = widget.render_lines) -> list[Strip]:
                asked.append((widget, crop.height))
                assert callable(render_lines)
                strips: list[Strip] = render_lines(crop)
                return strips

            widget.render_lines = counted  # type: ignore[method-assign]
        await pilot.press("down")
        await until(pilot, lambda: options.highlighted == 1 and bool(asked), "a repaint")
        await pilot.pause()
        assert options in {widget for widget, _ in asked}
        assert all(lines <= 2 for _, lines in asked), asked
