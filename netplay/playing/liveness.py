"""Whether the followed host is there: heard, silent too long, or gone by its last will.

The host heartbeats at least every 2 s (every 10 s while its presence rests on the broker);
a frozen host fires no last will until the broker's keepalive (amqtt: never), so a peer
also times out the host's silence itself. What it finds goes out as :class:`HostOffline`
and :class:`HostBack` notices.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from enum import Enum

from netplay.playing.notices import HostBack, HostOffline, Notice

log = logging.getLogger("netplay.player")

HOST_SILENT = 5.0
"""Seconds without a frame from the host (it heartbeats at least every 2 s) before it
counts as offline: a frozen host fires no last will until the broker's keepalive (amqtt:
never)."""
REST_HOST_SILENT = 14.0
""":data:`HOST_SILENT` while the host rests (it beats after 10 s of silence instead of
2 s; a frozen host is found by its last will, within ~10 s, on such a broker)."""
REST_QUIET = 10.0
"""Seconds a resting host may be silent: "host not responding" is said only past them."""
WELCOME_SILENT = 14.0
""":data:`HOST_SILENT` before the host welcomed this peer. Until then it does not beat to
it (its beats go to its seats, a box each, and to the spectators it welcomed): what the
peer hears of it is its announcements and the answer to its join, and a busy host (a held
table's server starting a game or a rematch, a machine at load 5 to 8) answers a join
seconds late. A host that never answers is still found offline, this much later."""
WELCOME_QUIET = 10.0
"""Seconds a host may leave a join unanswered before "host not responding" is said."""


class HostState(Enum):
    """What this peer knows of the followed host."""

    UNHEARD = "unheard"
    """Nothing from it yet (or no host followed)."""
    HEARD = "heard"
    """Heard lately: its silence is timed."""
    OFFLINE = "offline"
    """Gone: its last will came, or it was silent too long. Anything it sends undoes it."""


class HostLiveness:
    """The followed host's liveness, on this session's clock."""

    def __init__(self, table: str, tell: Callable[[Notice], None]) -> None:
        self.table = table
        self._tell = tell
        self.state = HostState.UNHEARD
        self.heard_at: float | None = None
        """When a valid frame of the host last came."""
        self.offline_at: float | None = None
        """When the host was found gone (its will, or silence); ``None`` unless offline."""
        self.resting = False
        """The host says its presence rests on the broker (``rest`` in its boxed beats): it
        beats after 10 s of silence, and this seat waits :data:`REST_HOST_SILENT` for it."""
        self.closed = False
        """The host closed the table: its silence is not timed."""
        self.beats_to_us = False
        """The host welcomed this peer, so it beats to it: before, its silence is given
        :data:`WELCOME_SILENT`."""

    @property
    def offline(self) -> bool:
        return self.state is HostState.OFFLINE

    @property
    def silent_limit(self) -> float:
        """Seconds of silence after which the host counts as offline."""
        if not self.beats_to_us:
            return WELCOME_SILENT
        return REST_HOST_SILENT if self.resting else HOST_SILENT

    def silent_for(self, now: float) -> float | None:
        """Seconds since the host was last heard (``None`` before it ever was)."""
        return None if self.heard_at is None else max(0.0, now - self.heard_at)

    def late_for(self, now: float) -> float | None:
        """:meth:`silent_for`, but ``None`` while a resting host may well be silent
        (:data:`REST_QUIET`), or a host may well take that long to answer a join
        (:data:`WELCOME_QUIET`): what an interface calls "not responding"."""
        silent = self.silent_for(now)
        if silent is None or (self.resting and silent < REST_QUIET) \
                or (not self.beats_to_us and silent < WELCOME_QUIET):
            return None
        return silent

    def heard(self, now: float) -> None:
        """A valid frame of the host came: it is there (and back, if it was gone)."""
        if self.state is HostState.OFFLINE:
            assert self.offline_at is not None
            away = now - self.offline_at
            self.offline_at = None
            log.info("the host of %s is back after %.1f s", self.table, away)
            self._tell(HostBack(away))
        self.state = HostState.HEARD
        self.heard_at = now

    def welcomed(self, now: float) -> None:
        """The host welcomed this peer: heard, and it beats to it from now on."""
        self.beats_to_us = True
        self.heard(now)

    def gone(self, now: float, reason: str) -> None:
        """The host is gone: its last will (``"will"``) or its silence (``"silent"``)."""
        self.state = HostState.OFFLINE
        self.offline_at = now
        silent = self.silent_for(now) or 0.0
        log.warning("the host of %s is offline (%s, silent for %.1f s)", self.table, reason,
                    silent)
        self._tell(HostOffline(reason, silent, heard=self.heard_at is not None))

    def forget(self) -> None:
        """No host is followed any more: nothing is known of one."""
        self.state = HostState.UNHEARD
        self.heard_at = self.offline_at = None
        self.closed = False
        self.beats_to_us = False

    def _timed(self) -> bool:
        return self.state is HostState.HEARD and not self.closed

    def next_deadline(self, now: float) -> float | None:
        """When the host's silence makes it offline, if it is being timed."""
        if not self._timed():
            return None
        assert self.heard_at is not None
        return self.heard_at + self.silent_limit

    def tick(self, now: float) -> None:
        if self._timed() and self.heard_at is not None \
                and now - self.heard_at >= self.silent_limit:
            self.gone(now, "silent")
