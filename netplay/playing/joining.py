"""When a peer's join goes to the followed host: at once, after listening, or again.

A peer given a bare table name (no pin, no remembered host) listens to the table's
announcements for :data:`SETTLE` seconds before its first join, so that a rogue's
retained announcement is seen beside the host's before either has the peer. A join left
unanswered (a host over its join budget, say, dropped it) goes again every
:data:`JOIN_RETRY` seconds until the peer is welcomed or refused.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from netplay.hosts import HostTrust

JOIN_RETRY = 3.0
"""Seconds before an unanswered join is sent again."""
SETTLE = 1.0
"""Seconds a peer given a bare table name (no pin, no remembered host) listens to the
table's announcements before its first join. A rogue's retained announcement is on the
broker only until the host puts its own back (within milliseconds; under a sustained
hijack, 10 a second): in this time both keys are seen, and the user is asked to pin one
(``HostsDisagree``) before either host has the peer. A heartbeat does not cut it
short: on an open broker a rogue can send those too."""


class Follows(Protocol):
    """What the join reads of the peer (its session)."""

    @property
    def host_key(self) -> bytes | None: ...
    @property
    def announce(self) -> dict[str, Any] | None: ...
    @property
    def closed(self) -> bool: ...
    @property
    def joined(self) -> bool: ...
    @property
    def trust(self) -> HostTrust: ...


class Joining:
    """Whether and when this peer's join goes to the followed host.

    ``send_join`` sends the join (and calls :meth:`sent`).
    """

    def __init__(self, peer: Follows, *, settle: float = SETTLE,
                 send_join: Callable[[], None]) -> None:
        self.peer = peer
        self._send_join = send_join
        self.settle = settle
        """Seconds a bare table name listens before its first join (:data:`SETTLE`)."""
        self.asked = False
        """A join went to the followed host (or it was found one this peer can't join):
        none goes again on its announcements, unless the host changes or restarts."""
        self.unanswered_since: float | None = None
        """When the last join went out unanswered; it goes again every
        :data:`JOIN_RETRY` seconds until welcomed or refused."""
        self.settle_until: float | None = None
        """When the first join of a bare name may go (set at its first announcement)."""

    def sent(self, now: float) -> None:
        """A join went out."""
        self.asked = True
        self.unanswered_since = now

    def welcomed(self) -> None:
        """The host welcomed this peer: its join is answered."""
        self.unanswered_since = None

    def refused(self) -> None:
        """The host refused this peer: no join goes again on its announcements."""
        self.asked = True
        self.unanswered_since = None

    def again(self) -> None:
        """Join again on the followed host's next announcement (a new host, a restarted
        one, or one the user chose)."""
        self.asked = False

    def forget(self) -> None:
        """No host is followed: no join goes."""
        self.asked = False
        self.unanswered_since = None
        self.settle_until = None

    def may_join(self, now: float) -> bool:
        """Whether a join may go to the followed host now: it announced an open table, and
        a bare table name has listened for :attr:`settle` seconds since its first
        announcement without a second key claiming the table."""
        peer = self.peer
        if peer.host_key is None or peer.announce is None or peer.closed \
                or peer.trust.undecided:
            return False
        if peer.joined or not peer.trust.bare or self.settle <= 0:
            return True  # (joined: a restarted host is joined again at once)
        if self.settle_until is None:
            self.settle_until = now + self.settle
        return now >= self.settle_until

    def _retry_at(self) -> float | None:
        peer = self.peer
        if self.unanswered_since is None or peer.joined or peer.host_key is None \
                or peer.closed:
            return None
        return self.unanswered_since + JOIN_RETRY

    def next_deadline(self, now: float) -> float | None:
        times = []
        retry = self._retry_at()
        if retry is not None:
            times.append(retry)
        if self.settle_until is not None and now < self.settle_until:
            times.append(self.settle_until)
        return min(times, default=None)

    def tick(self, now: float) -> None:
        retry = self._retry_at()
        if retry is not None and now >= retry:
            self._send_join()
        if self.settle_until is not None and now >= self.settle_until \
                and not self.asked and not self.peer.joined and self.may_join(now):
            self._send_join()  # the bare name listened long enough: one host claims it

    def join_if_allowed(self, now: float) -> None:
        """Join the followed host on its announcement, unless asked already or not yet
        allowed (:meth:`may_join`)."""
        if not self.asked and self.may_join(now):
            self._send_join()
