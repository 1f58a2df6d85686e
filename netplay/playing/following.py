"""Which host this peer follows: the table's announcements, weighed and taken.

Each announcement is weighed by :class:`netplay.hosts.HostTrust` (a pin, the remembered
host of an unfinished game, a bare name's first claims): followed, ignored, said to be
another host's (:class:`HostConflict`, :class:`HostsDisagree`, :class:`UnexpectedHost`) or
taken as the table's new host (:class:`HostChanged`). A followed announcement tells the
table's game, its status (closed, over) and the host's incarnation (a restarted host is
joined again); the host's signed last will says it is gone, for the connection its newest
announcement names.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any, Protocol

from engine.errors import EngineError
from engine.games import STACKS, game_def
from netplay.codec import TABLE_PROTOCOL
from netplay.errors import FrameError
from netplay.hosts import Claim, HostTrust, Trust, fingerprint
from netplay.messages import conn_of, key_bytes, optional
from netplay.playing.follower import Follower
from netplay.playing.joining import Joining
from netplay.playing.liveness import HostLiveness
from netplay.playing.notices import (
    HostChanged,
    HostConflict,
    HostMoved,
    HostsDisagree,
    NextGame,
    Notice,
    Refused,
    TableClosed,
    TableSeen,
    UnexpectedHost,
)

log = logging.getLogger("netplay.player")


def epoch_of(body: dict[str, Any]) -> int:
    """The host's epoch a frame's body carries (0: none, or nothing sensible)."""
    epoch = body.get("epoch", 0)
    return epoch if type(epoch) is int and 0 <= epoch < 1 << 31 else 0


class Member(Protocol):
    """What the host's following reads of the peer (its session)."""

    @property
    def joined(self) -> bool: ...
    @property
    def games(self) -> frozenset[str] | None: ...


