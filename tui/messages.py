"""Messages between the parts of the interface.

Up from screens to the app: what the user wants (:class:`Act`, :class:`Say`, ...).
From the session's worker to the app: what happened at the table (:class:`NetNotice`,
:class:`Health`, :class:`SessionFailed`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual.message import Message

if TYPE_CHECKING:  # the menu posts Start without loading the rules and the protocol
    from engine.games import AnyAction
    from netplay.playing.notices import Notice
    from tui.launch import Launch


@dataclass(frozen=True, slots=True)
class Problem:
    """A connection problem in words: what happened and what the user can do."""

    title: str
    words: str
    advice: str
    severe: bool = False
    watch: bool = False
    """The table can be watched instead (a full table, a game already on): ``w`` does."""


# -- up from screens ---------------------------------------------------------------------------


class Start(Message):
    """Open this table (from the menu or the join form)."""

    def __init__(self, launch: Launch) -> None:
        super().__init__()
        self.launch = launch


class Act(Message):
    """Send this action to the host."""

    def __init__(self, action: AnyAction) -> None:
        super().__init__()
        self.action = action


class Say(Message):
    """Send a chat line."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text


class FillWithBots(Message):
    """The host wants bots in the empty seats, so the game starts now."""


class SetBlockWindow(Message):
    """The host lengthens the Block window before the deal (for a seat in plain mode)."""

    def __init__(self, seconds: float) -> None:
        super().__init__()
        self.seconds = seconds


class CloseTable(Message):
    """The creator of a table the ssh server holds closes it (from its lobby)."""


class LeaveTable(Message):
    """Back to the main menu (the session closes)."""


class ShowResults(Message):
    """Back to the game-over screen from the finished table."""


class Rematch(Message):
    """Another game with the same table settings."""


# -- from the session ---------------------------------------------------------------------------


class NetNotice(Message):
    """A notice of the player's (or spectator's) session."""

    def __init__(self, notice: Notice) -> None:
        super().__init__()
        self.notice = notice


class Waiting(Message):
    """Whom the table waits for and how long, in words ("" when nobody)."""

    def __init__(self, line: str) -> None:
        super().__init__()
        self.line = line


class Health(Message):
    """The connection's state changed: a problem, or ``None`` when all is well again."""

    def __init__(self, problem: Problem | None) -> None:
        super().__init__()
        self.problem = problem


class SessionReady(Message):
    """The peers run; ``where`` tells others how to join (for a host)."""

    def __init__(self, where: str) -> None:
        super().__init__()
        self.where = where


class BrokerNote(Message):
    """Said once about the broker itself (it holds small messages back), in words."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text


class SessionFailed(Message):
    """The session could not start or ended on an error."""

    def __init__(self, problem: Problem) -> None:
        super().__init__()
        self.problem = problem


class RecordWritten(Message):
    def __init__(self, path: str) -> None:
        super().__init__()
        self.path = path


class Rated(Message):
    """What became of the finished game in the ratings, in words (the game-over screen
    shows it): stored, or kept until the database is back."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text


class ShowHistory(Message):
    """Open the game's whole history (the ``l`` key of the table)."""


class ShowReplay(Message):
    """Replay the game just finished (the game-over screen's ``v``)."""
