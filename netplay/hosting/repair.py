"""Putting a peer right (:class:`Repair`): batches sent again (a peer found a gap, or its
heartbeat shows it behind), a snapshot when they are too many or its state went wrong,
a spectator's history in bulk chunk by chunk (catch-up), the game's end sent again to a
peer that has not said it verified, and an action's rejection sent again when the
action comes again. Each costs the peer's work budget (``netplay.budget``).

No I/O: frames go through the table's sender (:class:`RepairTable`).
"""

from __future__ import annotations

import logging
from typing import Any, Protocol

from engine.games import AnyAction, GameDef, TableGame
from engine.state import SPECTATOR, Audience, Seat
from netplay import budget, history
from netplay.batch import Batch
from netplay.budget import SNAPSHOT_COST, HostBudgets
from netplay.errors import FrameError
from netplay.hosting.seats import Seating
from netplay.hosting.state import TableState
from netplay.hosting.verdicts import Verdicts
from netplay.identity import peer_id
from netplay.messages import required
from netplay.topics import Topics
from netplay.wire import Sender

log = logging.getLogger("netplay.host")

MAX_RESEND = 64
"""Batches sent back at once: a longer history goes in chunks of this many."""
IN_FLIGHT = 1.0
"""Seconds after a batch went out during which a seat's heartbeat that does not count it
yet triggers no resend: the beat most likely crossed the batch on its way (under load a
beat and a batch cross often, and each resend is a frame more for both). A batch really
lost is found by the seat itself at the host's next beat or batch (``at``, a gap), and by
the host at the seat's next beat."""
HISTORY_PATIENCE = 2.0
"""Seconds after a peer asked for a history chunk during which its heartbeats showing it
behind trigger no resend of their own (the chunk is on its way)."""
REVEAL_AGAIN = 2.0
"""Seconds between the reveals sent again to a peer that, after the game, has not said it
verified (its heartbeats show it still waiting)."""
KEPT_REJECTIONS = 4
"""Rejections kept per player, to answer an action sent again whose rejection was lost."""


class RepairTable(Protocol):
    now: float
    definition: GameDef[Any, Any, Any, Any]
    seating: Seating
    state: TableState
    game: TableGame | None
    batches: list[Batch]
    budgets: HostBudgets
    peer_verdicts: Verdicts
    sender: Sender
    topics: Topics

    @property
    def released(self) -> int: ...
    def deal_facts(self) -> dict[str, Any]: ...
    def may_reveal(self, key: bytes) -> bool: ...
    def reveal(self, to: str) -> None: ...