class HostFollowing:
    """The host key this peer follows, its newest announcement and connection."""

    def __init__(self, table: str, trust: HostTrust, peer: Member, *, follower: Follower,
                 liveness: HostLiveness, joining: Joining,
                 tell: Callable[[Notice], None]) -> None:
        self.table = table
        self.trust = trust
        """Which host key this peer follows (``TABLE@FINGERPRINT`` pins one; the host this
        profile joined the table's unfinished game with is followed as if pinned)."""
        self.peer = peer
        self.follower = follower
        self.liveness = liveness
        self.joining = joining
        self._tell = tell
        self.host_key: bytes | None = None
        self.host_boot: bytes | None = None
        """The host's incarnation (``boot`` in its announcements)."""
        self.epoch = 0
        """The followed host's highest epoch seen (``epoch`` in its frames; 0: none): a
        frame of an older one comes from a server that lost the table, and is refused."""
        self.announce: dict[str, Any] | None = None
        """The followed host's newest announcement."""
        self.host_over = False
        """The host's last announcement before any close said its game was over (with a
        spectator delay, before a spectator has seen the end)."""
        self.host_connection: tuple[bytes, int, bytes] | None = None
        """The host's connection as its newest announcement names it (key, seq, nonce): only
        that connection's will says the host is gone."""
        self._protocol_refusal_said = False

    @property
    def spectator_delay(self) -> float:
        """Seconds the table's spectators see the game late, as announced (0: none, or
        nothing sensible announced)."""
        delay = (self.announce or {}).get("spectator_delay")
        if isinstance(delay, int | float) and not isinstance(delay, bool) \
                and 0 < delay <= 3600:
            return float(delay)
        return 0.0

    def announced(self, sender: bytes, seq: int, body: dict[str, Any], now: float) -> None:
        """A signed announcement of the table: followed, or said to be another host's."""
        self._announce(sender, body, now)
        self._note_host_conn(sender, seq, body)

    def _announce(self, sender: bytes, body: dict[str, Any], now: float) -> None:
        host = key_bytes(body, "host")
        if host != sender:
            raise FrameError("an announcement not signed by the host it names")
        before = self.trust.announce
        followed = self.trust.key
        view = self.follower.view
        ended = self.host_over or getattr(view, "outcome", None) is not None
        trust = self.trust.consider(host, body, joined=self.peer.joined, ended=ended)
        if trust is Trust.NEXT_GAME:
            log.info("table %s: its next game opened under host %s", self.table,
                     fingerprint(host))
            self._tell(NextGame(self.table, Claim.of(host, body)))
            raise FrameError("the table's next game, under another host key: not followed")
        if trust is Trust.UNEXPECTED:
            assert self.trust.remembered is not None
            notice = UnexpectedHost(self.table, fingerprint(self.trust.remembered),
                                    Claim.of(host, body))
            log.warning("%s", notice.words())
            self._tell(notice)
        if trust in (Trust.IGNORE, Trust.UNEXPECTED):
            raise FrameError(f"an announcement of another host ({fingerprint(host)})")
        if trust is Trust.AMBIGUOUS:
            self._unfollow()
            claims = tuple(self.trust.claims())
            log.warning("table %s: hosts %s claim it; following none until one is chosen",
                        self.table, ", ".join(c.fingerprint for c in claims))
            self._tell(HostsDisagree(self.table, claims))
            raise FrameError("another host key claims the table: following none")
        if trust is Trust.CONFLICT:
            assert self.host_key is not None and self.announce is not None
            log.warning("table %s: host %s also announces it; staying with %s", self.table,
                        fingerprint(host), fingerprint(self.host_key))
            self._tell(HostConflict(
                Claim.of(self.host_key, self.announce), Claim.of(host, body), self.peer.joined
            ))
            raise FrameError("an announcement from a different host key")
        if trust is Trust.CHANGED:
            assert self.host_key is not None and before is not None
            self._tell(HostChanged(Claim.of(self.host_key, before), Claim.of(host, body)))
            self.joining.again()
        try:
            self._follow(host, body, now)
        except FrameError:
            # Not followed after all (a malformed announcement): the trust must not stay
            # with a key the session does not follow, or the real host's announcements
            # would then look like a second host's.
            self.trust.key, self.trust.announce = followed, before
            raise

    def follow(self, key: bytes, now: float) -> None:
        """Follow one of the host keys that claimed this table, and it only (the user chose
        it after :class:`HostsDisagree`). Only before being welcomed: a seat belongs to its
        host."""
        if self.peer.joined or not any(claim.key == key for claim in self.trust.claims()):
            return
        body = self.trust.choose(key)
        self.joining.again()
        self._follow(key, body, now)

    def _unfollow(self) -> None:
        """Follow no host (two claim the table): no join goes, nothing of either is taken."""
        self.host_key = self.host_boot = self.announce = None
        self.liveness.forget()
        self.joining.forget()

    def _follow(self, host: bytes, body: dict[str, Any], now: float) -> None:
        if body.get("status") == "closed" and self.host_key == host:
            self._tell(TableClosed())
        boot = optional(body, "boot", bytes)
        epoch = epoch_of(body)
        if host == self.host_key and epoch < self.epoch:
            raise FrameError(f"an announcement of epoch {epoch}, older than {self.epoch}")
        if host == self.host_key and boot is not None and boot != self.host_boot \
                and self.host_boot is not None:
            # The same host, started again (``stacks host --resume``): it knows our seat
            # from its journal but not that we are here. Join again to be welcomed back.
            log.info("the host of table %s restarted: joining again", self.table)
            self.joining.again()
        protocol = body.get("protocol", TABLE_PROTOCOL)
        if protocol != TABLE_PROTOCOL:
            # An older or newer program: its sealed frames would not open here, nor ours
            # there. Said once; the host is not followed and no seat is taken.
            if not self._protocol_refusal_said:
                self._protocol_refusal_said = True
                self._tell(Refused(
                    f"the table's host runs protocol {protocol!r} and this program "
                    f"{TABLE_PROTOCOL}: both need the same version of sequence-stacks"))
            raise FrameError(f"a host of protocol {protocol!r}")
        variant = body.get("variant", STACKS.name)
        try:
            definition = game_def(variant)
        except EngineError:
            raise FrameError(f"a table of a game this program does not know: {variant!r}") \
                from None
        if self.peer.joined and definition is not self.follower.definition:
            raise FrameError("the table's game changed after we joined")
        if self.peer.games is not None and definition.name not in self.peer.games:
            if not self.joining.asked:
                self.joining.asked = True
                self._tell(Refused(
                    f"the table plays {definition.title}, which this program can't show yet"))
            return
        self.follower.definition = definition
        if host == self.host_key and epoch > self.epoch >= 1:
            log.info("table %s moved to another server (epoch %d)", self.table, epoch)
            self._tell(HostMoved(self.table, epoch))
        if host != self.host_key or epoch > self.epoch:
            self.epoch = epoch
        self.host_boot = boot
        self.host_key = host
        self.announce = body
        status = body.get("status")
        self.liveness.closed = status == "closed"
        if status in ("lobby", "playing", "over"):
            self.host_over = status == "over"
        self.liveness.heard(now)
        self._tell(TableSeen(body))
        self.joining.join_if_allowed(now)

    def _note_host_conn(self, host: bytes, seq: int, body: dict[str, Any]) -> None:
        """The followed host's connection, as its newest announcement (by seq) names it."""
        conn = conn_of(body)
        if host != self.host_key or conn is None:
            return
        known = self.host_connection
        if known is None or known[0] != host or seq > known[1]:
            self.host_connection = (host, seq, conn)

    def will(self, sender: bytes, seq: int, body: dict[str, Any], now: float) -> None:
        """The host's last will: signed when it connected, published by the broker when
        the host vanished. Taken whatever its seq (it is older than the announcements that
        followed it), but only for the connection the host's newest announcement names
        (``conn``): a will of an earlier connection, replayed, says nothing (protocol 7).
        Anything the live host sends later undoes it."""
        if key_bytes(body, "host") != sender:
            raise FrameError("a last will not signed by the host it names")
        if sender == self.host_key and epoch_of(body) < self.epoch:
            raise FrameError("the last will of a server that lost the table")
        known = self.host_connection
        if known is not None and known[0] == sender and body.get("conn") != known[2] \
                and seq <= known[1]:
            # Signed as its connection began: older than the newest announcement, and of
            # another connection, it is a replay.
            raise FrameError("the last will of an earlier connection of the host")
        if not self.trust.expects(sender):
            raise FrameError(f"the last will of another host ({fingerprint(sender)})")
        if self.host_key is None:
            # A newcomer finds the will retained: the table exists, its host is gone.
            self.host_key = sender
        elif sender != self.host_key:
            raise FrameError("the last will of a different host key")
        if self.trust.key in (None, sender):
            # A departure signed by the followed host: a new host key may take the table
            # over (followed and said) as long as this peer has no seat there.
            self.trust.key = sender
            self.trust.announce = {**(self.trust.announce or {}), "status": "offline"}
        if not self.liveness.offline:
            self.liveness.gone(now, "will")

