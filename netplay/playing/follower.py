"""The batch follower: a peer's view kept in step with the host's numbered batches.

Batches apply strictly in order, each checked against the host's public hash. One that
comes early waits (at most :data:`MAX_BUFFER`) for the gap before it to fill; a gap still
open after :data:`GAP_WAIT`, a lost ``start`` (the game's facts, without which nothing
applies) or a desync is asked of the host again (``resync``, at most every
:data:`RESYNC_EVERY` seconds unless forced). A spectator, and a player brought forward by a
snapshot, fetch the history they lack in chunks, one chunk in flight at a time.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from engine.errors import EngineError, InvalidEventError, MalformedError
from engine.games import STACKS, GameDef
from engine.state import SPECTATOR, Audience, Seat, State
from netplay import history
from netplay.batch import Batch
from netplay.errors import FrameError
from netplay.messages import clean_text, key_bytes, required
from netplay.playing.notices import (
    Applied,
    Desynced,
    GameEnded,
    Missed,
    Notice,
    Resynced,
)
from netplay.playing.pending_actions import PendingActions
from netplay.verify import GameFacts

log = logging.getLogger("netplay.player")

MAX_BUFFER = 256
"""Batches kept waiting for a gap before them to fill."""
GAP_WAIT = 0.3
"""Seconds a gap (or a missing start) may stay open before it is asked for."""
RESYNC_EVERY = 1.0
"""Seconds between two asks for the same repair (a desync's is never held back)."""
CHUNK = history.CHUNK
"""Batches of history a spectator asks for at once (the host sends them in bulk)."""
SEAT_CHUNK = 64
"""Batches a seated player's history comes back in at once (the host's ``MAX_RESEND``)."""
CHUNK_PATIENCE = 1.5
"""Seconds to wait for a chunk of history before asking for it again."""


class Seating(Protocol):
    """What the follower reads of the peer it follows for (its session)."""

    @property
    def watch(self) -> bool: ...
    @property
    def seat(self) -> Seat | None: ...
    @property
    def joined(self) -> bool: ...
    @property
    def announce(self) -> dict[str, Any] | None: ...
    @property
    def host_over(self) -> bool: ...


@dataclass(frozen=True, slots=True)
class ChunkAsked:
    """A chunk of history asked for: its first and last batch, and when."""

    first: int
    last: int
    asked_at: float


class Follower:
    """One peer's view and the batches on their way to it.

    ``to_host`` sends the host a frame (``resync``); ``report`` sends one signed and
    unsealed on the peer's own ``out`` (a ``desync`` report); ``tell`` reports a notice.
    ``on_progress(now)`` is called once the batches waiting in order are applied,
    ``on_kept(now)`` once a batch is kept (applied, or a duplicate kept for the
    end-of-game check).
    """

    def __init__(
        self,
        table: str,
        peer: Seating,
        *,
        to_host: Callable[[str, dict[str, Any]], None],
        report: Callable[[str, dict[str, Any]], None],
        tell: Callable[[Notice], None],
        actions: PendingActions,
        on_progress: Callable[[float], None],
        on_kept: Callable[[float], None],
    ) -> None:
        self.table = table
        self.peer = peer
        self._to_host = to_host
        self._report = report
        self._tell = tell
        self.actions = actions
        self._on_progress = on_progress
        self._on_kept = on_kept
        self.definition: GameDef[Any, Any, Any, Any] = STACKS
        """The table's game, as its announcement names it (``variant``)."""
        self.facts: GameFacts | None = None
        """The game's facts, from its ``start`` (or a welcome into a game dealt already)."""
        self.names: tuple[str, ...] = ()
        self.joins: list[bytes | None] | None = None
        """The players' signed joins, as the facts give them (kept in a seat's record)."""
        self.view: State | None = None
        """This peer's view: a Sequence Stacks ``State``, or the view type of
        :attr:`definition` at a table of another game."""
        self.applied = 0
        """The last batch applied to :attr:`view`."""
        self.received: dict[int, Batch] = {}
        """Every batch received as sent (for the end-of-game check)."""
        self.base = 0
        """Batches up to here came inside a snapshot, not one by one."""
        self.known = 0
        """The highest batch number the host is known to have published."""
        self.ahead: dict[int, Batch] = {}
        """Batches that came before the one the view needs next, waiting for the gap."""
        self.gap_since: float | None = None
        """Since when this peer has known it misses a batch (none asked for yet)."""
        self.last_resync = -1e9
        """When the host was last asked to resend (or for history)."""
        self.chunk: ChunkAsked | None = None
        """The chunk of history in flight."""
        self.missed: tuple[int, int] | None = None
        """Batches a seated player missed (they came inside a snapshot), fetched for its
        log."""
        self.no_start_since: float | None = None
        """Since when this peer has been in, with the game begun, and without its start
        (the facts): a lost ``start`` is asked for again (:meth:`start_missing`)."""

    @property
    def audience(self) -> Audience:
        seat = self.peer.seat
        return SPECTATOR if seat is None else seat

    @property
    def in_step(self) -> bool:
        """Whether this peer knows of no batch it misses and asks for none."""
        return not self.ahead and self.gap_since is None and self.chunk is None

    @property
    def resync_allowed_at(self) -> float:
        return self.last_resync + RESYNC_EVERY

    # -- the start ------------------------------------------------------------------------

    def take_facts(self, body: dict[str, Any]) -> GameFacts:
        """The game's facts (``start``, or a welcome's ``facts``), checked; the view
        begins from them unless it exists."""
        players = required(body, "players", int)
        definition = self.definition
        if body.get("game", STACKS.name) != definition.name:
            raise FrameError(f"the game's facts are not of {definition.title}")
        if players not in definition.player_counts:
            raise FrameError(f"{definition.title} is not for {players} players")
        try:
            rules = definition.config_from_wire(required(body, "rules", dict))
        except EngineError as exc:
            raise FrameError(f"rules: {exc}") from None
        names = required(body, "names", list)
        keys = required(body, "keys", list)
        entropies = required(body, "entropies", list)
        if not len(names) == len(keys) == len(entropies) == players:
            raise FrameError("names, keys and entropies per seat")
        if not all((isinstance(k, bytes) and len(k) == 32) or k is None for k in keys):
            raise FrameError("keys are 32 bytes or null")
        if not all(isinstance(e, bytes) and len(e) == 32 for e in entropies):
            raise FrameError("entropies are 32 bytes each")
        commits = required(body, "entropy_commits", list)
        if len(commits) != players or not all(
            (isinstance(c, bytes) and len(c) == 32) or c is None
            for c in commits
        ):
            raise FrameError("a commitment per player's seat (null for the host's bots)")
        commit = key_bytes(body, "commit")
        dealer = body.get("dealer")
        if dealer is not None and (type(dealer) is not int or not 0 <= dealer < players):
            raise FrameError("the dealer is a seat or null")
        try:
            initial = definition.new_state(rules, players)
        except EngineError as exc:
            raise FrameError(f"an impossible table: {exc}") from None
        joins = body.get("joins")
        if joins is not None and (not isinstance(joins, list) or len(joins) != players
                                  or not all(j is None or isinstance(j, bytes) for j in joins)):
            raise FrameError("a signed join (or null) per seat")
        self.joins = joins
        self.names = tuple(clean_text(n, 24) if isinstance(n, str) else "?" for n in names)
        self.facts = GameFacts(
            self.table, players, rules, tuple(keys), commit, tuple(entropies), dealer,
            tuple(commits),
            game=definition.name,
        )
        if self.view is None:
            self.view = definition.view_for(initial, self.audience)
        return self.facts

    def start_missing(self) -> bool:
        """Whether this peer is in, the game has begun, and its ``start`` (the facts every
        batch is applied on) has not come: lost on the way (a frame without a number is
        found missing so), or overtaken by the batches. Asked for again with the next
        ``resync`` (``start``), a short while after it was found missing."""
        peer = self.peer
        if not peer.joined or self.facts is not None:
            return False
        if self.known > 0 or self.ahead:
            return True
        announce = peer.announce or {}
        if peer.seat is None and announce.get("spectator_delay") not in (None, 0):
            return False  # behind a spectator delay the start comes when it is released
        return peer.host_over or announce.get("status") == "playing"

    def note_start(self, now: float) -> None:
        """After each message: is the start missing, and since when?"""
        if self.start_missing():
            if self.no_start_since is None:
                self.no_start_since = now
        else:
            self.no_start_since = None

    # -- batches --------------------------------------------------------------------------

    def batch_body(self, body: dict[str, Any], now: float) -> None:
        """A batch of ours (``events``): applied in its turn."""
        self.queue(Batch.from_body(body, self.definition), now)

    def history_body(self, body: dict[str, Any], now: float) -> None:
        """Batches of the public stream in bulk: a spectator's catch-up. Each goes the way
        of a live one (applied in order, its hash checked)."""
        if self.peer.seat is not None:
            raise FrameError("a history frame for a seated player (its batches come sealed)")
        for batch in history.batches(body, self.definition):
            self.queue(batch, now)

    def public_body(self, body: dict[str, Any], now: float) -> None:
        """A batch of the public stream: a spectator's (a seat has its own copy)."""
        if self.peer.seat is None and self.peer.joined:
            self.queue(Batch.from_body(body, self.definition), now)

    def queue(self, batch: Batch, now: float) -> None:
        self.known = max(self.known, batch.n)
        if batch.n <= self.applied:
            # A duplicate, or history asked for after a snapshot: keep it for the check.
            missed = self.missed
            if missed is not None and missed[0] <= batch.n <= missed[1] \
                    and batch.n not in self.received:
                self._tell(Missed(batch.n, batch.action, batch.events, batch.standin))
            self.received.setdefault(batch.n, batch)
            self._chunk_done(now)
            self._on_kept(now)
            return
        waiting = self.ahead
        if len(waiting) >= MAX_BUFFER and batch.n not in waiting:
            # Full: keep the batches nearest the gap. Those it fills (a catch-up chunk)
            # must find room; the farthest one is asked for again in its turn.
            farthest = max(waiting)
            if batch.n > farthest:
                raise FrameError("too many batches waiting for a gap to fill")
            del waiting[farthest]
        waiting[batch.n] = batch
        self.drain(now)

    def drain(self, now: float) -> None:
        """Apply the batches waiting in order."""
        while self.view is not None and (batch := self.ahead.pop(self.applied + 1, None)):
            if not self._apply(batch, now):
                return
        self._on_progress(now)
        if not self.ahead:
            self.gap_since = None
        elif self.gap_since is None:
            self.gap_since = now
        self._chunk_done(now)
        self._on_kept(now)

    def _apply(self, batch: Batch, now: float) -> bool:
        assert self.view is not None
        # All or nothing: the batch goes onto a copy that replaces the view on success.
        trial = self.view.copy()
        try:
            for event in batch.events:
                self.definition.apply(trial, event)
        except (InvalidEventError, IndexError, KeyError, ValueError, TypeError) as exc:
            log.warning("batch %d does not apply: %s", batch.n, exc)
            self._desync(batch, self.definition.public_hash(self.view),
                         f"event does not apply: {exc}", now)
            return False
        self.view = trial
        self.applied = batch.n
        self.received[batch.n] = batch
        if self.actions and batch.proof is not None:
            self.actions.answered(batch.proof)
        ours = self.definition.public_hash(self.view)
        if ours != batch.hash:
            self._desync(batch, ours, "hash differs", now)
            return False
        self._tell(Applied(batch.n, batch.action, batch.events, batch.standin))
        if self.view.outcome is not None:
            self.actions.forget()
            self._tell(GameEnded(self.view.outcome))
        return True

    def _desync(self, batch: Batch, ours: str, why: str, now: float) -> None:
        log.warning(
            "desync at batch %d (%s): our hash %s, the host's %s; last events %s",
            batch.n, why, ours, batch.hash, [e.to_wire() for e in batch.events][-8:],
        )
        self._tell(Desynced(batch.n, ours, batch.hash))
        self._report(
            "desync",
            # The report travels unsealed: only what a spectator may see goes in it.
            {"n": batch.n, "ours": ours, "theirs": batch.hash, "why": why,
             "last": [e.redacted_for(SPECTATOR).to_wire() for e in batch.events][-8:],
             "version": 1},
        )
        self.request_resync(batch.n, now, snapshot=True, reason="desync", force=True)

    def request_resync(self, start: int, now: float, *, snapshot: bool, reason: str,
                       force: bool = False) -> None:
        """Ask the host to send again from batch ``start`` (or a snapshot of the view);
        not more often than every :data:`RESYNC_EVERY` seconds unless ``force``."""
        if not force and now - self.last_resync < RESYNC_EVERY:
            return
        self.last_resync = now
        self.gap_since = None
        body: dict[str, Any] = {"from": start, "snapshot": snapshot, "reason": reason}
        if self.facts is None:
            body["start"] = True  # the game's facts first: without them nothing applies
        self._to_host("resync", body)

    def snapshot(self, body: dict[str, Any], now: float) -> None:
        """The host's snapshot of this peer's view: the view jumps to it."""
        n = required(body, "n", int)
        try:
            state = self.definition.state_from_wire(required(body, "state", dict))
        except MalformedError as exc:
            raise FrameError(f"snapshot: {exc}") from None
        if state.audience != self.audience:
            raise FrameError("a snapshot of someone else's view")
        if self.definition.public_hash(state) != required(body, "hash", str):
            raise FrameError("a snapshot whose hash does not match")
        before = self.applied
        self.view = state
        self.applied = n
        self.base = max(self.base, n)
        self.known = max(self.known, n)
        if n > before and not self.peer.watch:
            # Back past batches never seen one by one: fetch them for the log.
            low = before + 1 if self.missed is None else min(self.missed[0], before + 1)
            self.missed = (low, n)
        self.ahead = {k: b for k, b in self.ahead.items() if k > n}
        self.actions.forget()  # made on a view now gone: not sent again
        self._tell(Resynced(n, "snapshot"))
        if state.outcome is not None:
            self._tell(GameEnded(state.outcome))
        self.drain(now)
        self.catch_up(now)

    def host_at(self, at: int, public: object, now: float) -> None:
        """The host's heartbeat says it has published up to batch ``at`` (``public``: of
        which spectators may have so far, behind a spectator delay): a peer behind it
        catches up, or finds the gap."""
        if self.peer.seat is None and type(public) is int and 0 <= public <= at:
            at = public  # a spectator delay: what spectators may have so far
        self.known = max(self.known, at)
        behind = self.peer.joined and self.view is not None and at > self.applied
        if self.chunk is not None:
            return  # catching up already
        if behind and self.peer.watch and self.facts is not None:
            self.catch_up(now)
            return
        if behind and not self.ahead and self.gap_since is None:
            self.gap_since = now

    # -- catch-up: history in chunks --------------------------------------------------------

    def _wanted(self) -> int | None:
        """The first batch of history still wanted, if any."""
        peer = self.peer
        if peer.watch and peer.joined and self.facts is not None:
            start = self.applied + 1
            if start <= self.known and start not in self.ahead:
                return start
        missed = self.missed
        if missed is not None:
            missing = next((n for n in range(missed[0], missed[1] + 1)
                            if n not in self.received), None)
            if missing is not None:
                return missing
            self.missed = None
        return None

    def catch_up(self, now: float, *, again: bool = False) -> None:
        """Ask for the next chunk of history, one chunk in flight at a time (the host's
        work per peer is budgeted: a paced catch-up never trips it for long)."""
        if self.chunk is not None and not again:
            return
        start = self._wanted()
        if start is None:
            self.chunk = None
            return
        size = CHUNK if self.peer.seat is None else SEAT_CHUNK
        self.chunk = ChunkAsked(start, start + size - 1, now)
        self.last_resync = now
        self._to_host("resync", {"from": start, "snapshot": False, "reason": "catch-up",
                                 "history": True})

    def _chunk_done(self, now: float) -> None:
        chunk = self.chunk
        if chunk is None:
            return
        last = min(chunk.last, self.known)
        received = self.received
        # (The last one first: a chunk streaming in order is not in until it is.)
        if (last < chunk.first or last in received) and \
                all(n in received for n in range(chunk.first, last + 1)):
            self.chunk = None
            self.catch_up(now)

    # -- timers -----------------------------------------------------------------------------

    def next_deadline(self, now: float) -> float | None:
        times = []
        if self.chunk is not None:
            times.append(self.chunk.asked_at + CHUNK_PATIENCE)
        if self.gap_since is not None:
            times.append(max(self.gap_since + GAP_WAIT, self.resync_allowed_at))
        if self.no_start_since is not None:
            times.append(max(self.no_start_since + GAP_WAIT, self.resync_allowed_at))
        return min(times, default=None)

    def tick(self, now: float) -> None:
        if self.chunk is not None:
            self.gap_since = None  # catching up: the chunks fill the gap
            if now >= self.chunk.asked_at + CHUNK_PATIENCE:
                self.catch_up(now, again=True)
        if self.gap_since is not None and now >= self.gap_since + GAP_WAIT:
            self.request_resync(self.applied + 1, now, snapshot=False, reason="gap")
        if self.no_start_since is not None and now >= self.no_start_since + GAP_WAIT:
            self.request_resync(self.applied + 1, now, snapshot=False, reason="start")
