"""Joining the table (:class:`Lobby`): a player takes a free seat (with the table's password,
before the game starts), a seated player comes back, a spectator comes to watch; each is
welcomed with what it needs to follow the game from where it is, or refused in words.

No I/O: frames go through the table's sender (:class:`LobbyTable`).
"""

from __future__ import annotations

import hmac
import logging
import os
from collections.abc import Callable
from typing import Any, Protocol

from engine.state import Seat
from netplay.batch import Batch
from netplay.budget import HostBudgets
from netplay.entropy import bot_entropy
from netplay.errors import FrameError
from netplay.hosting.deal import DealRounds
from netplay.hosting.journal import HostJournal
from netplay.hosting.repair import Repair
from netplay.hosting.seats import SeatInfo, Seating
from netplay.hosting.settings import HostSettings, bot_level
from netplay.hosting.state import TableState
from netplay.identity import Identity, peer_id
from netplay.messages import key_bytes, optional, player_name, required
from netplay.topics import Topics
from netplay.wire import Sender

log = logging.getLogger("netplay.host")


class LobbyTable(Protocol):
    now: float
    identity: Identity
    settings: HostSettings
    seating: Seating
    state: TableState
    journal: HostJournal
    budgets: HostBudgets
    deal: DealRounds
    repair: Repair
    batches: list[Batch]
    sender: Sender
    topics: Topics
    commit: bytes
    secret: bytes

    @property
    def released(self) -> int: ...
    def deal_facts(self) -> dict[str, Any]: ...
    def may_reveal(self, key: bytes) -> bool: ...
    def reveal(self, to: str) -> None: ...
    def announce(self) -> None: ...
    def set_block_window(self, seconds: float) -> None: ...


