"""A finished game's public frames (its start and every batch, as a spectator got them),
to drive the player's collaborators alone, and a stand-in for the session they serve."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache
from typing import Any

from engine.state import Seat
from netplay.batch import Batch
from netplay.playing.follower import Follower
from netplay.playing.notices import Notice
from netplay.playing.pending_actions import PendingActions

from .harness import SHORT, Table


@dataclass(frozen=True)
class Game:
    start: dict[str, Any]
    batches: tuple[Batch, ...]
    seat_batches: tuple[Batch, ...]
    """Seat 0's own batches (its view's)."""
    secret: bytes
    reveal: dict[str, Any]


@cache
def public_game(seed: int = 21) -> Game:
    """A two-seat game played to its end, as a spectator received it."""
    table = Table(2, seed=seed, rules=SHORT)
    watcher = table.add_player("watcher", watch=True)
    table.run_to_end()
    assert watcher.verdict is not None and watcher.verdict.ok
    start = table.host.deal_facts()
    reveal = {"secret": table.host.secret, "total": len(watcher.received),
              "termination": watcher.verification.termination}
    batches = tuple(watcher.received[n] for n in sorted(watcher.received))
    assert [b.n for b in batches] == list(range(1, len(batches) + 1))
    seat = table.at_seat(0)
    seat_batches = tuple(seat.received[n] for n in sorted(seat.received))
    return Game(start, batches, seat_batches, table.host.secret, reveal)


@dataclass
class Peer:
    """The session as a collaborator sees it, with what it was given to send and tell."""

    watch: bool = True
    seat: Seat | None = None
    joined: bool = True
    announce: dict[str, Any] | None = field(default_factory=lambda: {"status": "playing"})
    host_over: bool = False
    to_host: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    reported: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    told: list[Notice] = field(default_factory=list)
    progressed: list[float] = field(default_factory=list)
    kept: list[float] = field(default_factory=list)

    def send(self, type_: str, body: dict[str, Any]) -> None:
        self.to_host.append((type_, body))

    def asks(self, reason: str | None = None) -> list[dict[str, Any]]:
        return [body for type_, body in self.to_host
                if type_ == "resync" and (reason is None or body["reason"] == reason)]


def follower_for(peer: Peer, actions: PendingActions | None = None) -> Follower:
    return Follower(
        "t1", peer, to_host=peer.send,
        report=lambda type_, body: peer.reported.append((type_, body)),
        tell=peer.told.append, actions=actions or PendingActions("t1", lambda _: True),
        on_progress=peer.progressed.append, on_kept=peer.kept.append)
