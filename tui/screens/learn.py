"""``stacks learn``: the first game that teaches, on the real table screen.

:class:`LearnScreen` is the table (:class:`TableScreen`: the same keys, clicks, prompts
and words) over a scripted game held here, with no session and no network
(``tui.learn``: the deal, the lessons and Tutor's moves). A panel above the table says
what the lesson at hand asks; a move it doesn't take is refused and explained, and the
player tries again. After the last lesson, Enter goes back to the menu.
"""

from __future__ import annotations

import contextlib
from typing import ClassVar

from textual._path import CSSPathType
from textual.app import ComposeResult
from textual.css.query import NoMatches
from textual.timer import Timer
from textual.widgets import Static

from engine.actions import Action, PassBlock
from engine.errors import IllegalActionError
from engine.views import view_for
from tui.learn import LESSONS, NAMES, TUTOR, YOU, Lesson, lesson_game, tutor_acts, tutor_move
from tui.model import SeatPresence
from tui.screens.table import TableScreen
from tui.widgets.hand import picks
from tui.words import Narrator

TUTOR_DELAY = 1.2
"""Seconds Tutor waits before each move, so that the player sees it happen."""


class LearnScreen(TableScreen):
    """The lesson's table: you against Tutor, a lesson panel on top."""

    CSS_PATH: ClassVar[CSSPathType | None] = ["table.tcss", "learn.tcss"]  # the table, the lesson

    def __init__(self, *, delay: float = TUTOR_DELAY) -> None:
        # frozen: no Block countdown (a lesson waits for the player), no automatic pass.
        super().__init__("learn", NAMES, YOU, block_window=3.0, frozen=True)
        self.delay = delay
        self.game = lesson_game()
        self.lesson = 0
        """The index in ``LESSONS`` of the lesson at hand."""
        self.refused = ""
        """Why the last move was not taken (shown under the lesson), or ""."""
        self._tutor_played = 0
        self._tutor_timer: Timer | None = None
        self._narrator = Narrator(NAMES, YOU)
        self._narrator.learn(self.game.state)
        self.seats = tuple(SeatPresence(name, bot=seat == TUTOR, present=True, standin=False)
                           for seat, name in enumerate(NAMES))

    @property
    def current(self) -> Lesson:
        return LESSONS[self.lesson]

    @property
    def ready(self) -> bool:
        """The last lesson is on: the player may go back to the menu."""
        return self.lesson == len(LESSONS) - 1

    def compose(self) -> ComposeResult:
        yield Static(id="learn-lesson")
        yield from super().compose()

    def on_mount(self) -> None:
        super().on_mount()
        if not self._ready:
            return  # TableScreen.on_mount comes back once its widgets are there
        self.say("[b]Learn to play[/]: a short game against Tutor, a bot. "
                 "The panel on top says what to do.")
        self.view = view_for(self.game.state, YOU)
        self._show_lesson()

    # -- the lesson panel ------------------------------------------------------------------------

    def _show_lesson(self) -> None:
        lesson = self.current
        count = len(LESSONS) - 1
        where = "" if self.ready else f" [dim]({self.lesson + 1} of {count})[/]"
        text = f"[b]{lesson.title}[/]{where}  {lesson.text}"
        if tutor_acts(self.game.state) and lesson.name != "block":
            # The next lesson waits for Tutor's move (a pass of the Block window).
            text = "[b]Tutor's move[/]  Tutor may Block your pile, or pass: watch the log."
        if self.refused:
            text += f"\n[b reverse] ! [/] {self.refused}"
        with contextlib.suppress(NoMatches):
            self.query_one("#learn-lesson", Static).update(text)

    # -- moves: the player's, checked against the lesson; Tutor's, from its script ----------

    def _send(self, action: Action) -> None:
        self.hint = None
        self._discard_asked = None
        if self.ready:
            self._refuse(self.current.refusal)
            return
        if not self.current.takes(action):
            self._refuse(self.current.refusal)
            if isinstance(action, PassBlock):
                self._prompted = None  # the Block prompt again
                self.call_after_refresh(self._block_window, self.view)
            return
        if self._apply(action):
            self.lesson += 1
            self.refused = ""
            self._show_lesson()
            self._tutor_next()

    def _refuse(self, words: str) -> None:
        self.refused = words
        self._show_lesson()
        self.tell(words)

    def _apply(self, action: Action) -> bool:
        try:
            events = self.game.act(action)
        except IllegalActionError as exc:  # the screen checks first: a slip of ours
            self._refuse(str(exc))
            return False
        for event in events:
            line = self._narrator.describe(event.redacted_for(YOU))
            if line:
                self.say(line)
        self.view = view_for(self.game.state, YOU)
        return True

    def _tutor_next(self) -> None:
        if self._tutor_timer is None and tutor_acts(self.game.state):
            self._tutor_timer = self.set_timer(self.delay, self._tutor_move)

    def _tutor_move(self) -> None:
        self._tutor_timer = None
        if not tutor_acts(self.game.state):
            return
        action = tutor_move(self.game, self._tutor_played)
        self._tutor_played += 1
        self._apply(action)
        self._show_lesson()
        self._tutor_next()

    # -- keys that mean something else here ------------------------------------------------------

    def action_hint(self) -> None:
        """The hint is the move the lesson asks for."""
        view, me = self.view, self.me
        if view is None or me is None or not self._my_turn() or self.ready:
            return
        found = [a for a in self.legal if self.current.takes(a)]
        if found:
            self.hint = found[0]
            card = getattr(found[0], "card", None)
            self.selected = next((p for p in picks(view, me) if p.card == card), None)
            self.cursor = 0
            self._repaint_choice()

    def action_do(self) -> None:
        if self.ready:
            self.action_leave()
            return
        super().action_do()

    def action_leave(self) -> None:
        if self._tutor_timer is not None:
            self._tutor_timer.stop()
        self.dismiss(None)

    def action_chat(self) -> None:
        self.tell("Tutor is a bot: nobody to talk to here. At a real table [b]t[/] talks.")

    def action_history(self) -> None:
        self.tell("The log on the right is the whole game so far. At a real table [b]l[/] "
                  "shows it turn by turn.")