class Lobby:
    """Seats and spectators as they join."""

    def __init__(self, table: LobbyTable) -> None:
        self.table = table
        self.admit: Callable[[bytes], str | None] | None = None
        """Who may take a new seat: a player's key → why not in words, or ``None``
        (the table's keeper's policy, e.g. the ssh server's moderation; a seat already
        taken is never refused its return)."""

    def seat(self, seat: Seat, info: SeatInfo, strategy: str | None) -> None:
        """Give ``seat`` to ``info`` (journaled; ``strategy``: a host's bot's)."""
        self.table.seating.seats[seat] = info
        entry = {"t": "seat", "seat": seat, "name": info.name, "key": info.key,
                 "entropy": info.entropy, "commit": info.commit, "bot": strategy,
                 "join": info.joined}
        if info.plain:
            entry["plain"] = True
        self.table.journal.append(entry)

    def seat_host_bots(self) -> None:
        """The host's own bots take the last seats (their entropy fixed by the secret)."""
        table = self.table
        settings = table.settings
        first_bot = settings.players - len(settings.bots)
        for index, strategy in enumerate(settings.bots):
            seat = first_bot + index
            self.seat(seat, SeatInfo(
                f"Bot {seat + 1} ({bot_level(settings, strategy)})", None,
                bot_entropy(table.secret, seat),
                bot=settings.definition.make_bot(strategy, os.urandom(16)),
            ), strategy)

    def join(self, key: bytes, body: dict[str, Any], raw: bytes = b"") -> None:
        """A peer's ``join``: to play, to come back to its seat, or to watch (``raw``: the
        signed frame, kept as the proof of the player's name in the record)."""
        table = self.table
        name = player_name(body)
        inbox = table.topics.inbox(peer_id(key))
        if "entropy_commit" not in body and "entropy" in body:
            table.sender.send(inbox, "refused", {
                "reason": "this table needs a newer sequence-stacks (its deal takes a "
                "commitment to your entropy, not the entropy itself)"})
            raise FrameError("a join with its entropy in the clear (an older client): "
                             "this host takes a commitment (entropy_commit)")
        commit = key_bytes(body, "entropy_commit")
        watch = required(body, "watch", bool)
        seat = table.seating.seat_of(key)
        if not table.budgets.join(peer_id(key), table.now, seated=seat is not None):
            return
        at = optional(body, "at", int)
        # Optional (older peers don't send it): the player reads the game by a screen reader.
        plain = "plain" in body and optional(body, "plain", bool) is True
        if seat is not None and not watch:
            log.info("%s is back at seat %d", name, seat)
            info = table.seating.seats[seat]
            if info is not None:
                table.deal.rejoined(seat, info, commit)
                if plain and not info.plain:
                    info.plain = True
                    table.journal.append({"t": "plain", "seat": seat})
                    self._plain_seat(seat)
            self.welcome(key, seat, at=at)
            table.announce()
            table.deal.phase_done()  # it may have been the last commitment the phase waited for
            return
        if not self._password_ok(key, body):
            table.sender.send(inbox, "refused", {"reason": "wrong table password"})
            return
        if watch:
            self._watch(key, name, seat, at)
            return
        if table.state.started:
            table.sender.send(inbox, "refused", {"reason": "the game has already started"})
            return
        free = table.seating.free()
        if free is None:
            table.sender.send(inbox, "refused", {"reason": "the table is full"})
            return
        refusal = self.admit(key) if self.admit is not None else None
        if refusal:
            table.sender.send(inbox, "refused", {"reason": refusal})
            return
        self.seat(free, SeatInfo(name, key, b"", last_seen=table.now, commit=commit,
                                 joined=raw or None, plain=plain), None)
        log.info("%s takes seat %d%s", name, free, " (plain mode)" if plain else "")
        if plain:
            self._plain_seat(free)
        self.welcome(key, free)
        table.announce()
        table.deal.seats_full()

    def _plain_seat(self, seat: Seat) -> None:
        """A seat plays in plain mode: before the deal, the table's ``plain_window`` (if
        it has one, and it is longer) becomes its Block window."""
        table = self.table
        longer = table.settings.plain_window
        if longer is None or table.state.started or longer <= table.settings.block_window:
            return
        log.info("seat %d plays in plain mode: the Block window is now %g s", seat, longer)
        table.set_block_window(longer)

    def _password_ok(self, key: bytes, body: dict[str, Any]) -> bool:
        password = self.table.settings.password
        if password is None:
            return True
        sealed = optional(body, "password", bytes)
        given = b""
        if sealed is not None:
            try:
                given = self.table.identity.open_from(key, sealed)
            except FrameError:
                given = b""
        return hmac.compare_digest(given, password.encode())

    def _watch(self, key: bytes, name: str, seat: Seat | None, at: int | None) -> None:
        table = self.table
        inbox = table.topics.inbox(peer_id(key))
        spectators = table.seating.spectators
        if seat is not None:
            # One identity, one inbox: the seat's stream and a spectator's can't share it.
            table.sender.send(inbox, "refused", {
                "reason": "this profile has a seat at the table: watch with another profile"
            })
            return
        if key not in spectators and len(spectators) >= table.budgets.limits.max_spectators:
            table.sender.send(inbox, "refused", {"reason": "too many spectators"})
            return
        spectators[key] = name
        self.welcome(key, None, at=at)

    def welcome(self, key: bytes, seat: Seat | None, *, at: int | None = None) -> None:
        """Welcome a peer; ``at`` is the last batch it says it applied (a peer that kept
        running while its host was away): it gets the batches after it, not a snapshot,
        so its history has no hole."""
        table = self.table
        inbox = table.topics.inbox(peer_id(key))
        started = table.state.started
        batches = len(table.batches)
        body: dict[str, Any] = {
            "seat": seat,
            "game": table.settings.game,
            "players": table.settings.players,
            "rules": table.settings.rules.to_wire(),
            "commit": table.commit,
            "status": table.state.status,
            "facts": table.deal_facts() if started else None,
            "batches": batches if seat is not None else table.released,
        }
        table.sender.send(inbox, "welcome", body)
        if not started:
            return
        if seat is None:
            # A spectator gets no snapshot: it asks for the history it lacks (from batch 1,
            # or after ``at``) chunk by chunk, so that it sees (and `watch --headless`
            # prints) every event once.
            pass
        elif at is not None and 0 < at <= batches:
            if at < batches:
                table.repair.resend(key, at + 1)  # a snapshot if that is too many
            elif table.state.over:
                table.reveal(to=inbox)
            return
        else:
            table.repair.snapshot(key, seat)
        if table.may_reveal(key):
            table.reveal(to=inbox)
