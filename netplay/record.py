"""Game records: what the host writes at the end, and ``stacks verify``'s offline check."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from engine.errors import EngineError
from engine.games import DEFAULT_GAME, game_def
from engine.state import HOST
from netplay.batch import Batch
from netplay.errors import FrameError
from netplay.verify import GameFacts, Verdict, verify_game

FORMAT = "sequence-stacks-record"


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
        data = from_json(json.loads(path.read_text()))
    except (OSError, ValueError) as exc:
        raise ValueError(f"can't read game record {path}: {exc}") from exc
    if not isinstance(data, dict) or data.get("format") != FORMAT:
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


def verify_record(record: dict[str, Any]) -> Verdict:
    """Replay the recorded game from its seed and compare every recorded event and hash."""
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
    verdict = verify_game(facts, secret, batches, len(batches), HOST)
    if not verdict.ok:
        return verdict
    outcome = record.get("outcome")
    last = batches[len(batches)].events[-1] if batches else None
    if outcome is None or last is None or last.to_wire().get("winner") != outcome.get("winner"):
        return Verdict(False, "the recorded outcome is not the replayed one")
    return verdict
