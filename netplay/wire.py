"""What a session hands its driver: frames to publish, and how."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from netplay.codec import Sequencer, encode, pack, unpack
from netplay.errors import FrameError
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

    def send_sealed(self, topic: str, key: bytes, type_: str, body: dict[str, Any]) -> None:
        """Send ``(type_, body)`` readable only by ``key``, inside a signed ``sealed`` frame."""
        box = self.identity.seal_for(key, pack([type_, body]))
        self.send(topic, "sealed", {"box": box})

    def drain(self) -> list[Outgoing]:
        out, self.outbox = self.outbox, []
        return out


def open_sealed(
    identity: Identity, sender: bytes, body: dict[str, Any]
) -> tuple[str, dict[str, Any]]:
    """The ``(type, body)`` inside a ``sealed`` frame that ``sender`` addressed to
    ``identity``."""
    box = body.get("box")
    if not isinstance(box, bytes):
        raise FrameError("a sealed frame carries a 'box'")
    inner = unpack(identity.open_from(sender, box))
    if (
        not isinstance(inner, list)
        or len(inner) != 2
        or not isinstance(inner[0], str)
        or not isinstance(inner[1], dict)
    ):
        raise FrameError("a sealed box holds [type, body]")
    return inner[0], inner[1]
