"""Game records: what the host writes at the end, and ``stacks verify``'s offline check."""

from __future__ import annotations

import json
import math
import os
import re
import time
from pathlib import Path
from typing import Any

from engine.errors import EngineError
from engine.games import DEFAULT_GAME, GAMES, game_def
from engine.state import HOST, Audience
from netplay.batch import Batch
from netplay.codec import MAX_BOXES, decode
from netplay.errors import FrameError
from netplay.messages import player_name
from netplay.verify import GameFacts, Verdict, verify_game

FORMAT = "sequence-stacks-record"
"""The host's record: every event as the host saw it (hands and all)."""
SEAT_FORMAT = "sequence-stacks-seat-record"
"""A seated player's record of a game it played at another machine's table: the batches
as that seat received them (its own hand, the others' hidden), and ``seat``: whose view
it is. It is checked like the host's, for that seat's view (`verify_record`); the game
(its commitment) is the same game as the host's record."""
FORMATS = (FORMAT, SEAT_FORMAT)
MAX_RECORD_BYTES = 8 * 1024 * 1024
"""The largest record file read: a real game's record is 25-85 KB (100 batches, indented);
a game of 2,000 turns would be a few MB. The size is checked before the file is read."""
MAX_RECORD_ITEMS = 1_000_000
"""The most JSON values (counted by their separators and brackets, before parsing) a
record may hold: ``[{},{},...]`` of 8 MB would otherwise take some 2 GB to parse."""
MAX_BATCHES = 20_000
CLOCK_SKEW_S = 600.0
"""How far a record's end time may be from its players' signed frames (their clocks are
not the host's) and from now."""
EARLIEST_END = 1_577_836_800.0
"""No sequence-stacks game ended before 2020-01-01."""
_LEVEL = re.compile(r"[A-Za-z0-9_-]{1,24}")
_KNOWN: dict[str, tuple[type, ...]] = {
    "format": (str,), "version": (int,), "table": (str,), "game": (str,),
    "host": (bytes, type(None)), "players": (int,), "rules": (dict,), "names": (list,),
    "keys": (list,), "entropies": (list,), "entropy_commits": (list, type(None)),
    "reveal_commits": (list, type(None)), "dealer": (int, type(None)), "commit": (bytes,),
    "secret": (bytes, type(None)), "batches": (list,), "races": (list,),
    "outcome": (dict, type(None)), "verdicts": (dict,), "ended_at": (int, float),
    "seat": (int,), "joins": (list, type(None)),
}
"""A record's fields and their types: a field of another type is refused; a field not
named here is not kept (`known_fields`)."""


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
    """The record in the file at ``path``, its shape checked (`parse_record`);
    ``ValueError`` in words for a file that is not one. A file over `MAX_RECORD_BYTES` is
    refused before it is read."""
    try:
        with path.open("rb") as handle:
            size = os.fstat(handle.fileno()).st_size
            if size > MAX_RECORD_BYTES:
                raise ValueError(_too_big(path, size))
            data = handle.read(MAX_RECORD_BYTES + 1)  # a pipe says no size
    except OSError as exc:
        raise ValueError(f"can't read game record {path}: {exc.strerror or exc}") from exc
    if len(data) > MAX_RECORD_BYTES:
        raise ValueError(_too_big(path, len(data)))
    try:
        text = data.decode()
    except UnicodeDecodeError as exc:
        raise ValueError(f"can't read game record {path}: not a sequence-stacks game record "
                         "(not text)") from exc
    return parse_record(text, str(path))


def _too_big(where: str | Path, size: int) -> str:
    return (f"can't read game record {where}: too big for a game record ({size:,} bytes; "
            f"a record is at most {MAX_RECORD_BYTES:,})")


def parse_record(text: str, where: str = "the record") -> dict[str, Any]:
    """A record from its JSON text: bounded in size and in values before it is parsed,
    then its shape checked (`record_problem`). ``ValueError`` in words if it is not one."""
    if len(text) > MAX_RECORD_BYTES:
        raise ValueError(_too_big(where, len(text)))
    items = text.count(",") + text.count("[") + text.count("{")
    if items > MAX_RECORD_ITEMS:
        raise ValueError(f"can't read game record {where}: too big for a game record "
                         f"({items:,} values; a record holds at most {MAX_RECORD_ITEMS:,})")
    try:
        data = from_json(json.loads(text))
    except RecursionError:
        raise ValueError(f"can't read game record {where}: not a sequence-stacks game record "
                         "(nested too deep)") from None
    except ValueError as exc:
        raise ValueError(f"can't read game record {where}: not a sequence-stacks game record "
                         f"(not JSON: {exc})") from exc
    if not isinstance(data, dict) or data.get("format") not in FORMATS:
        raise ValueError(f"{where} is not a sequence-stacks game record")
    return data


def known_fields(record: dict[str, Any]) -> dict[str, Any]:
    """The record with only the fields a record has."""
    return {k: v for k, v in record.items() if k in _KNOWN}


