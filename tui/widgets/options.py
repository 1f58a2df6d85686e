"""An option list whose highlight moves repaint two options, not the whole list.

Textual's ``OptionList`` repaints all of itself when its highlight moves (``highlighted``
is a reactive that repaints): every line is rendered again, composed and sent. Under
``stacks serve`` a hundred players move menu highlights on two shared cores, and the
menu's arrow keys are the most common input of all (key to repaint p99 at 100
sessions: docs/benchmarks.md), so :class:`SwiftOptionList` repaints just the lines of the option the
highlight left and of the one it reached. Everything else (scrolling, a changed prompt,
focus, a resize) repaints as Textual's list does. ↓ and ↑ are handled by the list itself
(`SwiftOptionList.key_down`), not by its bindings once they bubbled to the app.
"""

from __future__ import annotations

from textual import events
from textual.reactive import reactive
from textual.widgets import OptionList
from textual.widgets.option_list import Option


class SwiftOptionList(OptionList):
    """``OptionList`` whose highlight moves repaint only the two options concerned."""

    highlighted: reactive[int | None] = reactive(None, repaint=False)
    """The index of the highlighted option (``OptionList.highlighted``, without its
    repaint of the whole list: :meth:`watch_highlighted` repaints what changed)."""

    _painted: int | None = None
    """The option painted highlighted last."""

    def __init__(self, *content: Option, announce: bool = True,
                 id: str | None = None) -> None:
        """``announce=False``: a highlight move posts no ``OptionHighlighted`` (each
        message is dispatched up to the app, a tenth of a move's CPU), for a list whose
        screen has no use for it."""
        self.announce = announce
        super().__init__(*content, id=id)

    def key_down(self, event: events.Key) -> None:
        """↓ moves the highlight here, where the key arrives, as the list's binding would
        once the key had bubbled up to the app through every container (a message
        dispatched at each) and the bindings were looked up along the way back."""
        event.stop()
        self.action_cursor_down()

    def key_up(self, event: events.Key) -> None:
        """↑, as ↓ (`key_down`)."""
        event.stop()
        self.action_cursor_up()

    def watch_highlighted(self, highlighted: int | None) -> None:
        if self.announce:
            super().watch_highlighted(highlighted)  # scrolls to it, posts OptionHighlighted
        elif highlighted is not None and not self.options[highlighted].disabled:
            self.scroll_to_highlight()
        self._repaint_options(self._painted, highlighted)
        self._painted = highlighted

    def _repaint_options(self, *indices: int | None) -> None:
        """Repaint the lines of the options at ``indices`` (all of the list when their
        lines are not known yet, or this Textual keeps them otherwise)."""
        try:  # OptionList's own record of where each option's lines are
            self._update_lines()
            lines = self._index_to_line
            heights = self._heights
        except AttributeError:
            self.refresh()
            return
        for index in indices:
            if index is None:
                continue
            if index not in lines or index not in heights:
                self.refresh()
                return
            self.refresh_lines(lines[index], heights[index])
