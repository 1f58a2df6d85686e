"""Where a table is in its life (:class:`TableState`): one explicit state, its moves a table
of data, a move from the wrong state an error. No I/O.

    LOBBY -> DEALING -> PLAYING <-> RACE -> OVER -> PUBLIC_OVER
      ^---------'          (CLOSED from any of them: the table is off the list)

``DEALING``: the deal's commit and reveal rounds are under way (``hosting.deal``); a void
round goes back to ``LOBBY``. ``RACE``: a Block window is open (``hosting.race``).
``OVER``: the game is over for the players; ``PUBLIC_OVER``: its end has gone to the
spectators too (with a spectator delay, once released). ``CLOSED`` remembers what it
closed: a closed table whose game was over is still over.
"""

from __future__ import annotations

from enum import Enum


class Stage(Enum):
    LOBBY = "lobby"
    DEALING = "dealing"
    PLAYING = "playing"
    RACE = "race"
    OVER = "over"
    PUBLIC_OVER = "public over"
    CLOSED = "closed"


class StateError(RuntimeError):
    """A move the table's state does not allow (a bug of the host, never of a peer)."""


_MOVES: dict[Stage, frozenset[Stage]] = {
    Stage.LOBBY: frozenset({Stage.LOBBY, Stage.DEALING, Stage.PLAYING}),
    Stage.DEALING: frozenset({Stage.LOBBY, Stage.DEALING, Stage.PLAYING}),
    Stage.PLAYING: frozenset({Stage.RACE, Stage.OVER}),
    Stage.RACE: frozenset({Stage.PLAYING, Stage.RACE, Stage.OVER}),
    Stage.OVER: frozenset({Stage.OVER, Stage.PUBLIC_OVER}),
    Stage.PUBLIC_OVER: frozenset({Stage.OVER, Stage.PUBLIC_OVER}),
}
"""Where each stage may go (``CLOSED`` aside: any stage may close). ``PUBLIC_OVER`` back
to ``OVER``: a resumed host holds the end back again for spectators (``hold_back``)."""

_STARTED = frozenset({Stage.PLAYING, Stage.RACE, Stage.OVER, Stage.PUBLIC_OVER})
_OVER = frozenset({Stage.OVER, Stage.PUBLIC_OVER})


class TableState:
    """The table's stage, and the stage it closed in (the game's progress goes on being
    told: a closed table's game may still end for the record)."""

    def __init__(self) -> None:
        self._progress = Stage.LOBBY
        self._closed = False

    def __repr__(self) -> str:
        closed = f" in {self._progress.name}" if self._closed else ""
        return f"TableState({self.stage.name}{closed})"

    @property
    def stage(self) -> Stage:
        return Stage.CLOSED if self._closed else self._progress

    @property
    def progress(self) -> Stage:
        """The game's stage, closed or not."""
        return self._progress

    @property
    def started(self) -> bool:
        """The deal is done: a game exists."""
        return self._progress in _STARTED

    @property
    def over(self) -> bool:
        return self._progress in _OVER

    @property
    def public_over(self) -> bool:
        """The game's end has gone to the spectators."""
        return self._progress is Stage.PUBLIC_OVER

    @property
    def closed(self) -> bool:
        return self._closed

    @property
    def status(self) -> str:
        """The announcement's and the welcome's word: ``lobby``, ``playing`` or ``over``."""
        if not self.started:
            return "lobby"
        return "over" if self.over else "playing"

    def move(self, to: Stage) -> None:
        """Go to ``to``; :class:`StateError` if the stage now may not."""
        if to is Stage.CLOSED:
            self._closed = True
            return
        if to not in _MOVES[self._progress]:
            raise StateError(f"a table {self._progress.value} can't become {to.value}")
        self._progress = to

    def dealing(self) -> None:
        self.move(Stage.DEALING)

    def void_round(self) -> None:
        """The deal's round is void: back to the lobby until seats and commitments are in."""
        if not self.started:
            self.move(Stage.LOBBY)

    def started_game(self) -> None:
        self.move(Stage.PLAYING)

    def race_opened(self) -> None:
        self.move(Stage.RACE)

    def race_closed(self) -> None:
        """A Block window closed (the game may have ended with it)."""
        if self._progress is Stage.RACE:
            self.move(Stage.PLAYING)

    def ended(self) -> None:
        self.move(Stage.OVER)

    def ended_publicly(self) -> None:
        self.move(Stage.PUBLIC_OVER)

    def close(self) -> None:
        self.move(Stage.CLOSED)
