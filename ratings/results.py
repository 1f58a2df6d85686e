"""A game record as a result to rate: who sat where, on which side, and who won.

Only a record that verifies (`netplay.record.verify_record`: replayed from its seed, every
event and hash compared) becomes a result. A game's id is its commitment (hex): the same
game added twice is the same id.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from engine.classic.state import default_teams
from netplay.hosts import fingerprint
from netplay.record import signed_joins, stored_record, to_json, verify_record

GAME_KINDS = ("stacks", "sequence")
BOT_PREFIX = "bot-"
_BOT_LEVEL = re.compile(r"\(([A-Za-z0-9_-]{1,24})\)\s*$")
MAX_NAME = 64


class RecordRefused(ValueError):
    """The record can't be rated; the words say why."""


@dataclass(frozen=True)
class SeatResult:
    seat: int
    fingerprint: str
    """The player's identity: 16 hex digits of SHA-256(key) in fours, or ``bot-LEVEL``."""
    name: str
    bot: bool
    key: bytes | None
    team: int
    won: bool
    signed: bool = True
    """The name is the player's own (their signed join), or a bot's: a stored name may be
    changed to it. ``False``: the record's word only (the name is then the identity)."""


@dataclass(frozen=True)
class GameResult:
    id: str
    """The game's commitment, hex: the same game always has the same id."""
    kind: str
    table: str
    ended_at: float
    """When the game ended (seconds since the epoch; 0 for records that don't say)."""
    seats: tuple[SeatResult, ...]
    winner: int | None
    """The winning side (a seat in Sequence Stacks, a team in classic Sequence), or
    ``None`` for a draw."""
    length: int
    """Batches in the game (one per action)."""
    record_json: str

    @property
    def order(self) -> tuple[float, str]:
        """Where the game sits in the history ratings are computed over."""
        return (self.ended_at, self.id)


def bot_fingerprint(name: str) -> str:
    """A host bot's identity: its level (``Bot 3 (medium)`` → ``bot-medium``)."""
    found = _BOT_LEVEL.search(name)
    return BOT_PREFIX + (found.group(1).lower() if found else "unknown")


def _clean_name(value: Any, fallback: str) -> str:
    if not isinstance(value, str):
        return fallback
    name = "".join(ch for ch in value if ch.isprintable()).strip()[:MAX_NAME]
    return name or fallback


def result_of(record: dict[str, Any]) -> GameResult:
    """The result of a record, verified first; `RecordRefused` (with the reason) if it
    does not verify or can't be rated."""
    verdict = verify_record(record)
    if not verdict.ok:
        raise RecordRefused(f"it does not verify: {verdict.detail}")
    kind = record.get("game", "stacks")
    if kind not in GAME_KINDS:
        raise RecordRefused(f"unknown game kind {kind!r}")
    players = int(record["players"])
    keys = record["keys"]
    names = record.get("names") or []
    joins, _ = signed_joins(record)  # verified above
    if kind == "sequence":
        teams = record["rules"].get("teams") or default_teams(players)
    else:
        teams = players
    winner = record["outcome"].get("winner")
    seats = []
    for seat in range(players):
        key = keys[seat] if seat < len(keys) else None
        raw_name = names[seat] if seat < len(names) else None
        signed = True
        level = joins[seat]["bot"] if seat in joins else None
        if isinstance(key, bytes) and level is not None:
            # A bot peer of the host's own (a held table's, a filled seat's): rated as
            # its level, whatever key its table gave it.
            name = f"Bot {seat + 1} ({level})"
            who = BOT_PREFIX + level.lower()
            key = None
        elif isinstance(key, bytes):
            who = fingerprint(key)
            signed = seat in joins
            name = _clean_name(raw_name, who) if signed else who
        else:
            name = _clean_name(raw_name, f"Bot {seat + 1}")
            who = bot_fingerprint(name)
            key = None
        team = seat % teams
        seats.append(SeatResult(seat, who, name, key is None, key, team, winner == team,
                                signed))
    people = [s.fingerprint for s in seats if not s.bot]
    if len(set(people)) != len(people):
        raise RecordRefused("one identity sits at two seats: the game can't be rated")
    ended = record.get("ended_at")
    commit = record["commit"]
    return GameResult(
        id=commit.hex(),
        kind=kind,
        table=_clean_name(record.get("table"), "?"),
        ended_at=float(ended) if isinstance(ended, int | float) and ended > 0 else 0.0,
        seats=tuple(seats),
        winner=winner if isinstance(winner, int) else None,
        length=len(record["batches"]),
        record_json=json.dumps(to_json(stored_record(record)), separators=(",", ":")),
    )
