"""Game records: what the host writes at the end, and ``stacks verify``'s offline check."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from engine.errors import EngineError
from engine.games import DEFAULT_GAME, game_def
from engine.state import HOST, Audience
from netplay.batch import Batch
from netplay.errors import FrameError
from netplay.verify import GameFacts, Verdict, verify_game

FORMAT = "sequence-stacks-record"
"""The host's record: every event as the host saw it (hands and all)."""
SEAT_FORMAT = "sequence-stacks-seat-record"
"""A seated player's record of a game it played at another machine's table: the batches
as that seat received them (its own hand, the others' hidden), and ``seat``: whose view
it is. It is checked like the host's, for that seat's view (`verify_record`); the game
(its commitment) is the same game as the host's record."""
FORMATS = (FORMAT, SEAT_FORMAT)


def to_json(value: Any) -> Any:
    if isinstance(value, bytes):
        return {"hex": value.hex()}
    if isinstance(value, dict):
        return {k: to_json(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [to_json(v) for v in value]
    return value


def from_json(value: Any) -> Any:
    if isinstance(value, dict):
        if set(value) == {"hex"} and isinstance(value["hex"], str):
            return bytes.fromhex(value["hex"])
        return {k: from_json(v) for k, v in value.items()}
    if isinstance(value, list):
        return [from_json(v) for v in value]
    return value


def write_record(path: Path, record: dict[str, Any]) -> None:
    """Write a record file atomically (temp file + rename): a crash never leaves half a
    record. A path that is not a regular file (``/dev/null``, a pipe) is written to as it
    is: renaming over it would replace the device itself."""
    text = json.dumps(to_json(record), indent=1) + "\n"
    if path.exists() and not path.is_file():
        with path.open("w") as handle:
            handle.write(text)
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text)
    os.replace(tmp, path)


def write_new_record(path: Path, record: dict[str, Any]) -> Path:
    """Write a record under a name no file has yet: ``path``, else ``NAME-2.json``,
    ``NAME-3.json``... (a game record is never overwritten by another game's). Returns
    the path written. The file appears whole (hard link of a complete temp file)."""
    if path.exists() and not path.is_file():
        write_record(path, record)  # a device or a pipe: nothing there to keep
        return path
    text = json.dumps(to_json(record), indent=1) + "\n"
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(text)
    try:
        for attempt in range(1, 1000):
            candidate = path if attempt == 1 else path.with_name(
                f"{path.stem}-{attempt}{path.suffix}")
            try:
                os.link(tmp, candidate)
            except FileExistsError:
                continue
            return candidate
        raise OSError(f"no free name for a record beside {path}")
    finally:
        tmp.unlink(missing_ok=True)


def read_record(path: Path) -> dict[str, Any]:
    try:
        text = path.read_text()
    except UnicodeDecodeError as exc:
        raise ValueError(f"can't read game record {path}: not a sequence-stacks game record "
                         "(not text)") from exc
    except OSError as exc:
        raise ValueError(f"can't read game record {path}: {exc.strerror or exc}") from exc
    try:
        data = from_json(json.loads(text))
    except ValueError as exc:
        raise ValueError(f"can't read game record {path}: not a sequence-stacks game record "
                         f"(not JSON: {exc})") from exc
    if not isinstance(data, dict) or data.get("format") not in FORMATS:
        raise ValueError(f"{path} is not a sequence-stacks game record")
    return data


def _commits(value: Any) -> tuple[bytes | None, ...] | None:
    """A record's list of commitments (32 bytes or null each), or ``None`` if it has none."""
    if value is None:
        return None
    if not isinstance(value, list) or not all(
            c is None or (isinstance(c, bytes) and len(c) == 32) for c in value):
        raise TypeError("reveal_commits is not a list of commitments")
    return tuple(value)


def record_view(record: dict[str, Any]) -> Audience | None:
    """Whose view a record holds: `HOST` (the host's record), a seat (a player's), or
    ``None`` for neither (not a record, or a seat that is not one)."""
    kind = record.get("format")
    if kind == FORMAT:
        return HOST
    seat = record.get("seat")
    players = record.get("players")
    if kind == SEAT_FORMAT and type(seat) is int and type(players) is int \
            and 0 <= seat < players:
        return seat
    return None


def verify_record(record: dict[str, Any]) -> Verdict:
    """Replay the recorded game from its seed and compare every recorded event and hash,
    as the record's view saw them (the host's, or one seat's: `record_view`)."""
    audience = record_view(record)
    if audience is None:
        return Verdict(False, "the record is malformed: not a host's record, nor a seat's "
                              "with a seat at the table")
    try:
        players = record["players"]
        keys = record["keys"]
        name = record.get("game", DEFAULT_GAME)
        game = game_def(name)
        facts = GameFacts(
            table=record["table"],
            players=players,
            rules=game.config_from_wire(record["rules"]),
            keys=tuple(keys),
            commit=record["commit"],
            entropies=tuple(record["entropies"]),
            dealer=record.get("dealer"),
            # Records from before commit-then-reveal have none: their entropies are taken
            # as they are.
            entropy_commits=None if record.get("entropy_commits") is None
            else tuple(record["entropy_commits"]),
            game=name,
            # The commitments of the reveal round; records from before they were kept
            # have none.
            reveal_commits=_commits(record.get("reveal_commits")),
        )
        secret = record["secret"]
        if not isinstance(secret, bytes):
            return Verdict(False, "the record holds no revealed secret (game not finished?)")
        batches = {b.n: b for b in (Batch.from_body(body, game) for body in record["batches"])}
    except (KeyError, TypeError, EngineError, FrameError) as exc:
        return Verdict(False, f"the record is malformed: {exc}")
    if audience != HOST and not isinstance(keys[audience], bytes):
        return Verdict(False, f"the record is malformed: seat {audience} is a bot's")
    verdict = verify_game(facts, secret, batches, len(batches), audience)
    if not verdict.ok:
        return verdict
    outcome = record.get("outcome")
    last = batches[len(batches)].events[-1] if batches else None
    if outcome is None or last is None or last.to_wire().get("winner") != outcome.get("winner"):
        return Verdict(False, "the recorded outcome is not the replayed one")
    return verdict
