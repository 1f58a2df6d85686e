"""The engine protocol's messages as plain data: what an outside program is told, and
how its answers are read (``docs/engine-protocol.md`` is the specification).

Pure and sans-I/O like the rest of the engine: the program's process, its pipes and its
clock live in :mod:`netplay.engines`. Everything a program is told about a game is built
here from **its seat's view** (:func:`engine.views.view_for` / the classic one), never
from the host's state, so a hidden card can't reach it by construction.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Final, TypeGuard

from engine.actions import (
    Action,
    Block,
    Discard,
    EndTurn,
    PassBlock,
    PlayCard,
    PlayReverse,
    PlaySkip,
    StealCard,
    StealChip,
)
from engine.cards import FACES, HIDDEN, Colour
from engine.classic import cards as classic_cards
from engine.classic.actions import (
    DiscardUnplayable,
    ExchangeDeadCard,
    PassTurn,
    PlaceChip,
    RemoveChip,
    SequenceAction,
)
from engine.classic.board import cell_name
from engine.classic.cards import JackKind
from engine.classic.snapshot import state_to_wire as sequence_state_to_wire
from engine.classic.state import SequenceState
from engine.snapshot import state_to_wire
from engine.state import NEW_PILE, Outcome, Phase, Seat, State, Zone

PROTOCOL_VERSION: Final = 1
"""The version this program speaks; a program that names another is refused in words."""

GAMES: Final = ("stacks", "sequence")

MAX_NAME: Final = 60
MAX_CHAT: Final = 200


class EngineProtocolError(ValueError):
    """A line of the program's that breaks the protocol; the message says how, in words."""


@dataclass(frozen=True, slots=True)
class Handshake:
    """What a program says of itself in its first line."""

    name: str
    author: str
    protocol: int
    games: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Answer:
    """A program's choice: ``choice``, the id of one of the legal actions it was sent;
    or ``action``, an action in its wire form (checked against the legal ones)."""

    request: int
    choice: int
    action: dict[str, Any] | None = None


@dataclass(frozen=True, slots=True)
class Chat:
    """A chat line the program wants said at the table (optional)."""

    text: str


Said = Handshake | Answer | Chat


def hello() -> dict[str, Any]:
    """Our first line: the protocol we speak and the games we may ask it to play."""
    return {"type": "hello", "protocol": PROTOCOL_VERSION, "games": list(GAMES)}


def parse_line(line: bytes | str) -> Said:
    """One line of the program's output as a message; :class:`EngineProtocolError` in
    words for anything else (not JSON, not an object, an unknown type, a bad field)."""
    text = line.decode("utf-8", "replace") if isinstance(line, bytes) else line
    text = text.strip()
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        raise EngineProtocolError(f"not JSON: {_clip(text)!r}") from None
    if not isinstance(data, dict):
        raise EngineProtocolError(f"not a JSON object: {_clip(text)!r}")
    kind = data.get("type")
    if kind == "hello":
        return _handshake(data)
    if kind == "action":
        request, choice, action = data.get("request"), data.get("id"), data.get("action")
        if _is_int(request) and isinstance(action, dict) and choice is None:
            return Answer(request, -1, action)
        if not _is_int(request) or not _is_int(choice):
            raise EngineProtocolError(
                "an action needs whole numbers 'request' and 'id', as in "
                '{"type": "action", "request": 3, "id": 0}')
        return Answer(request, choice)
    if kind == "chat":
        said = data.get("text")
        if not isinstance(said, str) or not said.strip():
            raise EngineProtocolError("a chat line needs some 'text'")
        return Chat(" ".join(said.split())[:MAX_CHAT])
    raise EngineProtocolError(
        f"unknown message type {_clip(str(kind))!r}; a program sends hello, action or chat")


def _handshake(data: dict[str, Any]) -> Handshake:
    protocol = data.get("protocol")
    if not _is_int(protocol):
        raise EngineProtocolError("the hello needs the protocol version it speaks: "
                                  f'"protocol": {PROTOCOL_VERSION}')
    games = data.get("games", list(GAMES))
    if not isinstance(games, list) or not all(isinstance(g, str) for g in games):
        raise EngineProtocolError("the hello's 'games' must be a list of game names")
    name = data.get("name")
    if not isinstance(name, str) or not name.strip():
        raise EngineProtocolError("the hello needs the program's 'name'")
    author = data.get("author", "")
    return Handshake(" ".join(name.split())[:MAX_NAME],
                     " ".join(str(author).split())[:MAX_NAME], protocol, tuple(games))


def check_handshake(said: Handshake) -> None:
    """Refuse, in words, a program that speaks another version or none of our games."""
    if said.protocol != PROTOCOL_VERSION:
        raise EngineProtocolError(
            f"{said.name} speaks engine protocol {said.protocol}; this program speaks "
            f"version {PROTOCOL_VERSION} only (see docs/engine-protocol.md)")
    if not set(said.games) & set(GAMES):
        raise EngineProtocolError(
            f"{said.name} plays {', '.join(said.games) or 'no game'}; this program offers "
            f"{' and '.join(GAMES)}")


def game_name(view: State | SequenceState) -> str:
    return "sequence" if isinstance(view, SequenceState) else "stacks"


def game_message(view: State | SequenceState, seat: Seat,
                 names: list[str] | None = None) -> dict[str, Any]:
    """A new game: which, its rules, the players and this program's seat."""
    message: dict[str, Any] = {
        "type": "game",
        "game": game_name(view),
        "rules": view.config.to_wire(),
        "players": view.players,
        "seat": seat,
        "names": list(names) if names else [f"seat {s + 1}" for s in range(view.players)],
    }
    if isinstance(view, SequenceState):
        message["teams"] = view.teams
        message["team"] = view.team_of(seat)
        message["board"] = view.board.rows()
    return message


