"""A finished (or recorded) game, event by event: the states a replay steps through.

A replay starts from the table before the deal and applies the game's events with the
engine's own reducer, keeping the state after each one, so stepping back is as cheap as
stepping on. It is built from a host's game record (every card known), or from what a
player holds at the end of a game: once the host has revealed its secret, the whole game
(every hand) is re-derived from the seed and the recorded actions, as ``stacks verify``
does; before that, only the player's own view.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.actions import Action
from engine.classic.actions import SequenceAction
from engine.errors import EngineError
from engine.games import DEFAULT_GAME, AnyEvent, GameDef, game_def
from engine.state import HOST, Audience, Seat
from netplay.batch import Batch
from netplay.errors import FrameError
from netplay.record import read_record
from netplay.verify import GameFacts, deal_seed
from tui.history import HEADERS, History, Line, Step
from tui.words import short_name


class ReplayError(ValueError):
    """A record that can't be replayed, in words."""


@dataclass(frozen=True, slots=True)
class Moment:
    """The table right after one event (index 0: before the deal)."""

    state: Any
    """The game's state (``State``, or ``SequenceState`` for classic Sequence)."""
    event: AnyEvent | None
    batch: int
    turn: int
    """Turns started or skipped so far."""


class Replay:
    """Every moment of one game, from one audience (``HOST``: every hand)."""

    def __init__(self, title: str, names: Sequence[str], start: Any,
                 steps: Sequence[Step], game: str = DEFAULT_GAME) -> None:
        self.title = title
        self.names = tuple(names)
        self.steps = tuple(steps)
        self.game = game
        self.definition: GameDef[Any, Any, Any, Any] = game_def(game)
        self.audience: Audience = start.audience
        state = start.copy()
        moments = [Moment(state.copy(), None, 0, 0)]
        apply = self.definition.apply
        try:
            for step in steps:
                for event in step.events:
                    apply(state, event)
                    moments.append(Moment(state.copy(), event, step.n, state.turn))
        except (EngineError, IndexError, KeyError, ValueError, TypeError) as exc:
            raise ReplayError(f"event {len(moments)} does not apply: {exc}") from None
        self.moments = tuple(moments)
        self.turn_starts = tuple(
            i for i, m in enumerate(self.moments) if isinstance(m.event, HEADERS)
        )

    @property
    def every_hand(self) -> bool:
        return self.audience == HOST

    @property
    def last(self) -> int:
        return len(self.moments) - 1

    def view(self, at: int, seat: Seat | None) -> Any:
        """The table at moment ``at`` as ``seat`` saw it (``None``: every hand, if known)."""
        state = self.moments[at].state
        if seat is None or not self.every_hand:
            return state
        return self.definition.view_for(state, seat)

    def next_turn(self, at: int) -> int:
        return next((i for i in self.turn_starts if i > at), self.last)

    def previous_turn(self, at: int) -> int:
        return next((i for i in reversed(self.turn_starts) if i < at), 0)

    def story(self, seat: Seat | None) -> tuple[list[Line], list[int]]:
        """The history's lines as ``seat`` reads them (``None``: a spectator's words with
        every hand named), and for each moment how many lines it has told."""
        history = History(self.names, seat, self.game,
                          getattr(self.moments[0].state, "teams", None))
        told = [0]
        for step in self.steps:
            for event in step.events:
                one = Step(step.n, step.action, (event,), step.standin)
                history.add(one)
                told.append(len(history.lines))
        return history.lines, told


def _batches(bodies: object, game: GameDef[Any, Any, Any, Any]) -> dict[int, Batch]:
    if not isinstance(bodies, list):
        raise ReplayError("the record holds no batches")
    try:
        batches = {b.n: b for b in (Batch.from_body(body, game) for body in bodies)}
    except (FrameError, EngineError, KeyError, TypeError, ValueError) as exc:
        raise ReplayError(f"a batch of the record is malformed: {exc}") from None
    missing = [n for n in range(1, len(batches) + 1) if n not in batches]
    if missing:
        raise ReplayError(f"the record lacks batch {missing[0]}")
    return batches


