"""What both games' table screens share: the log, the chat line, leaving, the results.

:class:`tui.screens.table.TableScreen` (Sequence Stacks) and
:class:`tui.screens.board.BoardScreen` (classic Sequence) draw their games their own way;
the talk around the table and the keys that are not about the game work alike.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from textual.screen import Screen
from textual.widgets import Input

from engine.state import Seat
from tui.appbase import GameApp
from tui.launch import Launch
from tui.messages import LeaveTable, Problem, Say, ShowResults
from tui.screens.choice import Answer, ChoiceScreen
from tui.widgets.log import TableLog


class SeatedScreen(Screen[None]):
    """A game's screen, from one seat (``me``) or the rail (``me`` is ``None``)."""

    CHAT: ClassVar[str] = "#table-chat"
    """The selector of the screen's chat line (an ``Input``, opened by ``t``)."""
    me: Seat | None

    def say(self, markup: str) -> None:
        """Add a line to the log."""
        for log in self.query(TableLog):
            log.say(markup)

    def retell(self, lines: Sequence[str]) -> None:
        """The log again from these lines (the whole game, once a rejoin's history came)."""
        for log in self.query(TableLog):
            log.clear()
            for line in lines:
                log.say(line)

    def heard(self, name: str, text: str) -> None:
        for log in self.query(TableLog):
            log.chat(name, text)

    def action_chat(self) -> None:
        chat = self.query_one(self.CHAT, Input)
        chat.add_class("-open")
        chat.can_focus = True
        chat.focus()

    def action_report(self) -> None:
        """The chat line, opened with ``!``: ``!NAME why`` reports a player to the
        server's moderators (`tui.moderation`)."""
        if not report_allowed(self):
            return
        chat = self.query_one(self.CHAT, Input)
        chat.select_on_focus = False  # the "!" stays, the name is typed after it
        self.action_chat()
        open_with(chat, "!")

    def _close_chat(self) -> None:
        chat = self.query_one(self.CHAT, Input)
        chat.remove_class("-open")
        chat.value = ""
        chat.can_focus = False
        self.set_focus(None)

    def _chat_open(self) -> bool:
        return self.query_one(self.CHAT, Input).has_class("-open")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        text = event.value.strip()
        if text:
            self.post_message(Say(text))
        self._close_chat()

    def action_history(self) -> None:
        from tui.messages import ShowHistory

        self.post_message(ShowHistory())

    def action_scroll_log(self, step: int) -> None:
        self.query_one(TableLog).page(step)

    def action_results(self) -> None:
        self.post_message(ShowResults())

    def _esc_leaves(self) -> bool:
        """Esc, with nothing to put down, leaves: from the rail (nothing to pick there), or
        when the banner says the table is gone or cut off ("Esc leaves")."""
        problem: Problem | None = getattr(self, "problem", None)
        return self.me is None or problem is not None

    def action_leave(self) -> None:
        view: Any = getattr(self, "view", None)
        if view is None or view.outcome is not None or self.me is None:
            self.post_message(LeaveTable())
            return
        answers = [Answer("Stay", False), Answer("Leave the table", True)]

        def chosen(leave: bool | None) -> None:
            if leave:
                self.post_message(LeaveTable())

        self.app.push_screen(ChoiceScreen(leave_question(self._launch()), answers), chosen)

    def _launch(self) -> Launch | None:
        control = getattr(self.app, "_control", None)
        launch = getattr(control, "launch", None)
        return launch if isinstance(launch, Launch) else None


def leave_question(launch: Launch | None) -> str:
    """What leaving costs, said to whoever asks: a game against bots ends; a table you
    host ends for everyone; a seat elsewhere is played by a bot until you come back."""
    if launch is not None and launch.role == "play":
        return "Leave the game? The game against the bots ends here."
    if launch is not None and launch.hosting and not launch.held:
        return "Leave the game? You host this table: leaving ends it for everyone."
    return "Leave the game? A bot plays your seat while you are away; join again to sit " \
           "back down."


def sentence(text: str) -> str:
    """The engine's reason as a sentence: a capital first, a full stop last."""
    text = text.strip()
    return text[:1].upper() + text[1:] + ("" if text.endswith((".", "!", "?")) else ".")


def open_with(field: Input, text: str) -> None:
    """``text`` in the (focused) field, the cursor after it."""
    field.value = text
    field.cursor_position = len(text)


def report_allowed(screen: Screen[None]) -> bool:
    """Reports go to an ssh server's moderators: said so where there is none."""
    app = screen.app
    if isinstance(app, GameApp) and app.link is not None and not app.kiosk:
        return True
    screen.notify("Reports reach the moderators of an ssh server (stacks serve): this "
                  "table has none.", timeout=5)
    return False