def stored_record(record: dict[str, Any]) -> dict[str, Any]:
    """What is kept of a record that verified: its known fields, each batch as it
    decodes (what a batch holds, nothing beside it), and the races and verdicts in their
    shape only. It verifies as the record did."""
    kept = known_fields(record)
    game = game_def(record.get("game", DEFAULT_GAME))
    kept["batches"] = [Batch.from_body(body, game).to_body() for body in record["batches"]]
    kept["races"] = [{"pile": r.get("pile"), "winner": r.get("winner"),
                      "presses": r.get("presses")}
                     for r in record.get("races", []) if _race_shape(r)]
    kept["verdicts"] = {
        str(who)[:64]: {"ok": v.get("ok") is True, "detail": str(v.get("detail", ""))[:200]}
        for who, v in record.get("verdicts", {}).items() if isinstance(v, dict)}
    return kept


def _race_shape(race: dict[str, Any]) -> bool:
    presses = race.get("presses")
    return (type(race.get("pile")) is int
            and (race.get("winner") is None or type(race.get("winner")) is int)
            and isinstance(presses, list) and len(presses) <= 64
            and all(isinstance(p, list) and len(p) == 4
                    and all(v is None or (isinstance(v, int | float | str) and
                            (not isinstance(v, str) or len(v) <= 32)) for v in p)
                    for p in presses))


def _is_bytes_list(value: Any, players: int, *, none: bool, size: int | None = 32) -> bool:
    return isinstance(value, list) and len(value) == players and all(
        (none and v is None) or (isinstance(v, bytes) and (size is None or len(v) == size))
        for v in value)


def record_problem(record: dict[str, Any]) -> str | None:
    """What is wrong with the shape of a record's fields (types, lengths, bounds), in
    words; ``None`` if nothing. Only the shape: `verify_record` checks the game."""
    for field, types in _KNOWN.items():
        if field in record and not isinstance(record[field], types):
            return f"its {field!r} is not a {' or '.join(_type_word(t) for t in types)}"
        if field in record and isinstance(record[field], bool):
            return f"its {field!r} is not a {' or '.join(_type_word(t) for t in types)}"
    players = record.get("players")
    if type(players) is not int or not 1 <= players <= MAX_BOXES:
        return f"its 'players' is not a number of seats (1-{MAX_BOXES})"
    for field in ("table", "game", "format"):
        if len(record.get(field) or "") > 64:
            return f"its {field!r} is too long"
    if record.get("game", DEFAULT_GAME) not in GAMES:
        return f"its game {record.get('game')!r} is not one of {', '.join(GAMES)}"
    names = record.get("names", [])
    if len(names) not in (0, players) or any(
            not isinstance(n, str) or len(n) > 64 for n in names):
        return "its 'names' are not a name per seat"
    if not _is_bytes_list(record.get("keys"), players, none=True):
        return "its 'keys' are not a key (or null) per seat"
    if not _is_bytes_list(record.get("entropies"), players, none=False, size=None) or any(
            len(e) > 64 for e in record["entropies"]):
        return "its 'entropies' are not an entropy per seat"
    for field in ("entropy_commits", "reveal_commits"):
        if record.get(field) is not None and not _is_bytes_list(record[field], players,
                                                                 none=True):
            return f"its {field!r} are not a commitment (or null) per seat"
    if record.get("joins") is not None and not _is_bytes_list(record["joins"], players, none=True,
                                                size=None):
        return "its 'joins' are not a signed join (or null) per seat"
    if not isinstance(record.get("commit"), bytes) or len(record["commit"]) != 32:
        return "its 'commit' is not a commitment"
    batches = record.get("batches")
    if not isinstance(batches, list) or not all(isinstance(b, dict) for b in batches):
        return "its 'batches' are not a list of batches"
    if len(batches) > MAX_BATCHES:
        return f"it holds {len(batches):,} batches (a game has at most {MAX_BATCHES:,})"
    races = record.get("races", [])
    if len(races) > MAX_BATCHES or not all(isinstance(r, dict) for r in races):
        return "its 'races' are not a list of races"
    rules = record.get("rules")
    if not isinstance(rules, dict) or len(rules) > 64 or not all(
            isinstance(k, str) and _plain(v) for k, v in rules.items()):
        return "its 'rules' are not a table's rules"
    outcome = record.get("outcome")
    if outcome is not None and (
            type(outcome.get("termination")) is not int
            or not (outcome.get("winner") is None or type(outcome.get("winner")) is int)):
        return "its 'outcome' is not a termination and a winner"
    verdicts = record.get("verdicts", {})
    if len(verdicts) > 64 or not all(isinstance(k, str) and isinstance(v, dict) and len(v) <= 4
                                     for k, v in verdicts.items()):
        return "its 'verdicts' are not a peer's verdict each"
    ended = record.get("ended_at")
    if ended is not None and (isinstance(ended, bool) or not math.isfinite(ended)):
        return "its 'ended_at' is not a time"
    return None


