"""A batch: the events one action produced, as the host numbers and publishes them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.errors import MalformedError
from engine.games import STACKS, AnyAction, AnyEvent, GameDef
from engine.state import Audience
from netplay.errors import FrameError
from netplay.messages import optional, required

MAX_EVENTS = 256


@dataclass(frozen=True, slots=True)
class Batch:
    n: int
    action: AnyAction | None
    """What caused the batch; ``None`` for the deal."""
    proof: bytes | None
    """The player's signed frame of ``action``; ``None`` for the host's and bots' actions."""
    events: tuple[AnyEvent, ...]
    hash: str
    """The host's ``public_hash`` after the batch."""
    standin: bool = False
    """The host's stand-in bot acted for an absent player (so there is no proof)."""

    def redacted_for(self, audience: Audience) -> Batch:
        return Batch(
            self.n,
            self.action,
            self.proof,
            tuple(e.redacted_for(audience) for e in self.events),
            self.hash,
            self.standin,
        )

    def to_body(self) -> dict[str, Any]:
        return {
            "n": self.n,
            "action": None if self.action is None else self.action.to_wire(),
            "proof": self.proof,
            "events": [e.to_wire() for e in self.events],
            "hash": self.hash,
            "standin": self.standin,
        }

    @classmethod
    def from_body(cls, body: dict[str, Any], game: GameDef[Any, Any, Any, Any] = STACKS) -> Batch:
        """Decode an untrusted batch of ``game`` (the table's announcement names it)."""
        n = required(body, "n", int)
        if n < 1:
            raise FrameError("batch numbers start at 1")
        action_wire = optional(body, "action", dict)
        events_wire = required(body, "events", list)
        if len(events_wire) > MAX_EVENTS:
            raise FrameError("too many events in one batch")
        try:
            action = None if action_wire is None else game.action_from_wire(action_wire)
            events = tuple(game.event_from_wire(e) for e in events_wire)
        except MalformedError as exc:
            raise FrameError(f"batch {n}: {exc}") from None
        digest = required(body, "hash", str)
        if len(digest) != 32:
            raise FrameError("hash must be 32 hex characters")
        standin = required(body, "standin", bool)
        return cls(n, action, optional(body, "proof", bytes), events, digest, standin)
