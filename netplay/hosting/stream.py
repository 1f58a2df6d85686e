"""The spectators' stream and its delay (:class:`SpectatorStream`): with a spectator delay
the public stream (``start``, batches, races, the reveal) reaches spectators that many
seconds late; the host holds it back and releases it when due, and a resumed host holds
back again what its journal says spectators were not due yet (the catch-up tail).

No I/O: :meth:`due` hands the table what is due, the table publishes it.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from netplay.hosting.journal import WentOut


@dataclass(frozen=True, slots=True)
class Held:
    """A public frame held back: its type and body, and when it is due."""

    due: float
    type: str
    body: dict[str, Any]


TO_SEATS_AT_ONCE = frozenset({"start", "race", "reveal"})
"""What the seats get on their own channel at once while spectators wait for it."""


class SpectatorStream:
    """What the spectator delay holds back, and how far spectators have been told."""

    def __init__(self, delay: float, release: Callable[[], None]) -> None:
        self.delay = delay
        self.release = release
        """Publishes what is due (:meth:`due`), called by :meth:`tick`."""
        """Seconds the public stream reaches spectators late (0: not at all)."""
        self.held: deque[Held] = deque()
        self._released = 0
        """The last batch released to spectators (with a delay)."""
        self.restored = 0
        """Batches a resumed host released at once (they went out before it died)."""

    @property
    def delayed(self) -> bool:
        return self.delay > 0

    def released(self, batches: int) -> int:
        """Batches released to spectators, of ``batches``: all of them without a delay;
        with one, those published (late) so far, and a resumed host's at once."""
        if not self.delayed:
            return batches
        return max(self._released, self.restored)

    def hold(self, type_: str, body: dict[str, Any], now: float) -> None:
        self.held.append(Held(now + self.delay, type_, body))

    def next_deadline(self, now: float) -> float | None:
        return self.held[0].due if self.held else None

    def tick(self, now: float) -> None:
        self.release()

    def due(self, now: float) -> list[Held]:
        """Take what is due now, in order (released batches counted)."""
        out: list[Held] = []
        held = self.held
        while held and held[0].due <= now:
            item = held.popleft()
            if item.type == "events":
                self._released = max(self._released, int(item.body["n"]))
            out.append(item)
        return out

    def release_all(self, now: float) -> None:
        """Make everything held back due now (a host closing its ended table)."""
        self.held = deque(Held(min(h.due, now), h.type, h.body) for h in self.held)

    def tail_left(self, now: float) -> float:
        """Seconds until spectators have had everything held back (0: nothing is)."""
        return max(0.0, self.held[-1].due - now) if self.held else 0.0

    def hold_again(
        self, went_out: Sequence[WentOut], now: float, wall: float,
        public_of: Callable[[int], list[tuple[str, dict[str, Any]]]],
        end: dict[str, Any] | None,
    ) -> int | None:
        """A resumed host keeps the delay: from the first batch its journal says went to
        the players less than the delay before ``wall`` (the wall clock now), everything
        is held back again, due in order (a race as journaled, a batch as ``public_of``
        its number gives it), the game's ``end`` (a reveal's body) last. Returns that
        first batch (``None``: nothing is held back; journals without times release
        everything at once, as it was published before)."""
        delay = self.delay
        held: list[Held] = []
        due_last = now
        first: int | None = None
        for sent in went_out:
            if first is None:
                if sent.kind != "batch" or sent.wall is None or sent.wall + delay <= wall:
                    continue
                first = int(sent.value)
            # From the first batch not due yet on, everything waits its turn, in order.
            if sent.wall is not None:
                due_last = max(due_last, now + min(delay, sent.wall + delay - wall))
            if sent.kind == "batch":
                held.extend(Held(due_last, t, body) for t, body in public_of(int(sent.value)))
            else:
                held.append(Held(due_last, "race", sent.value))
        if first is None:
            return None
        if end is not None:
            held.append(Held(due_last, "reveal", end))
        self.held.extend(held)
        self.restored = first - 1
        return first
