"""The table on the list (:class:`Listing`): the host's retained, signed announcement (who
sits, who is away, the table's settings and status), its pre-signed last will, answers to
a lister's query, and the watch on the announcement's topic: anything but the host's own
announcement there is put right, and the players hear of it.

No I/O: frames go through the table's sender (:class:`ListingTable`).
"""

from __future__ import annotations

import logging
import os
from typing import Any, Protocol

from netplay.budget import Bucket
from netplay.codec import TABLE_PROTOCOL
from netplay.hosting.presence import Presence
from netplay.hosting.seats import Seating
from netplay.hosting.settings import HostSettings
from netplay.hosting.state import TableState
from netplay.hosting.stream import SpectatorStream
from netplay.hosts import AnnounceWatch
from netplay.listing import ANSWER_LIMIT, query_reply_topic
from netplay.messages import CONN_LEN
from netplay.topics import Topics
from netplay.wire import Outgoing, Sender

log = logging.getLogger("netplay.host")

GAME_NAME = "sequence-stacks"


class ListingTable(Protocol):
    now: float
    settings: HostSettings
    seating: Seating
    state: TableState
    presence: Presence
    sender: Sender
    topics: Topics
    stream: SpectatorStream
    commit: bytes

    @property
    def catching_up(self) -> bool: ...


class Listing:
    """The announcement, the last will, the listing's answers and the watch."""

    def __init__(self, table: ListingTable, key: bytes, now: float) -> None:
        self.table = table
        self.key = key
        self.watch = AnnounceWatch(key, now)
        self.boot = os.urandom(8)
        """This incarnation of the host: announced, so peers join a resumed host again."""
        self.conn = os.urandom(CONN_LEN)
        """This connection's nonce, in the last will and every announcement: a seat takes
        the host's will only for the connection its newest announcement names."""
        self._will_made = False
        self._announced_conn: bytes | None = None
        self._answers = Bucket(ANSWER_LIMIT, now)

    def next_deadline(self, now: float) -> float | None:
        return self.watch.due

    def tick(self, now: float) -> None:
        if self.watch.due is not None and now >= self.watch.due:
            self._put_right()

    def announce(self) -> None:
        table = self.table
        settings = table.settings
        seats: list[dict[str, Any] | None] = []
        for info in table.seating.seats:
            if info is None:
                seats.append(None)
            else:
                entry = {
                    "name": info.name,
                    "key": info.key,
                    "bot": info.is_bot,
                    "present": info.is_bot or not table.presence.away(info),
                    "standin": info.standin is not None,
                }
                if info.plain:
                    entry["plain"] = True  # read by a screen reader: it may need a longer window
                seats.append(entry)
        closed = table.state.closed
        body = {
            "name": settings.title or settings.table,
            "game": GAME_NAME,
            "variant": settings.game,
            "protocol": TABLE_PROTOCOL,
            "host": self.key,
            "conn": self.conn,
            "boot": self.boot,
            "players": settings.players,
            "seats": seats,
            "status": "closed" if closed else table.state.status,
            "commit": table.commit,
            "password": settings.password is not None,
            "block_window": settings.block_window,
            "turn_clock": settings.turn_clock,
            "spectator_delay": settings.spectator_delay,
            "rules": settings.rules.to_wire(),
        }
        if table.catching_up and not closed:
            body["catching_up"] = True  # over for the players; spectators not there yet
        self._announced_conn = self.conn
        self.watch.sent(table.sender.send(table.topics.announce, "announce", body, retain=True))

    def connected(self) -> None:
        """The host (re)connected: it announces the new connection (once each)."""
        if self._announced_conn != self.conn:
            self.announce()

    def last_will(self) -> Outgoing:
        """The host's "offline" announcement, which the broker publishes (retained) if the
        host vanishes, for the next connection attempt (each after the first a new
        connection, with a nonce of its own). Signed now, so its seq is older than later
        announcements: peers take it in any order, but only for the connection the
        host's newest announcement names, and the live host's next frame undoes it."""
        if self._will_made:
            self.conn = os.urandom(CONN_LEN)
        self._will_made = True
        table = self.table
        body = {"host": self.key, "name": table.settings.title or table.settings.table,
                "players": table.settings.players, "conn": self.conn}
        return Outgoing(table.topics.announce, table.sender.frame("offline", body), retain=True)

    def seen(self, payload: bytes) -> None:
        """Anything but our own announcement on our announce topic is put right at once;
        the players hear when someone else tried to speak for the table."""
        intrusion = self.watch.seen(payload)
        if intrusion is None:
            return
        self._put_right()
        if not intrusion.warn:
            return
        self.watch.intrusions += 1
        self.watch.unwarned += 1
        table = self.table
        if self.watch.may_warn(table.now):
            log.warning("someone else wrote on the announcement of table %s: %s; restored",
                        table.settings.table, intrusion.what)
            table.stream.to_everyone("impostor", {
                "what": intrusion.what, "key": intrusion.key, "count": self.watch.unwarned,
            })
            self.watch.unwarned = 0

    def _put_right(self) -> None:
        current = self.watch.current
        if current is not None and self.watch.may_restore(self.table.now):
            self.table.sender.outbox.append(
                Outgoing(self.table.topics.announce, current, retain=True))

    def answer(self, payload: bytes) -> None:
        """A lister asks which tables are live: answer with the current announcement."""
        reply = query_reply_topic(payload)
        current = self.watch.current
        if reply is None or current is None or self.table.state.closed:
            return
        if self._answers.take(self.table.now):
            self.table.sender.outbox.append(Outgoing(reply, current))