def replay_record(record: Mapping[str, Any], title: str = "") -> Replay:
    """A game record (``netplay.record``): every event, every hand. A seat's record
    (``SEAT_FORMAT``) holds only that seat's view: every hand comes from the revealed
    secret, as at the end of a game (`replay_game`)."""
    from netplay.record import SEAT_FORMAT

    if record.get("format") == SEAT_FORMAT:
        return _seat_replay(record, title)
    try:
        game = game_def(record.get("game", DEFAULT_GAME))
        players = int(record["players"])
        rules = game.config_from_wire(record["rules"])
        names = [short_name(str(n)) for n in record.get("names") or []]
        start = game.new_state(rules, players)
    except (KeyError, TypeError, ValueError, EngineError) as exc:
        raise ReplayError(f"the record is malformed: {exc}") from None
    names += [f"Seat {s + 1}" for s in range(len(names), players)]
    batches = _batches(record.get("batches"), game)
    steps = [Step.of(n, b.action, b.events, b.standin) for n, b in sorted(batches.items())]
    return Replay(title or str(record.get("table", "a game")), names, start, steps, game.name)


def _seat_replay(record: Mapping[str, Any], title: str) -> Replay:
    try:
        game = game_def(record.get("game", DEFAULT_GAME))
        players = int(record["players"])
        seat = record["seat"]
        if type(seat) is not int or not 0 <= seat < players:
            raise ValueError(f"seat {seat!r} is not at the table")
        commits = record.get("entropy_commits")
        facts = GameFacts(
            str(record["table"]), players, game.config_from_wire(record["rules"]),
            tuple(record["keys"]), record["commit"], tuple(record["entropies"]),
            record.get("dealer"), None if commits is None else tuple(commits), game=game.name)
        secret = record.get("secret")
        names = [short_name(str(n)) for n in record.get("names") or []]
    except (KeyError, TypeError, ValueError, EngineError) as exc:
        raise ReplayError(f"the record is malformed: {exc}") from None
    names += [f"Seat {s}" for s in range(len(names), players)]
    batches = _batches(record.get("batches"), game)
    replay = replay_game(facts, names, batches, seat,
                         secret if isinstance(secret, bytes) else None)
    if title:
        replay.title = title
    return replay


def replay_file(path: Path) -> Replay:
    try:
        record = read_record(path)
    except ValueError as exc:
        raise ReplayError(str(exc)) from None
    return replay_record(record, str(record.get("table") or path.stem))


def replay_game(facts: GameFacts, names: Sequence[str], batches: Mapping[int, Batch],
                audience: Audience, secret: bytes | None) -> Replay:
    """What a player or spectator holds: with the revealed ``secret`` every hand (the game
    re-derived from the seed and the batches' actions), else its own view."""
    total = max(batches, default=0)
    definition = game_def(facts.game)
    if secret is not None and all(n in batches for n in range(1, total + 1)):
        try:
            game = definition.new_game(facts.players, deal_seed(secret, facts.entropies),
                                       facts.rules, facts.dealer)
            steps = [Step(1, None, tuple(game.log))]
            for n in range(2, total + 1):
                action = batches[n].action
                if not isinstance(action, Action | SequenceAction):
                    raise ReplayError(f"batch {n} has no action")
                steps.append(Step(n, action, tuple(game.act(action)), batches[n].standin))
            return Replay(facts.table, names, definition.new_state(facts.rules, facts.players),
                          steps, definition.name)
        except EngineError:
            pass  # the seed does not give this game: fall back to what we saw
    start = definition.view_for(definition.new_state(facts.rules, facts.players), audience)
    steps = [Step.of(n, b.action, b.events, b.standin) for n, b in sorted(batches.items())]
    return Replay(facts.table, names, start, steps, definition.name)


