"""A game's whole story in words: every event, turn by turn, with pile names and stand-ins.

The table's log shows the latest lines; the history screen (``l``) and replays read the
same lines from here, built from the batches a peer holds. Nothing here decides a rule:
the lines are the :class:`~tui.words.Narrator`'s.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from engine.actions import Action
from engine.classic.actions import SequenceAction
from engine.classic.events import SequenceEvent
from engine.classic.events import TurnStarted as ClassicTurnStarted
from engine.classic.state import default_teams
from engine.events import Event, TurnSkipped, TurnStarted
from engine.games import AnyAction, AnyEvent
from engine.state import Seat
from netplay.batch import Batch
from tui.classic_words import ClassicNarrator
from tui.words import Narrator

HEADERS = (TurnStarted, TurnSkipped, ClassicTurnStarted)
"""The events that start a turn (a header line), of either game."""


@dataclass(frozen=True, slots=True)
class Step:
    """One batch of events: what one action (or the deal) caused."""

    n: int
    action: AnyAction | None
    events: tuple[AnyEvent, ...]
    standin: bool = False
    """The host's stand-in bot played for an absent player."""

    @classmethod
    def of(cls, n: int, action: object, events: Iterable[object], standin: bool = False,
           ) -> Step:
        """A batch of the wire (either game's): its actions and events, nothing else."""
        return cls(n, action if isinstance(action, Action | SequenceAction) else None,
                   tuple(e for e in events if isinstance(e, Event | SequenceEvent)), standin)


@dataclass(frozen=True, slots=True)
class Line:
    """One line of the history."""

    turn: int
    """The turn it belongs to (0: the deal)."""
    markup: str
    header: bool = False
    """A turn's header line."""
    n: int = 0
    """The batch it came from."""
    event: AnyEvent | None = None
    """The event it tells (``None``: a gap, a note)."""


class History:
    """Lines told so far, in order; a gap says which batches this peer never received."""

    def __init__(self, names: Sequence[str], me: Seat | None, game: str = "stacks",
                 teams: int | None = None) -> None:
        self.names = tuple(names)
        self.me = me
        self.game = game
        self.narrator: Narrator | ClassicNarrator = (
            Narrator(names, me) if game == "stacks"
            else ClassicNarrator(names, me, teams or default_teams(max(2, len(names)))))
        self.lines: list[Line] = []
        self.turn = 0
        self.last = 0
        """The last batch told."""
        self.counted = True
        """Every turn so far was seen: turn numbers are right."""

    def add(self, step: Step) -> list[Line]:
        """Tell one batch; the new lines."""
        gap = self.gap(step.n - 1)
        new: list[Line] = []
        standin = ""
        if step.standin and step.action is not None:
            seat = getattr(step.action, "seat", None)
            if isinstance(seat, int):
                # Once, on the action's own line: the lines after it (a chip won, a pile
                # closed) are not the bot's doing, and "for You" reads wrong.
                who = "you" if seat == self.me else self.narrator.who(seat)
                standin = f" [dim](a bot played for {who})[/]"
        for event in step.events:
            header = isinstance(event, HEADERS)
            if header:
                self.turn += 1
            text = self.narrator.describe(event)  # type: ignore[arg-type]
            if text is None:
                continue
            if header:
                number = f"{self.turn}. " if self.counted else ""
                text = f"[dim]── {number}[/]{text.removeprefix('[dim]──[/] ')}"
                if isinstance(event, TurnSkipped):
                    text += " [dim]──[/]"
            elif standin:
                text += standin
                standin = ""
            new.append(Line(self.turn, text, header=header, n=step.n, event=event))
        self.last = max(self.last, step.n)
        self.lines.extend(new)
        return gap + new

    def gap(self, upto: int) -> list[Line]:
        """A line for batches after the last told up to ``upto`` that never came."""
        if upto <= self.last:
            return []
        first = self.last + 1
        span = f"batch {first}" if first == upto else f"batches {first}-{upto}"
        line = Line(self.turn, f"[dim]… {span} not received here (you were away?)[/]", n=upto)
        self.lines.append(line)
        self.last = upto
        self.counted = False  # turns went by unseen: the numbers would be wrong
        return [line]

    def at_turn(self, turn: int) -> None:
        """The game is at ``turn`` now (a snapshot's view says so, after batches this peer
        never got): the turn headers go on numbered from there."""
        self.turn = turn
        self.counted = True

    def extend(self, steps: Iterable[Step]) -> None:
        for step in steps:
            self.add(step)

    def note(self, markup: str) -> Line:
        """A line that is not an event (a Block race, a notice)."""
        line = Line(self.turn, markup, n=self.last)
        self.lines.append(line)
        return line


def history_of(batches: Mapping[int, Batch], names: Sequence[str], me: Seat | None,
               upto: int | None = None, game: str = "stacks",
               teams: int | None = None) -> History:
    """The history told from a peer's received batches, in order (up to batch ``upto``)."""
    history = History(names, me, game, teams)
    last = upto if upto is not None else max(batches, default=0)
    for n in sorted(k for k in batches if k <= last):
        batch = batches[n]
        history.add(Step.of(n, batch.action, batch.events, batch.standin))
    history.gap(last)
    return history