class Repair:
    """Resends, snapshots and catch-ups, and what they remember of each peer."""

    def __init__(self, table: RepairTable) -> None:
        self.table = table
        self.history_asked: dict[bytes, float] = {}
        """When each peer last asked for a chunk of history (catch-up)."""
        self.revealed_to: dict[bytes, float] = {}
        """When the game's reveal was last sent again to a peer that had not verified."""
        self.sent_at: dict[int, float] = {}
        """When this process published each of its last batches (see :data:`IN_FLIGHT`);
        a batch not there (replayed from the journal, or long ago) is not in flight."""
        self.rejections: dict[bytes, dict[int, dict[str, Any]]] = {}
        """Each player's last few rejections, by the seq of the signed action they
        answered: an action sent again (its rejection lost) gets its rejection again."""
        self._copies = history.PublicCopies()
        """The batches' public bodies, packed once for every spectator's catch-up."""

    def published(self, batch: Batch, now: float) -> None:
        """A batch went out now (it is in flight for a moment)."""
        self.sent_at[batch.n] = now
        self.sent_at.pop(batch.n - 64, None)  # only the last ones can be in flight

    def public_size(self) -> int:
        """The bytes of every batch's public copy (a finished game's history)."""
        return self._copies.size(self.table.batches)

    def afford(self, key: bytes, frames: float) -> bool:
        """May ``key`` have ``frames`` frames resent to it now (its work budget)?"""
        table = self.table
        role = budget.SEAT if table.seating.seat_of(key) is not None else budget.SPECTATOR
        return table.budgets.resend(peer_id(key), role, frames, table.now)

    def reject(self, key: bytes, action: AnyAction, reason: str, seq: int | None) -> None:
        """Tell ``key`` its action is refused, and why; the rejection is kept by the seq
        of the signed action (``seq``), to be sent again if the action comes again."""
        log.info("rejected %s: %s", action, reason)
        body = {"reason": reason, "action": action.to_wire()}
        if seq is not None:
            kept = self.rejections.setdefault(key, {})
            kept[seq] = body
            while len(kept) > KEPT_REJECTIONS:
                del kept[next(iter(kept))]
        # Sealed: a refused action may name a card in the player's hand.
        table = self.table
        table.sender.send_sealed(table.topics.inbox(peer_id(key)), key, "rejected", body)

    def rejection(self, key: bytes, seq: int) -> dict[str, Any] | None:
        """The rejection kept for the action ``seq`` of ``key``, if it had one."""
        return self.rejections.get(key, {}).get(seq)

    def heartbeat(self, key: bytes, at: int) -> None:
        """A known peer's heartbeat in a game, saying it has applied ``at`` batches."""
        table = self.table
        now = table.now
        batches = len(table.batches)
        if not table.state.over:
            if 0 <= at < batches:
                asked = self.history_asked.get(key)
                if asked is not None and now - asked < HISTORY_PATIENCE:
                    return  # catching up chunk by chunk: the next chunk is on its way
                sent = self.sent_at.get(at + 1)
                if sent is not None and now - sent < IN_FLIGHT:
                    return  # the beat crossed the batch on its way
                # The peer is behind and did not notice: send what it misses.
                self.resend(key, at + 1)
            return
        # The game is over and this peer has not said it verified: it may have missed the
        # last batches or the reveal (lost with a connection the broker dropped), and it
        # would wait for them for ever. Sent again at most every REVEAL_AGAIN seconds.
        sent = self.revealed_to.get(key)
        if table.seating.ref_of(key) in table.peer_verdicts \
                or (sent is not None and now - sent < REVEAL_AGAIN):
            return
        self.revealed_to[key] = now
        if 0 <= at < batches:
            self.resend(key, at + 1)  # the reveal follows the batches
        elif table.may_reveal(key) and self.afford(key, 1):
            table.reveal(to=table.topics.inbox(peer_id(key)))

    def resync(self, key: bytes, body: dict[str, Any]) -> None:
        """A peer's ``resync``: batches from ``from`` on, a snapshot, or its lost start."""
        table = self.table
        start = required(body, "from", int)
        snapshot = required(body, "snapshot", bool)
        if not table.state.started:
            return
        seat = table.seating.seat_of(key)
        if seat is None and key not in table.seating.spectators:
            raise FrameError("resync from a peer that has not joined")
        if body.get("start") is True:
            # Its start was lost: the facts first, on its own channel (a spectator had
            # them in its welcome, delay or not), then what it asked for.
            if not self.afford(key, 1):
                return
            table.sender.send(table.topics.inbox(peer_id(key)), "start", table.deal_facts())
            if seat is None:
                self.history_asked[key] = table.now  # behind: the host waits for it at the end
        if snapshot:
            self.snapshot(key, seat)
            return
        catch_up = body.get("history") is True
        if catch_up:
            self.history_asked[key] = table.now
        self.resend(key, start, chunk=catch_up or seat is None)

    def snapshot(self, key: bytes, seat: Seat | None) -> None:
        table = self.table
        assert table.game is not None
        if not self.afford(key, SNAPSHOT_COST):
            return
        audience: Audience = SPECTATOR if seat is None else seat
        body = {
            "n": len(table.batches),
            "state": table.definition.state_to_wire(
                table.definition.view_for(table.game.state, audience)),
            "hash": table.definition.public_hash(table.game.state),
        }
        inbox = table.topics.inbox(peer_id(key))
        if seat is None:
            table.sender.send(inbox, "snapshot", body)
        else:
            table.sender.send_sealed(inbox, key, "snapshot", body)

    def resend(self, key: bytes, start: int, *, chunk: bool = False) -> None:
        """Batches from ``start`` on. ``chunk``: at most :data:`MAX_RESEND` of them and never
        a snapshot (a catch-up: the peer asks for the next chunk when this one is in);
        otherwise all of them, or a snapshot when they are too many. A spectator always
        gets a chunk of ``history.CHUNK`` in bulk (:meth:`_send_history`)."""
        table = self.table
        seat = table.seating.seat_of(key)
        # A spectator never gets ahead of the spectator delay, resends included.
        total = len(table.batches) if seat is not None else table.released
        start = max(start, 1)
        if start > total:
            return
        if seat is None:
            self._send_history(key, start, min(total, start + history.CHUNK - 1))
            return
        end = total
        if chunk:
            end = min(total, start + MAX_RESEND - 1)
        elif total - start + 1 > MAX_RESEND and not table.state.over:
            self.snapshot(key, seat)
            return
        if not self.afford(key, end - start + 1):
            return
        inbox = table.topics.inbox(peer_id(key))
        for batch in table.batches[start - 1 : end]:
            table.sender.send_sealed(inbox, key, "events", batch.redacted_for(seat).to_body())
        self._reveal_after(key, end, inbox)

    def _send_history(self, key: bytes, start: int, end: int) -> None:
        """Batches ``start``..``end`` to a spectator in bulk (``history`` frames), if its
        byte budget affords them all (else nothing: it asks again)."""
        table = self.table
        packed = self._copies.packed(table.batches, start, end)
        if not table.budgets.history_bytes(peer_id(key), sum(map(len, packed)), table.now):
            return
        inbox = table.topics.inbox(peer_id(key))
        for group in history.frames(packed):
            table.sender.send(inbox, "history", {"batches": group})
        self._reveal_after(key, end, inbox)

    def _reveal_after(self, key: bytes, end: int, inbox: str) -> None:
        table = self.table
        if table.state.over and end == len(table.batches) and table.may_reveal(key):
            table.reveal(to=inbox)  # it may have missed the reveal along with the batches