def recent_records(folder: Path, limit: int = 9) -> list[Path]:
    """The newest game records in ``folder`` (newest first)."""
    try:
        files = [p for p in folder.glob("*.json") if p.is_file()]
    except OSError:
        return []
    files.sort(key=_mtime, reverse=True)
    return files[:limit]


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:  # gone since the folder was listed
        return 0.0


RECORD_LIMIT = 64 * 1024 * 1024
"""A bigger file is no record of ours (a long game's is a few megabytes): not read."""
_TURNS = ("turn", "skipped")
"""The wire types of the events that start a turn (of either game)."""


@dataclass(frozen=True, slots=True)
class RecordInfo:
    """What a list of records says about one: the game, the players, the winner, the
    length and the date, read from its header; or why the file can't be read."""

    path: Path
    when: float
    """When the record was written (the game's end): the file's time."""
    game: str = ""
    """The game's title: Sequence Stacks, or Sequence (classic)."""
    table: str = ""
    names: tuple[str, ...] = ()
    result: str = ""
    """``Ana won``, ``a draw``, or ``not finished``."""
    turns: int = 0
    problem: str = ""
    """Why the file is not a readable record ("" when it is)."""

    def words(self) -> str:
        """One line of plain words for a list."""
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(self.when)) if self.when \
            else "date unknown"
        if self.problem:
            return f"{self.path.name} · unreadable: {self.problem} · {when}"
        turns = f"{self.turns} turn{'' if self.turns == 1 else 's'}"
        return " · ".join((f"{self.game} at {self.table}", ", ".join(self.names),
                           self.result, turns, when))


def record_info(path: Path) -> RecordInfo:
    """Read a record's header for a list; never raises (a bad file says why)."""
    when = _mtime(path)
    try:
        if path.stat().st_size > RECORD_LIMIT:
            return RecordInfo(path, when, problem="too big to be a game record")
        record = read_record(path)
        game = game_def(record.get("game", DEFAULT_GAME))
        players = int(record["players"])
        names = [short_name(str(n)) for n in record.get("names") or []][:players]
        names += [f"Seat {s + 1}" for s in range(len(names), players)]
        bodies = record.get("batches") or []
        if not isinstance(bodies, list):
            raise TypeError("its batches are not a list")
        turns = sum(1 for body in bodies if isinstance(body, dict)
                    for event in body.get("events") or () if isinstance(event, dict)
                    and event.get("type") in _TURNS)
        result = _result(record.get("outcome"), game.name, record.get("rules"), names)
    except (ValueError, KeyError, TypeError, AttributeError, OSError, EngineError) as exc:
        why = str(exc).removeprefix(f"can't read game record {path}: ")
        return RecordInfo(path, when, problem=why or type(exc).__name__)
    title = "Sequence Stacks" if game.name == "stacks" else "Sequence (classic)"
    return RecordInfo(path, when, title, str(record.get("table") or path.stem),
                      tuple(names), result, turns)


def _result(outcome: object, game: str, rules: object, names: Sequence[str]) -> str:
    """Who won, in words (classic Sequence's winner is a team)."""
    if not isinstance(outcome, Mapping):
        return "not finished"
    winner = outcome.get("winner")
    if winner is None:
        return "a draw"
    if not isinstance(winner, int):
        raise TypeError(f"the winner {winner!r} is not a seat")
    if game == "stacks":
        return f"{names[winner] if 0 <= winner < len(names) else f'Seat {winner + 1}'} won"
    from engine.classic.state import default_teams, team_name

    teams = rules.get("teams") if isinstance(rules, Mapping) else None
    teams = teams if isinstance(teams, int) and teams > 0 else default_teams(len(names))
    members = [names[s] for s in range(winner, len(names), teams)]
    if teams == len(names):
        return f"{', '.join(members)} won"
    return f"{team_name(winner)} won ({', '.join(members)})"
