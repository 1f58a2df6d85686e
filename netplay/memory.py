"""An in-memory MQTT look-alike: topic filters, retained messages, ordered delivery.

For fast tests of sessions and peers without a broker. Same semantics as far as the
protocol relies on them: per-subscriber FIFO delivery, ``+`` and ``#`` wildcards,
retained messages replayed on subscribe (an empty retained payload clears the topic).
"""

from __future__ import annotations

from collections.abc import Callable


def topic_matches(pattern: str, topic: str) -> bool:
    """MQTT topic filter matching (``+`` one level, ``#`` the rest)."""
    p_parts = pattern.split("/")
    t_parts = topic.split("/")
    for index, part in enumerate(p_parts):
        if part == "#":
            return True
        if index >= len(t_parts):
            return False
        if part != "+" and part != t_parts[index]:
            return False
    return len(p_parts) == len(t_parts)


Deliver = Callable[[str, bytes], None]


class MemoryBroker:
    """Routes publishes to subscribers synchronously, in publish order."""

    def __init__(self) -> None:
        self._subs: list[tuple[str, Deliver, object]] = []
        self.retained: dict[str, bytes] = {}
        self.log: list[tuple[str, bytes]] = []

    def subscribe(self, owner: object, pattern: str, deliver: Deliver) -> None:
        self._subs.append((pattern, deliver, owner))
        for topic, payload in list(self.retained.items()):
            if topic_matches(pattern, topic):
                deliver(topic, payload)

    def unsubscribe_all(self, owner: object) -> None:
        self._subs = [s for s in self._subs if s[2] is not owner]

    def publish(self, topic: str, payload: bytes, retain: bool = False) -> None:
        self.log.append((topic, payload))
        if retain:
            if payload:
                self.retained[topic] = payload
            else:
                self.retained.pop(topic, None)
        for pattern, deliver, _owner in list(self._subs):
            if topic_matches(pattern, topic):
                deliver(topic, payload)


class AsyncMemoryBroker(MemoryBroker):
    """The same, for the async peers (``netplay.transport.MemoryTransport`` subscribes
    its own deliveries)."""
