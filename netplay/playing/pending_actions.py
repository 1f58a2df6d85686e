"""The actions a peer sent that the host has not answered yet, and their resends.

An action is answered by the batch that carries its signed frame as proof (the host
applied it) or by a ``rejected``. One unanswered for :data:`ACTION_AGAIN` seconds goes
again, the same signed frame sealed anew: it, or the host's answer, may have been lost
with a connection the broker dropped, and the host plays each signed action once.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass

log = logging.getLogger("netplay.player")

ACTION_AGAIN = 3.0
"""Seconds before an action the host has neither applied (no batch carries its proof) nor
rejected is sent again: the same signed frame, sealed anew. The host takes each signed
action once (its own order, ``ACTION_ORDER``), so one that did arrive is not played twice."""
ACTION_TRIES = 4
"""How many times an action goes out in all before the peer stops sending it (a host gone
for good, or one that applied it while this peer was brought forward by a snapshot)."""


@dataclass(slots=True)
class Unanswered:
    """An action sent and not answered yet (no batch with it as proof, no rejection)."""

    signed: bytes
    """The signed action frame: the same bytes go again (the host plays them once)."""
    sent_at: float
    tries: int = 1


class PendingActions:
    """Actions sent and not answered yet, oldest first.

    ``resend`` sends a signed action frame to the host again; it says ``False`` when there
    is no host to send it to (the action is then given up).
    """

    def __init__(self, table: str, resend: Callable[[bytes], bool]) -> None:
        self.table = table
        self._resend = resend
        self.unanswered: list[Unanswered] = []

    def __bool__(self) -> bool:
        return bool(self.unanswered)

    def __len__(self) -> int:
        return len(self.unanswered)

    def sent(self, signed: bytes, now: float) -> None:
        """An action went to the host for the first time."""
        self.unanswered.append(Unanswered(signed, now))

    def answered(self, proof: bytes) -> None:
        """A batch with ``proof`` applied: the action it answers, and any sent before it
        (the host takes them in order), are answered."""
        unanswered = self.unanswered
        for index, entry in enumerate(unanswered):
            if entry.signed == proof:
                del unanswered[:index + 1]
                return

    def rejected(self) -> None:
        """The host rejected an action: the oldest one."""
        del self.unanswered[:1]

    def welcomed(self, now: float) -> None:
        """The host welcomed this peer again (it moved to another server, or restarted):
        every unanswered action goes to it at once, in order, rather than after
        :data:`ACTION_AGAIN` seconds. The one gone before most likely went to the host
        that stopped; the host plays each signed action once, and one made on a view it
        has moved past is rejected (the peer decides again). Not a try more: the last
        host never answered."""
        for entry in list(self.unanswered):
            if not self._resend(entry.signed):
                self.unanswered.clear()
                return
            entry.sent_at = now
        if self.unanswered:
            log.info("table %s: welcomed again: %d unanswered action(s) sent again",
                     self.table, len(self.unanswered))

    def forget(self) -> None:
        """Nothing pending is sent again (the game ended, or the view they were made on
        was replaced by a snapshot)."""
        self.unanswered.clear()

    def next_deadline(self, now: float) -> float | None:
        if not self.unanswered:
            return None
        return self.unanswered[0].sent_at + ACTION_AGAIN

    def tick(self, now: float) -> None:
        """The oldest unanswered action goes again if it is due, or is given up after
        :data:`ACTION_TRIES` sends."""
        if not self.unanswered or now < self.unanswered[0].sent_at + ACTION_AGAIN:
            return
        oldest = self.unanswered[0]
        if oldest.tries >= ACTION_TRIES:
            del self.unanswered[0]
            return
        if not self._resend(oldest.signed):
            del self.unanswered[0]
            return
        log.info("table %s: no answer to an action in %.0f s: sent it again",
                 self.table, now - oldest.sent_at)
        oldest.sent_at = now
        oldest.tries += 1
