"""The topic tree of a table (docs/protocol.md)."""

from __future__ import annotations

from dataclasses import dataclass

from netplay.names import check_table_name as check_table_name  # the check lives there
from netplay.names import is_peer_id

PREFIX = "sstacks/v1"


@dataclass(frozen=True, slots=True)
class Topics:
    table: str

    def __post_init__(self) -> None:
        check_table_name(self.table)

    @property
    def base(self) -> str:
        return f"{PREFIX}/{self.table}"

    @property
    def announce(self) -> str:
        return f"{self.base}/announce"

    @property
    def events(self) -> str:
        return f"{self.base}/events"

    @property
    def table_stream(self) -> str:
        """Host -> seated players: what the host publishes on ``events`` but the batches
        (each seat gets its own sealed copy of those on its ``in``)."""
        return f"{self.base}/table"

    @property
    def chat(self) -> str:
        return f"{self.base}/chat"

    def inbox(self, peer: str) -> str:
        """Host -> one peer."""
        return f"{self.base}/peer/{peer}/in"

    def outbox(self, peer: str) -> str:
        """One peer -> host."""
        return f"{self.base}/peer/{peer}/out"

    def presence(self, peer: str) -> str:
        return f"{self.base}/presence/{peer}"

    @property
    def all_outboxes(self) -> str:
        return f"{self.base}/peer/+/out"

    @property
    def all_presence(self) -> str:
        return f"{self.base}/presence/+"

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
