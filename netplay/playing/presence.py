"""This peer's own presence: online on a connection, and the last will that says it left.

Each connection has a nonce of its own (protocol 7): the will and the ``online`` name it,
so a will of an earlier connection, replayed, can't mark the seat away.
"""

from __future__ import annotations

import os

from netplay.messages import CONN_LEN
from netplay.wire import Outgoing, Sender


class OwnPresence:
    """The retained presence this peer publishes on ``topic``."""

    def __init__(self, sender: Sender, topic: str) -> None:
        self.sender = sender
        self.topic = topic
        self.conn = os.urandom(CONN_LEN)
        """This connection's nonce: the last will and the ``online`` name it."""
        self._will_given = False
        self._online_on: bytes | None = None
        """The connection this peer last said it is online on."""

    def last_will(self) -> Outgoing:
        """The ``offline`` presence the broker publishes if this peer vanishes, for the next
        connection attempt: each attempt after the first is a new connection, with a nonce
        of its own (:attr:`conn`)."""
        if self._will_given:
            self.conn = os.urandom(CONN_LEN)
        self._will_given = True
        payload = self.sender.frame("presence", {"online": False, "conn": self.conn})
        return Outgoing(self.topic, payload, retain=True)

    def connected(self) -> None:
        """The peer (re)connected: it is online on this connection (said once each)."""
        if self._online_on == self.conn:
            return
        self._online_on = self.conn
        self.sender.send(self.topic, "presence", {"online": True, "conn": self.conn},
                         retain=True)

    def leave(self) -> None:
        """The peer leaves: offline, said by itself."""
        self.sender.send(self.topic, "presence", {"online": False, "conn": self.conn},
                         retain=True)
