"""The topic tree of a table (docs/protocol.md)."""

from __future__ import annotations

import re
from dataclasses import dataclass

PREFIX = "sstacks/v1"
TABLE_NAME = re.compile(r"^[a-z0-9_-]{1,32}$")


def check_table_name(name: str) -> str:
    if not TABLE_NAME.match(name):
        raise ValueError(
            f"table name {name!r}: use 1-32 lower-case letters, digits, '_' or '-'"
        )
    return name


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
        """The peer id in a ``peer/<id>/out`` or ``presence/<id>`` topic."""
        rest = topic.removeprefix(self.base + "/")
        parts = rest.split("/")
        if len(parts) == 3 and parts[0] == "peer":
            return parts[1]
        if len(parts) == 2 and parts[0] == "presence":
            return parts[1]
        return None


ANNOUNCE_WILDCARD = f"{PREFIX}/+/announce"
