"""The topic tree of a table (docs/protocol.md)."""

from __future__ import annotations

from dataclasses import dataclass, field

from netplay.names import check_table_name as check_table_name  # the check lives there
from netplay.names import is_peer_id

PREFIX = "sstacks/v1"


@dataclass(frozen=True, slots=True)
class Topics:
    """A table's topics. The fixed ones are worked out once, as the table is named: a
    peer compares a message's topic with several of them for every message it reads."""

    table: str
    base: str = field(init=False, repr=False, compare=False)
    announce: str = field(init=False, repr=False, compare=False)
    events: str = field(init=False, repr=False, compare=False)
    table_stream: str = field(init=False, repr=False, compare=False)
    """Host -> seated players: what the host publishes on ``events`` but the batches
    (each seat gets its own sealed copy of those on its ``in``)."""
    chat: str = field(init=False, repr=False, compare=False)
    all_outboxes: str = field(init=False, repr=False, compare=False)
    all_presence: str = field(init=False, repr=False, compare=False)
    _presence: str = field(init=False, repr=False, compare=False)
    _peer: str = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        check_table_name(self.table)
        base = f"{PREFIX}/{self.table}"
        for name, value in (
            ("base", base),
            ("announce", f"{base}/announce"),
            ("events", f"{base}/events"),
            ("table_stream", f"{base}/table"),
            ("chat", f"{base}/chat"),
            ("all_outboxes", f"{base}/peer/+/out"),
            ("all_presence", f"{base}/presence/+"),
            ("_presence", f"{base}/presence/"),
            ("_peer", f"{base}/peer/"),
        ):
            object.__setattr__(self, name, value)

    def inbox(self, peer: str) -> str:
        """Host -> one peer."""
        return f"{self._peer}{peer}/in"

    def outbox(self, peer: str) -> str:
        """One peer -> host."""
        return f"{self._peer}{peer}/out"

    def presence(self, peer: str) -> str:
        return self._presence + peer

    def peer_of(self, topic: str) -> str | None:
        """The peer id in a ``peer/<id>/out`` or ``presence/<id>`` topic (``None`` for any
        other topic, or a level that is not a peer id: a rogue's topic on a broker that
        routes any level must not name a budget, or a line of the log)."""
        rest = topic.removeprefix(self.base + "/")
        parts = rest.split("/")
        if (len(parts), parts[0]) not in ((3, "peer"), (2, "presence")):
            return None
        peer = parts[1]
        return peer if is_peer_id(peer) else None


ANNOUNCE_WILDCARD = f"{PREFIX}/+/announce"
