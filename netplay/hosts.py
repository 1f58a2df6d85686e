"""Whose table is it? Host fingerprints, pins, and the two sides of the announce topic.

- The host watches its own retained announcement (:class:`AnnounceWatch`): anything else
  landing there — a rogue's signed announcement, an empty payload, garbage — is replaced
  by the host's own at once, and the players are told someone impersonates the table.
- A peer follows one host key per table (:class:`HostTrust`): the pinned one
  (``TABLE@FINGERPRINT``), else the one its profile remembers from joining that table's
  game (``netplay.known``), else the first it sees. Given a bare table name, a second key
  announcing the table before the followed host welcomed the peer makes it follow neither
  (:attr:`Trust.AMBIGUOUS`): the user pins one. Once welcomed, another key is a conflict
  the user is told of (the peer stays), unless the first host signed its own departure
  (``closed``/``offline``), which is said, not silent.

Pure code: no clock of its own, no I/O. See docs/protocol.md, "Which host".
"""

from __future__ import annotations

import hashlib
from collections import deque
from dataclasses import dataclass
from enum import Enum
from typing import Any

from netplay.budget import Bucket, Limit
from netplay.codec import decode
from netplay.errors import FrameError
from netplay.names import FINGERPRINT_LEN, check_table_name, is_pin, plain_pin

GONE = ("closed", "offline")
"""Announcement statuses by which a host itself says it is no longer at the table."""
NEXT_STATUSES = ("lobby", "playing")
"""Statuses of a table's next game, as another key announces it after ours ended."""


def fingerprint(key: bytes) -> str:
    """A host key as people compare it: the first 16 hex digits of SHA-256(key), in fours."""
    digest = hashlib.sha256(key).hexdigest()[:FINGERPRINT_LEN]
    return "-".join(digest[i : i + 4] for i in range(0, FINGERPRINT_LEN, 4))


def check_pin(pin: str) -> str:
    """A fingerprint as typed (with or without dashes), or ``ValueError`` saying why not."""
    plain = plain_pin(pin)
    if not is_pin(plain):
        raise ValueError(
            f"host fingerprint {pin!r}: give the 16 hex digits `stacks tables` shows "
            "(e.g. 3fa1-c2d4-0b9e-77aa)"
        )
    return plain


def matches(key: bytes, pin: str) -> bool:
    return hashlib.sha256(key).hexdigest().startswith(plain_pin(pin))


def split_pin(text: str) -> tuple[str, str | None]:
    """``TABLE`` or ``TABLE@FINGERPRINT`` as ``(table, pin)``; ``ValueError`` if malformed."""
    table, at, pin = text.partition("@")
    check_table_name(table)
    return table, (check_pin(pin) if at else None)


# -- the host's side -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Intrusion:
    """Something other than the host's announcement landed on its announce topic."""

    what: str
    """In words: "an empty announcement", "another host's announcement (3fa1-...)"..."""
    key: bytes | None
    """The other host key, when the intruder signed its announcement."""
    warn: bool
    """Whether players should hear of it (a departed host's old close does not count)."""