def decide_message(view: State | SequenceState, seat: Seat, legal: list[Any], request: int,
                   budget: float) -> dict[str, Any]:
    """A decision: the seat's own view, the legal actions by id, and the time it has."""
    return {
        "type": "decide",
        "request": request,
        "seat": seat,
        "budget_ms": round(budget * 1000),
        "phase": phase_name(view),
        "view": view_data(view, seat),
        "legal": [{"id": i, "action": action.to_wire(), "text": describe(action, view)}
                  for i, action in enumerate(legal)],
    }


def end_message(seat: Seat, outcome: Outcome | None, view: State | SequenceState | None,
                termination: str | None = None, winner: int | None = None) -> dict[str, Any]:
    """The game's end. ``winner`` is a seat (Sequence Stacks) or a team (Sequence), or
    ``null`` for a draw; ``won`` says whether it was this program's."""
    if outcome is not None:
        winner = outcome.winner
    how = termination or (outcome.termination.name.lower() if outcome is not None else
                          "abandoned")
    mine: int | None = seat
    if isinstance(view, SequenceState):
        mine = view.team_of(seat)
    message: dict[str, Any] = {"type": "end", "termination": how, "winner": winner,
                               "won": winner is not None and winner == mine}
    if view is not None:
        message["view"] = view_data(view, seat)
    return message


def chat_message(name: str, text: str) -> dict[str, Any]:
    return {"type": "chat", "from": name, "text": text}


def view_data(view: State | SequenceState, seat: Seat) -> dict[str, Any]:
    """The seat's view as plain data: the snapshot form (``docs/protocol.md``; a hidden
    card is ``-1``) with each visible card's code beside it (``cards``)."""
    if view.audience != seat:
        raise ValueError(f"a view for seat {seat} must be that seat's view, "
                         f"not audience {view.audience}")
    if isinstance(view, SequenceState):
        data = sequence_state_to_wire(view)
        codes = classic_cards.CODES
    else:
        data = state_to_wire(view)
        codes = tuple(face.code for face in FACES)
    seen = sorted({card for card in _cards_in(data) if card != HIDDEN})
    data["cards"] = {str(card): codes[card] for card in seen}
    data["you"] = seat
    return data


def _cards_in(data: dict[str, Any]) -> list[int]:
    """Every card id a snapshot shows (hands, piles, discards, windows...)."""
    out: list[int] = []
    for key in ("draw_pile", "hands", "discards", "out_of_play", "special_discard"):
        value = data.get(key)
        if isinstance(value, list):
            for item in value:
                out.extend(item if isinstance(item, list) else [item])
    for pile in data.get("piles") or []:
        out.extend(pile[2])
    window = data.get("window")
    if isinstance(window, list):
        out.extend(window[0][2])
    return out


def describe(action: Any, view: State | SequenceState) -> str:
    """The action in a few words (``play R4 on pile b``), for the program's log."""
    if isinstance(action, SequenceAction):
        return _describe_sequence(action)
    return _describe_stacks(action, view)


def _code(card: int) -> str:
    return FACES[card].code


def _describe_stacks(action: Action, view: State | SequenceState) -> str:
    match action:
        case PlayCard(card=card, pile=pile):
            where = "a new pile" if pile == NEW_PILE else f"pile {_pile_name(view, pile)}"
            return f"play {_code(card)} on {where}"
        case PlaySkip(card=card):
            return f"play Skip ({_code(card)})"
        case PlayReverse():
            return "play Reverse"
        case StealCard(target=target, zone=zone):
            place = "discard top" if zone == Zone.DISCARD else "hand (a card at random)"
            return f"Steal a Card from seat {target}'s {place}"
        case StealChip(target=target, colour=colour):
            return f"Steal a Chip: a {Colour(colour).title} chip from seat {target}"
        case Discard(card=card):
            return f"discard {_code(card)} and end the turn"
        case EndTurn():
            return "end the turn (empty hand)"
        case Block():
            return "Block the completed pile"
        case PassBlock():
            return "let the pile complete (no Block)"
    return type(action).__name__


def _pile_name(view: State | SequenceState, pile: int) -> str:
    if isinstance(view, State):
        for p in view.piles:
            if p.id == pile:
                return p.name or str(pile)
    return str(pile)


def _describe_sequence(action: SequenceAction) -> str:
    match action:
        case ExchangeDeadCard(card=card):
            return f"turn in the dead card {classic_cards.CODES[card]} and draw another"
        case PlaceChip(card=card, cell=cell):
            wild = " (two-eyed jack)" if classic_cards.JACKS[card] == JackKind.TWO_EYED else ""
            return f"play {classic_cards.CODES[card]}{wild}: a chip on {cell_name(cell)}"
        case RemoveChip(card=card, cell=cell):
            return (f"play {classic_cards.CODES[card]} (one-eyed jack): take the chip off "
                    f"{cell_name(cell)}")
        case DiscardUnplayable(card=card):
            return f"discard {classic_cards.CODES[card]} (no legal play)"
        case PassTurn():
            return "pass (no legal play)"
    return type(action).__name__


def phase_name(view: State | SequenceState) -> str:
    if isinstance(view, State) and view.phase == Phase.BLOCK_WINDOW:
        return "block_window"
    return "play"


def encode(message: dict[str, Any]) -> bytes:
    """One line of JSON, as the program reads it."""
    return json.dumps(message, separators=(",", ":")).encode() + b"\n"


def _is_int(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def _clip(text: str, limit: int = 80) -> str:
    return text if len(text) <= limit else text[:limit] + "..."
