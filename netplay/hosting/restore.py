"""A resumed host's table, read back from its journal (:func:`restore`): the seats, the deal's
rounds, the game (every batch replayed through the engine, and checked against the hash
it was published with), the races and the verdicts. No I/O: the entries are given.
"""

from __future__ import annotations

import contextlib
import logging
import os
from collections.abc import Sequence
from dataclasses import replace
from typing import Any, Protocol

from engine.errors import EngineError
from engine.games import GameDef, TableGame
from netplay.batch import Batch
from netplay.codec import ReplayGuard, decode
from netplay.errors import FrameError
from netplay.hosting.deal import DealRounds
from netplay.hosting.journal import HostJournal
from netplay.hosting.race import BlockRace, Race, in_window
from netplay.hosting.seats import SeatInfo, Seating
from netplay.hosting.settings import HostSettings
from netplay.hosting.state import TableState
from netplay.hosting.stream import SpectatorStream
from netplay.hosting.verdicts import Verdicts
from netplay.identity import Identity
from netplay.journal import Entry, JournalError
from netplay.verify import deal_seed

log = logging.getLogger("netplay.host")

ACTION_ORDER = "sealed-actions"
"""The replay guard's name for the order of the action frames inside sealed ones."""


class RestoreTable(Protocol):
    now: float
    secret: bytes
    settings: HostSettings
    definition: GameDef[Any, Any, Any, Any]
    seating: Seating
    state: TableState
    journal: HostJournal
    deal: DealRounds
    block_race: BlockRace
    peer_verdicts: Verdicts
    guard: ReplayGuard
    game: TableGame | None
    batches: list[Batch]
    stream: SpectatorStream


def read_table(entries: Sequence[Entry]) -> tuple[Identity, HostSettings, bytes]:
    """The host's identity, the table's settings and the host's secret, as the journal's
    first entry has them; ``JournalError`` if there is none or it is unreadable."""
    head = next((e for e in entries if e.get("t") == "table"), None)
    if head is None:
        raise JournalError("the journal holds no table (the host died before it began)")
    try:
        identity = Identity.from_seed(head["host_seed"])
        settings = HostSettings.from_wire(head["settings"])
        secret = head["secret"]
        if not isinstance(secret, bytes) or len(secret) != 32:
            raise ValueError("the secret is not 32 bytes")
    except (KeyError, TypeError, ValueError, EngineError) as exc:
        raise JournalError(f"the journal's table is unreadable: {exc}") from None
    return identity, settings, secret


def restore(table: RestoreTable, entries: Sequence[Entry]) -> None:
    """Seats, game and races from a journal; ``JournalError`` if it does not replay to the
    hashes it recorded. What the game published went out before the old host died: it
    is released to spectators at once (``SpectatorStream.hold_back`` may hold it again)."""
    try:
        _restore(table, entries)
    except JournalError:
        raise
    except (KeyError, TypeError, ValueError, IndexError, EngineError) as exc:
        raise JournalError(f"the journal does not replay: {exc!r}") from None
    table.stream.line.restored = len(table.batches)
    if table.state.over:
        table.state.ended_publicly()


def _restore(table: RestoreTable, entries: Sequence[Entry]) -> None:
    players = table.settings.players
    seats = table.seating.seats
    started: Entry | None = None
    batches: list[Entry] = []
    for entry in entries:
        kind = entry["t"]
        if kind == "seat":
            seat = entry["seat"]
            if not 0 <= seat < players:
                raise JournalError(f"a seat {seat} at a table of {players}")
            strategy = entry.get("bot")
            seats[seat] = SeatInfo(
                entry["name"], entry["key"], entry["entropy"], last_seen=table.now,
                bot=None if strategy is None
                else table.definition.make_bot(strategy, os.urandom(16)),
                commit=entry.get("commit"), joined=entry.get("join"),
                plain=entry.get("plain") is True,
            )
        elif kind == "plain":
            seat = entry["seat"]
            info = seats[seat] if 0 <= seat < players else None
            if info is None:
                raise JournalError(f"plain mode for seat {entry['seat']}, which nobody holds")
            info.plain = True
        elif kind == "window":
            if started is not None:
                raise JournalError("the Block window changed after the deal")
            table.settings = replace(table.settings, block_window=entry["seconds"])
            table.block_race.window = table.settings.block_window
        elif kind in ("commit", "reveal", "unseat", "hold"):
            table.deal.restore(entry)
        elif kind == "start":
            started = entry
        elif kind == "batch":
            batches.append(entry)
            table.journal.read_went_out(entry)
        elif kind == "race":
            table.block_race.past.append(Race.from_body(entry["race"]))
            table.journal.read_went_out(entry)
        elif kind == "verdict":
            table.peer_verdicts.restore(entry["who"], entry["ok"], entry["detail"])
    if started is None:
        if batches:
            raise JournalError("the journal has batches but no start")
        return
    for seat, (name, key, entropy) in enumerate(
        zip(started["names"], started["keys"], started["entropies"], strict=True)
    ):
        info = seats[seat]
        if info is None or info.key != key:
            raise JournalError(f"seat {seat} at the start is not the seat that joined")
        info.name, info.entropy = name, entropy
    # The commitments can't have changed since the reveal round: it listed the seats'.
    table.deal.reveal_commits = [info.commit if info else None for info in seats]
    seed = deal_seed(table.secret, [info.entropy for info in seats if info])
    game = table.definition.new_game(players, seed, table.settings.rules, table.settings.dealer)
    table.game = game
    table.state.started_game()
    for n, entry in enumerate(batches, start=1):
        if entry["n"] != n:
            raise JournalError(f"batch {entry['n']} where batch {n} belongs")
        wire = entry["action"]
        action = None if wire is None else table.definition.action_from_wire(wire)
        if (action is None) != (n == 1):
            raise JournalError(f"batch {n}: only the deal has no action")
        events = list(game.log) if action is None else game.act(action)
        digest = table.definition.public_hash(game.state)
        if digest != entry["hash"]:
            raise JournalError(f"batch {n} replays to another hash than it was "
                               "published with")
        table.batches.append(Batch(n, action, entry["proof"], tuple(events), digest,
                                   bool(entry["standin"])))
        if entry["proof"] is not None:
            with contextlib.suppress(FrameError):
                table.guard.check(decode(entry["proof"]), ACTION_ORDER)
    if game.over:
        table.state.ended()
    state = game.state
    if in_window(game) and state.window is not None:
        # The window's clock died with the old process: it opens again, whole.
        table.block_race.reopen(state.window.pile.id)
    log.info("table %s resumed at batch %d", table.settings.table, len(table.batches))