class AnnounceWatch:
    """The host's eye on its retained announcement."""

    RESTORES = Limit(20, 10)
    """Restorations at once / per second: a rogue flooding the topic can't make the host
    flood it back; the last restoration always follows the last intrusion (``due``)."""
    WARNINGS = Limit(1, 0.2)
    """Warnings to the players: one at once, then one per 5 s while it goes on."""

    def __init__(self, key: bytes, now: float) -> None:
        self.key = key
        self.current: bytes | None = None
        self._recent: deque[bytes] = deque(maxlen=16)
        self._restores = Bucket(self.RESTORES, now)
        self._warnings = Bucket(self.WARNINGS, now)
        self.due: float | None = None
        """When a restoration held back by its budget must go out."""
        self.intrusions = 0
        self.unwarned = 0

    def sent(self, payload: bytes) -> None:
        """The host published ``payload`` as its announcement."""
        self.current = payload
        self._recent.append(payload)

    def seen(self, payload: bytes) -> Intrusion | None:
        """What landed on the topic: ``None`` when it is one of the host's own frames."""
        if payload in self._recent:
            return None
        if not payload:
            return Intrusion("an empty announcement (it would hide the table)", None, True)
        try:
            frame = decode(payload)
        except FrameError as exc:
            return Intrusion(f"an unreadable frame ({exc.reason})", None, True)
        if frame.sender == self.key:
            # Ours from before: a last will, or an earlier run of this host (same key).
            return Intrusion("an older announcement of this host", None, False)
        status = frame.body.get("status")
        who = fingerprint(frame.sender)
        if frame.type == "offline" or (frame.type == "announce" and status in GONE):
            return Intrusion(f"a departed host's last announcement ({who})", frame.sender, False)
        return Intrusion(f"another host's announcement ({who})", frame.sender, True)

    def may_restore(self, now: float) -> bool:
        if self._restores.take(now):
            self.due = None
            return True
        self.due = now + 1.0 / self.RESTORES.rate
        return False

    def may_warn(self, now: float) -> bool:
        return self._warnings.take(now)


# -- a peer's side ---------------------------------------------------------------------------


class Trust(Enum):
    FOLLOW = "follow"
    """The followed host (or the first one seen): take the announcement."""
    CHANGED = "changed"
    """A new key after the followed host signed its own departure: follow, and say so."""
    CONFLICT = "conflict"
    """Another key claims the table of a peer its host already welcomed: stay, and say so."""
    AMBIGUOUS = "ambiguous"
    """A bare table name, not yet welcomed, and another key claims the table too (or one
    more while the user has not chosen): follow neither, and ask the user to pin one
    (:attr:`HostTrust.claims`, :meth:`HostTrust.choose`)."""
    IGNORE = "ignore"
    """Not the pinned host, or a departed other host: drop."""
    UNEXPECTED = "unexpected"
    """Not the host this profile joined the table's game with (remembered): drop, and say
    so (once per key)."""
    NEXT_GAME = "next game"
    """Another key opens the table again after the followed host's game ended (a rematch
    is a new host key): not a claim on the game this peer was in, so no warning; the peer
    stays with its ended game and may follow the next one (say so, once per key)."""


@dataclass(frozen=True, slots=True)
class Claim:
    """What one host key says about a table, as the interface shows it."""

    key: bytes
    fingerprint: str
    announce: dict[str, Any]

    @classmethod
    def of(cls, key: bytes, announce: dict[str, Any]) -> Claim:
        return cls(key, fingerprint(key), announce)

    def words(self) -> str:
        body = self.announce
        name, seats, status = body.get("name"), body.get("seats"), body.get("status")
        name = name if isinstance(name, str) else "?"
        seats = seats if isinstance(seats, list) else []
        status = status if isinstance(status, str) else "?"
        taken = sum(1 for seat in seats if seat is not None)
        return f"host {self.fingerprint}: {str(name)[:32]!r}, {status}, {taken}/{len(seats)} seats"