def _plain(value: Any, depth: int = 0) -> bool:
    """A rule's value: a number, text, true/false or null, or a short list of them."""
    if value is None or isinstance(value, bool | int | float):
        return True
    if isinstance(value, str):
        return len(value) <= 64
    return isinstance(value, list) and depth < 2 and len(value) <= 64 and all(
        _plain(v, depth + 1) for v in value)


def _type_word(kind: type) -> str:
    return {str: "text", int: "number", float: "number", bytes: "hex value", dict: "map",
            list: "list", type(None): "null"}.get(kind, kind.__name__)


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


def signed_joins(record: dict[str, Any]) -> tuple[dict[int, dict[str, Any]], str | None]:
    """Each player's signed join (the frame that seated them, kept in ``joins``): seat →
    its body and ``seq``, and what is wrong with them (``None`` if nothing). A record
    without ``joins`` (older ones, a seat's record) has none: its names are nobody's word.
    A join must be signed by the seat's key, for this table, and name the seat's name."""
    joins = record.get("joins")
    if joins is None:
        return {}, None
    found: dict[int, dict[str, Any]] = {}
    names = record.get("names") or []
    for seat, (key, raw) in enumerate(zip(record["keys"], joins, strict=True)):
        if key is None:
            if raw is not None:
                return found, f"seat {seat} is the host's bot, yet a join is kept for it"
            continue
        if raw is None:
            return found, f"seat {seat}'s player has no signed join in the record"
        try:
            frame = decode(raw)
            name = player_name(frame.body)
        except FrameError as exc:
            return found, f"seat {seat}'s signed join does not decode ({exc})"
        if frame.type != "join" or frame.sender != key or frame.table != record["table"]:
            return found, f"seat {seat}'s join is not its player's join at table " \
                          f"{record['table']!r}"
        claimed = names[seat] if seat < len(names) else None
        if claimed != name:
            return found, (f"seat {seat}'s name {claimed!r} is not the name its player "
                           f"signed ({name!r})")
        level = frame.body.get("bot")
        found[seat] = {"name": name, "seq": frame.seq,
                       "bot": level if isinstance(level, str) and _LEVEL.fullmatch(level)
                       else None}
    return found, None


def _signed_times(record: dict[str, Any], joins: dict[int, dict[str, Any]],
                  batches: dict[int, Batch]) -> list[float]:
    """When the record's signed frames were made (their ``seq``: the signer's clock, in
    microseconds), in seconds."""
    times = [info["seq"] / 1e6 for info in joins.values()]
    for batch in batches.values():
        if batch.proof is not None:
            try:
                times.append(decode(batch.proof).seq / 1e6)
            except FrameError:
                continue
    return times


def _ended_problem(record: dict[str, Any], times: list[float], now: float) -> str | None:
    """What is wrong with the record's end time: after now, before 2020, or before its
    players' last signed frame (beyond `CLOCK_SKEW_S`)."""
    ended = record.get("ended_at")
    if ended is None:
        return None
    shown = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(min(max(ended, 0), 2**33)))
    if ended > now + CLOCK_SKEW_S:
        return f"the record says the game ended at {shown}, which is in the future"
    if ended < EARLIEST_END:
        return f"the record says the game ended at {shown}, before any game could"
    if times and ended < max(times) - CLOCK_SKEW_S:
        last = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(max(times)))
        return (f"the record says the game ended at {shown}, before its players' last "
                f"signed move ({last})")
    return None


def verify_record(record: dict[str, Any], *, now: float | None = None) -> Verdict:
    """Replay the recorded game from its seed and compare every recorded event and hash,
    as the record's view saw them (the host's, or one seat's: `record_view`); check the
    record's fields' shape first (`record_problem`), the players' names against their
    signed joins (`signed_joins`) and its end time against its signed frames and ``now``.
    A record that can't be read as one is a verdict in words, never an exception."""
    try:
        return _verify_record(record, time.time() if now is None else now)
    except (KeyError, TypeError, ValueError, AttributeError, IndexError,
            RecursionError) as exc:
        return Verdict(False, f"the record is malformed: {exc}")


def _verify_record(record: dict[str, Any], now: float) -> Verdict:
    audience = record_view(record)
    if audience is None:
        return Verdict(False, "the record is malformed: not a host's record, nor a seat's "
                              "with a seat at the table")
    if record.get("secret", b"") is None:
        return Verdict(False, "the record holds no revealed secret (game not finished?)")
    problem = record_problem(record)
    if problem is not None:
        return Verdict(False, f"the record is malformed: {problem}")
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
    joins, problem = signed_joins(record)
    if problem is None:
        problem = _ended_problem(record, _signed_times(record, joins, batches), now)
    if problem is not None:
        return Verdict(False, problem)
    if record.get("joins") is None and any(isinstance(k, bytes) for k in keys):
        return Verdict(True, f"{verdict.detail} (the players' names are not signed in "
                             "this record: they are not checked)")
    return verdict
