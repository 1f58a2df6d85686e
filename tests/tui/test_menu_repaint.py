"""The menu's arrow keys repaint the two options the highlight moves between, no more.

Under ``stacks serve`` a hundred players share two cores, and moving the menu's highlight
is the commonest input (key to repaint p99 at 100 sessions: docs/benchmarks.md): rendering the
whole list again on each move was most of a key press's CPU.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.geometry import Region
from textual.message import Message
from textual.pilot import Pilot
from textual.strip import Strip
from textual.widgets import OptionList

from tests.tui.conftest import until
from tui.app import StacksApp, make_app
from tui.screens.menu import MenuScreen

pytestmark = pytest.mark.asyncio


async def menu_options(app: StacksApp, pilot: Pilot[None]) -> OptionList:
    """The menu's option list, once the menu is up with its first option highlighted."""
    await until(pilot, lambda: isinstance(app.screen, MenuScreen), "the menu")
    options = app.screen.query_one("#menu-options", OptionList)
    await until(pilot, lambda: options.highlighted == 0 and options.has_focus,
                "the first option highlighted")
    return options


async def test_a_highlight_move_repaints_only_the_two_options_concerned(
    stacks_home: Path,
) -> None:
    app = make_app(profiles=stacks_home)
    async with app.run_test(size=(80, 24)) as pilot:
        options = await menu_options(app, pilot)
        await pilot.pause()
        painted: list[int] = []
        render_line = options.render_line

        def counted(y: int) -> Strip:
            painted.append(y)
            return render_line(y)

        options.render_line = counted  # type: ignore[method-assign]
        lines = options._index_to_line
        for key, old, new in (("down", 0, 1), ("down", 1, 2), ("up", 2, 1)):
            painted.clear()
            await pilot.press(key)
            await until(pilot, lambda new=new: options.highlighted == new  # type: ignore[misc]
                        and lines[new] in painted, f"option {new} repainted")
            await pilot.pause()
            # The highlight shows where it is (and left where it was) ...
            assert {lines[old], lines[new]} <= set(painted)
            # ... and nothing else of the list was rendered again.
            assert set(painted) <= {lines[old], lines[new]}, painted


async def test_the_highlight_is_where_the_keys_put_it(stacks_home: Path) -> None:
    """What the list shows after moves, each line as last painted: the highlighted
    option's style on the option the highlight is at, on no other (the lines it left
    were painted again without it)."""
    app = make_app(profiles=stacks_home)
    async with app.run_test(size=(80, 24)) as pilot:
        options = await menu_options(app, pilot)
        for key in ("down", "down", "down", "up"):
            await pilot.press(key)
        await until(pilot, lambda: options.highlighted == 2, "the third option")
        await pilot.pause()
        await pilot.pause()
        highlight = options.get_visual_style(
            "option-list--option", "option-list--option-highlighted").rich_style
        # The widget's lines as the screen has them: those not repainted come from the
        # cache of the last paint.
        shown = options.render_lines(Region(0, 0, *options.outer_size))
        top = options.content_offset.y
        lines = options._index_to_line
        styled = [index for index in range(len(options.options))
                  if any(segment.style is not None and segment.style.bgcolor
                         == highlight.bgcolor for segment in shown[top + lines[index]])]
        assert styled == [2]


async def test_the_menus_highlight_moves_post_no_messages(stacks_home: Path) -> None:
    """Nothing on the menu follows the highlight: a move posts no ``OptionHighlighted``,
    which would be dispatched at the list, its box, the screen and the app."""
    app = make_app(profiles=stacks_home)
    async with app.run_test(size=(80, 24)) as pilot:
        options = await menu_options(app, pilot)
        posted: list[Message] = []
        post_message = options.post_message

        def counted(message: Message) -> bool:
            posted.append(message)
            return post_message(message)

        options.post_message = counted  # type: ignore[method-assign]
        for key in ("down", "down", "up"):
            await pilot.press(key)
        await until(pilot, lambda: options.highlighted == 1, "the second option")
        await pilot.pause()
        assert not [m for m in posted if isinstance(m, OptionList.OptionHighlighted)]