class HostTrust:
    """Which host key a peer follows for its table."""

    MAX_OTHERS = 8

    def __init__(self, pin: str | None = None, *, remembered: bytes | None = None) -> None:
        self.pin = pin
        self.remembered = remembered
        """The host key this profile joined the table's unfinished game with: followed as
        if pinned (``netplay.known``)."""
        self.unexpected: set[bytes] = set()
        """Other keys dropped for not being :attr:`remembered` (each said once)."""
        self.key: bytes | None = None
        self.announce: dict[str, Any] | None = None
        self.others: dict[bytes, dict[str, Any]] = {}
        """Other keys that announced the table (newest claim each), for the user to pick."""
        self.undecided = False
        """Two keys claimed the table of a bare name before a welcome: none is followed
        until the user chooses one (:meth:`choose`)."""
        self.next_games: set[bytes] = set()
        """Keys that opened the table again after our game ended (each said once)."""

    @property
    def bare(self) -> bool:
        """Whether nothing but the announcements says which key to follow: no pin, no
        remembered host (the case a rogue's announcement can mislead)."""
        return self.pin is None and self.remembered is None

    def consider(self, key: bytes, body: dict[str, Any], *, joined: bool = False,
                 ended: bool = False) -> Trust:
        """How to take an announcement signed by ``key``; ``joined``: the followed host
        has seated or welcomed this peer (its game is the one the peer is in); ``ended``:
        that game is over (the peer saw its end)."""
        if self.pin is not None and not matches(key, self.pin):
            return Trust.IGNORE
        if not self.expects(key):
            if key in self.unexpected or len(self.unexpected) >= self.MAX_OTHERS:
                return Trust.IGNORE
            self.unexpected.add(key)
            return Trust.UNEXPECTED
        if self.undecided:
            return self._claimed(key, body)
        if self.key is None or key == self.key:
            self.key, self.announce = key, body
            return Trust.FOLLOW
        if body.get("status") in GONE:
            return Trust.IGNORE  # another host's goodbye is nobody's table
        departed = self.announce is not None and self.announce.get("status") in GONE
        if departed and not joined:
            self.key, self.announce = key, body
            return Trust.CHANGED
        if key in self.next_games:
            return Trust.IGNORE  # the next game, said already: its later news too
        if joined and ended and self.pin is None and body.get("status") in NEXT_STATUSES:
            # The table's next game (a rematch hosts with a new key): nothing of the ended
            # game is at stake. Said once per key, never followed without the user.
            if len(self.next_games) >= self.MAX_OTHERS:
                return Trust.IGNORE
            self.next_games.add(key)
            return Trust.NEXT_GAME
        if self.bare and not joined:
            # The first key seen may be a rogue's (its retained announcement, the instant
            # before the host puts its own back): neither is followed.
            self.undecided = True
            return self._claimed(key, body)
        fresh = key not in self.others
        if fresh and len(self.others) >= self.MAX_OTHERS:
            return Trust.IGNORE
        self.others[key] = body
        return Trust.CONFLICT if fresh else Trust.IGNORE

    def _claimed(self, key: bytes, body: dict[str, Any]) -> Trust:
        """Undecided: note ``key``'s newest claim; a new claimant is said."""
        if key == self.key:
            self.announce = body
            return Trust.IGNORE
        if key in self.others:
            self.others[key] = body
            return Trust.IGNORE
        if body.get("status") in GONE or len(self.others) >= self.MAX_OTHERS:
            return Trust.IGNORE
        self.others[key] = body
        return Trust.AMBIGUOUS

    def claims(self) -> list[Claim]:
        """Every key that claims the table, the first seen first, as the user compares them."""
        first = [] if self.key is None or self.announce is None else \
            [Claim.of(self.key, self.announce)]
        return first + [Claim.of(key, body) for key, body in self.others.items()]

    def expects(self, key: bytes) -> bool:
        """Whether ``key`` may be followed at all (the pin's, or the remembered one)."""
        if self.pin is not None and not matches(key, self.pin):
            return False
        return self.remembered is None or key == self.remembered

    def choose(self, key: bytes) -> dict[str, Any]:
        """The user picked ``key`` (one of :meth:`claims`): follow it, and it only, from now
        on (as if pinned: ``TABLE@FINGERPRINT``)."""
        body = self.announce if key == self.key else self.others.pop(key)
        assert body is not None
        if self.key is not None and key != self.key and self.announce is not None:
            self.others[self.key] = self.announce
        self.key, self.announce = key, body
        self.pin = hashlib.sha256(key).hexdigest()
        self.undecided = False
        return body
