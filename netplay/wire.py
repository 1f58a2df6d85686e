"""What a session hands its driver: frames to publish, and how."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from netplay.codec import Sequencer, encode, encode_sealed
from netplay.identity import Identity


@dataclass(frozen=True, slots=True)
class Outgoing:
    topic: str
    payload: bytes
    retain: bool = False
    qos: int = 1


class Sender:
    """Signs and queues frames of one identity for one table."""

    def __init__(self, identity: Identity, table: str) -> None:
        self.identity = identity
        self.table = table
        self.sequencer = Sequencer()
        self.outbox: list[Outgoing] = []

    def frame(self, type_: str, body: dict[str, Any]) -> bytes:
        return encode(self.identity, self.sequencer, type_, self.table, body)

    def send(
        self, topic: str, type_: str, body: dict[str, Any], *, retain: bool = False, qos: int = 1
    ) -> bytes:
        payload = self.frame(type_, body)
        self.outbox.append(Outgoing(topic, payload, retain, qos))
        return payload

    def sealed(self, key: bytes, type_: str, body: dict[str, Any]) -> bytes:
        """A frame ``(type_, body)`` readable only by ``key``, authenticated by its box."""
        return encode_sealed(self.identity, self.sequencer, key, type_, self.table, body)

    def send_sealed(self, topic: str, key: bytes, type_: str, body: dict[str, Any]) -> None:
        """Send ``(type_, body)`` readable only by ``key``, in a sealed frame."""
        self.outbox.append(Outgoing(topic, self.sealed(key, type_, body)))

    def drain(self) -> list[Outgoing]:
        out, self.outbox = self.outbox, []
        return out
