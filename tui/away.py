"""What a player missed while away, in one sentence a player uses.

A player who comes back to a running game receives the batches it missed after the fact
(netplay's ``Missed`` notices, from its last batch held, or from the first one for a
program started anew: an ssh session, a restarted terminal). The whole story stays on the
history screen; the log gets one line:

    While you were away: 6 turns; your stand-in played 2, Bo took a Red chip.

The time away is counted from the player's last own move among those batches (before it,
the player was at the table and saw the game), so a program started anew does not call the
whole game "while you were away".
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from engine.classic import events as classic
from engine.events import ChipAwarded, ChipTaken, GameOver, PileBlocked, TurnEnded
from engine.games import AnyAction, AnyEvent
from engine.state import Seat
from tui.classic_words import team_title
from tui.plural import counted

MOST_NEWS = 3
"""At most this many things said by name; the rest are counted ("and 2 more")."""


@dataclass(frozen=True, slots=True)
class MissedBatch:
    """One batch the player missed: who acted (``None``: the host or the table), what it
    did, and whether a stand-in played it for an away player."""

    n: int
    action: AnyAction | None
    events: tuple[AnyEvent, ...]
    standin: bool


def away_span(batches: Sequence[MissedBatch], me: Seat | None) -> list[MissedBatch]:
    """The batches after the player's last own move (a stand-in's move is not its own)."""
    ordered = sorted(batches, key=lambda b: b.n)
    if me is None:
        return ordered
    last = max((i for i, b in enumerate(ordered)
                if b.action is not None and b.action.seat == me and not b.standin),
               default=-1)
    return ordered[last + 1:]


def away_summary(batches: Sequence[MissedBatch], names: Sequence[str], me: Seat | None) -> str:
    """One plain line (no markup) of what happened in ``batches`` (already cut to the time
    away, :func:`away_span`)."""
    if not batches:
        return "You are back: nothing was played while you were away."
    turns = standin = 0
    news: list[str] = []
    for batch in batches:
        mine_by_standin = batch.standin and batch.action is not None \
            and batch.action.seat == me
        for event in batch.events:
            if isinstance(event, (TurnEnded, classic.TurnEnded)):
                turns += 1
                if mine_by_standin and event.seat == me:
                    standin += 1
            line = _news(event, names, me, by_standin=mine_by_standin)
            if line:
                news.append(line)
    parts = [counted(turns, "turn")] if turns else ["no turn ended"]
    tail: list[str] = []
    if standin:
        tail.append(f"your stand-in played {standin}")
    shown = news[:MOST_NEWS]
    tail.extend(shown)
    if len(news) > len(shown):
        tail.append(f"and {len(news) - len(shown)} more (l: the whole story)")
    if tail:
        parts.append(", ".join(tail))
    return "While you were away: " + "; ".join(parts) + "."


def _who(seat: Seat, names: Sequence[str], me: Seat | None, *, by_standin: bool) -> str:
    if seat == me:
        return "your stand-in" if by_standin else "you"
    return names[seat] if 0 <= seat < len(names) else f"seat {seat}"


def _news(event: AnyEvent, names: Sequence[str], me: Seat | None, *, by_standin: bool) -> str:
    """What a player wants to hear of ``event`` after the fact, or ""."""
    if isinstance(event, ChipAwarded):
        who = _who(event.seat, names, me, by_standin=by_standin)
        return f"{who} took a {event.colour.title} chip"
    if isinstance(event, ChipTaken):
        who = _who(event.seat, names, me, by_standin=by_standin)
        target = "you" if event.target == me else _who(event.target, names, me, by_standin=False)
        return f"{who} took a {event.colour.title} chip from {target}"
    if isinstance(event, PileBlocked):
        who = _who(event.seat, names, me, by_standin=by_standin)
        return f"{who} blocked a pile"
    if isinstance(event, classic.SequenceMade):
        return f"{team_title(event.team)} made a sequence"
    if isinstance(event, (GameOver, classic.GameOver)):
        return "the game ended"
    return ""
