"""A compositor whose partial repaints render the lines they repaint, not whole widgets.

When part of the screen changes (a menu's highlight moves: two lines), Textual's
`Compositor` asks every widget under the changed area for *all* of its lines (the
screen's thirty, the menu box's, the whole option list's), takes the changed lines out
of them and drops the rest. Each line costs little, cached as most are, but a widget's
every line is looked up, filtered and cropped on every repaint: most of a highlight
move's compositing under ``stacks serve``, where a hundred players share two cores
(key to repaint p99 at 100 sessions: docs/benchmarks.md).

`SwiftCompositor` asks each widget only for the lines of the changed area (what a widget
partly scrolled out of view is asked for by Textual already). What reaches the terminal
is the same; a line that is not repainted is rendered when it next is, from the state
of then. A full repaint (resize, a new screen) renders every line, as before.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from textual._compositor import Compositor
from textual.geometry import Region
from textual.screen import Screen
from textual.strip import Strip


class SwiftCompositor(Compositor):
    """`Compositor` that renders, of each widget, only the lines a repaint needs."""

    def _render_chops(
        self, crop: Region, is_rendered_line: Callable[[int], bool],
    ) -> Sequence[Mapping[int, Strip]]:
        """Textual's `Compositor._render_chops`, each widget rendered for the lines of
        ``crop`` only (Textual renders all of a widget wholly in view)."""
        cuts = self.cuts
        chops: list[dict[int, Strip | None]] = [
            dict.fromkeys(cut_set[:-1]) for cut_set in cuts]
        crop_overlaps = crop.overlaps
        top, bottom = crop.y, crop.bottom
        # Front to back (the order of `visible_widgets`): the first strip at a cut wins.
        for widget, (region, clip) in self.visible_widgets.items():
            if not crop_overlaps(clip):
                continue
            x, y, width, height = region.intersection(clip)
            first, last = max(y, top), min(y + height, bottom)
            if not width or last <= first:
                continue
            strips = widget.render_lines(
                Region(x - region.x, first - region.y, width, last - first))
            right = x + width
            for line_y, strip in zip(range(first, last), strips, strict=False):
                if not is_rendered_line(line_y):
                    continue
                chops_line = chops[line_y]
                final_cuts = [cut for cut in cuts[line_y] if right >= cut >= x]
                pieces = strip.divide([cut - x for cut in final_cuts[1:]])
                for cut, piece in zip(final_cuts, pieces, strict=False):
                    if chops_line.get(cut) is None:
                        chops_line[cut] = piece
        return chops  # type: ignore[return-value]  # every cut is filled, as Textual's


def use_swift_compositor(screen: Screen[Any]) -> None:
    """Give ``screen`` a `SwiftCompositor` (call in its ``__init__``, before it mounts)."""
    screen._compositor = SwiftCompositor()
