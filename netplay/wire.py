"""What a session hands its driver: frames to publish, and how."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from netplay.codec import Sequencer, encode, encode_boxes, encode_sealed
from netplay.identity import Identity


@dataclass(frozen=True, slots=True)
class Outgoing:
    topic: str
    payload: bytes
    retain: bool = False
    qos: int = 1


@dataclass(frozen=True, slots=True)
class _Later:
    """A frame queued now and made when drained: its place in the queue and its sequence
    number are taken now, so it goes out in the order it was sent, and its topic's replay
    guard sees the numbers rise."""

    topic: str
    make: Callable[[], bytes]


class Sender:
    """Signs (or seals) and queues frames of one identity for one table, in order."""

    def __init__(self, identity: Identity, table: str) -> None:
        self.identity = identity
        self.table = table
        self.sequencer = Sequencer()
        self.outbox: deque[Outgoing | _Later] = deque()
        self.epoch = 0
        """The host's epoch (``docs/protocol.md``, *Several servers*): above 0, every
        frame's body carries it (``epoch``), and peers refuse frames of an older one. 0:
        a table no server took over; nothing is added."""

    def _body(self, body: dict[str, Any]) -> dict[str, Any]:
        return {**body, "epoch": self.epoch} if self.epoch else body

    def frame(self, type_: str, body: dict[str, Any]) -> bytes:
        return encode(self.identity, self.sequencer, type_, self.table, self._body(body))

    def send(
        self, topic: str, type_: str, body: dict[str, Any], *, retain: bool = False, qos: int = 1
    ) -> bytes:
        payload = self.frame(type_, body)
        self.outbox.append(Outgoing(topic, payload, retain, qos))
        return payload

    def sealed(self, key: bytes, type_: str, body: dict[str, Any]) -> bytes:
        """A frame ``(type_, body)`` readable only by ``key``, authenticated by its box."""
        return encode_sealed(self.identity, self.sequencer, key, type_, self.table,
                             self._body(body))

    def send_sealed(
        self, topic: str, key: bytes, type_: str, body: dict[str, Any], *, qos: int = 1
    ) -> None:
        """Send ``(type_, body)`` readable only by ``key``, in a sealed frame."""
        self.outbox.append(Outgoing(topic, self.sealed(key, type_, body), qos=qos))

    def send_boxes(
        self, topic: str, keys: Sequence[bytes | None], type_: str,
        bodies: Sequence[dict[str, Any] | None], *, qos: int = 1,
    ) -> None:
        """Send ``(type_, bodies[i])`` readable only by ``keys[i]``, for every ``i``, in
        one ``boxes`` frame (see ``netplay.codec.encode_boxes``)."""
        if self.epoch:
            bodies = [None if b is None else self._body(b) for b in bodies]
        self.outbox.append(Outgoing(topic, encode_boxes(
            self.identity, self.sequencer, keys, type_, self.table, bodies), qos=qos))

    def send_later(self, topic: str, type_: str, body: Callable[[], dict[str, Any]]) -> None:
        """Send a signed frame whose body is made, and the frame signed, only when it is
        drained (see :meth:`urgent`)."""
        seq = self.sequencer.next()
        self.outbox.append(_Later(topic, lambda: encode(
            self.identity, self.sequencer, type_, self.table, self._body(body()), seq=seq)))

    def send_sealed_later(
        self, topic: str, key: bytes, type_: str, body: Callable[[], dict[str, Any]]
    ) -> None:
        """:meth:`send_sealed`, the body made and the frame sealed only when drained."""
        seq = self.sequencer.next()
        self.outbox.append(_Later(topic, lambda: encode_sealed(
            self.identity, self.sequencer, key, type_, self.table, self._body(body()),
            seq=seq)))

    def urgent(self) -> list[Outgoing]:
        """The frames queued before the first one sent for later, which are made already:
        a driver that must wait (for its journal) before publishing anything sends these
        as soon as it may, and the rest (:meth:`frames`) after."""
        outbox = self.outbox
        taken: list[Outgoing] = []
        while outbox and isinstance(outbox[0], Outgoing):
            taken.append(outbox.popleft())  # type: ignore[arg-type]  # checked just above
        return taken

    def frames(self) -> Iterator[Outgoing]:
        """Every queued frame, in order, each sent for later made only when it is reached:
        a driver that publishes each as it comes has it out before the next is made."""
        outbox = self.outbox
        while outbox:
            item = outbox.popleft()
            yield item if isinstance(item, Outgoing) else Outgoing(item.topic, item.make())

    def drain(self) -> list[Outgoing]:
        """Every queued frame, in order, those sent for later made now."""
        return list(self.frames())
