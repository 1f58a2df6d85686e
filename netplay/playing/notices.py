"""What a player's session tells its user: one frozen value per thing that happened.

:meth:`netplay.player.PlayerSession.take_notices` hands them out in the order they
happened; the interfaces (``tui``) and the headless peers read them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from netplay.messages import optional, required

if TYPE_CHECKING:
    from engine.games import AnyAction, AnyEvent
    from engine.state import Outcome, Seat
    from netplay.hosts import Claim
    from netplay.verify import Verdict


@dataclass(frozen=True, slots=True)
class Notice:
    """Base of what a session reports."""


@dataclass(frozen=True, slots=True)
class TableSeen(Notice):
    announce: dict[str, Any]


@dataclass(frozen=True, slots=True)
class TableClosed(Notice):
    """The host signed the table's close: the table is gone."""


@dataclass(frozen=True, slots=True)
class NextGame(Notice):
    """After this peer's game ended, the table was opened again under another host key:
    its next game (a rematch is hosted with a new key), not a claim on the ended one. The
    session stays where it is; the interface says so once and offers to follow."""

    table: str
    host: Claim


@dataclass(frozen=True, slots=True)
class HostConflict(Notice):
    """Another host key announces this table. The session stays with ``current``; the
    interface shows both and may :meth:`netplay.player.PlayerSession.follow` ``other``
    (before joining)."""

    current: Claim
    other: Claim
    joined: bool


@dataclass(frozen=True, slots=True)
class HostsDisagree(Notice):
    """Two or more host keys claim the table of a bare name before any welcomed this peer:
    the session follows none of them (and has no seat) until the user picks one
    (:meth:`netplay.player.PlayerSession.follow`): a pin, ``TABLE@FINGERPRINT``."""

    table: str
    claims: tuple[Claim, ...]
    """Every key that claims the table, the first seen first."""

    def pins(self) -> list[str]:
        return [f"{self.table}@{claim.fingerprint}" for claim in self.claims]


@dataclass(frozen=True, slots=True)
class HostMoved(Notice):
    """The table's host (the same key) is held by another server of the community now
    (its epoch rose): the seat, the hand and the game go on there."""

    table: str
    epoch: int

    def words(self) -> str:
        return ("The server moved the table to another of its machines: you keep your "
                "seat and the game goes on")


@dataclass(frozen=True, slots=True)
class HostChanged(Notice):
    """The followed host signed its departure and a new host key announces the table: the
    session follows the new one (said, not silent)."""

    old: Claim
    new: Claim


@dataclass(frozen=True, slots=True)
class UnexpectedHost(Notice):
    """Another host key announces the table, but this profile joined the table's game with
    ``expected`` (remembered until that game ends, ``netplay.known``): it is not followed.
    Said once per key; pinning ``TABLE@FINGERPRINT`` of the other one overrides."""

    table: str
    expected: str
    """The remembered host's fingerprint."""
    other: Claim

    def words(self) -> str:
        return (f"table {self.table}: ignoring host {self.other.fingerprint}; this profile "
                f"joined this table's game with host {self.expected}, not over yet, and "
                f"follows that one only. To follow {self.other.fingerprint} instead, pin it: "
                f"{self.table}@{self.other.fingerprint}")


@dataclass(frozen=True, slots=True)
class Unseated(Notice):
    """A player lost its seat before the deal: it did not commit to or reveal its entropy
    in time, or revealed another one (``netplay.entropy``). The deal waits for the seat."""

    seat: Seat
    name: str
    why: str


@dataclass(frozen=True, slots=True)
class Impostor(Notice):
    """The host says someone else wrote on its announcement (it restored its own)."""

    what: str
    key: bytes | None


@dataclass(frozen=True, slots=True)
class HostOffline(Notice):
    """The host is gone: its last will came (``reason="will"``), or nothing was heard from
    it for :data:`netplay.playing.liveness.HOST_SILENT` seconds (``"silent"``). The table
    waits for it."""

    reason: str
    silent_for: float
    """Seconds since the host was last heard when this was noticed (peers' clocks differ:
    a duration, never a time of day)."""
    heard: bool = True
    """Whether this peer ever heard the host: a newcomer that finds only the host's
    retained will learns that it is gone, not since when."""


@dataclass(frozen=True, slots=True)
class HostBack(Notice):
    """The host is heard again after :class:`HostOffline`."""

    away_for: float


@dataclass(frozen=True, slots=True)
class Joined(Notice):
    seat: Seat | None


@dataclass(frozen=True, slots=True)
class Refused(Notice):
    reason: str


@dataclass(frozen=True, slots=True)
class GameStarted(Notice):
    names: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Applied(Notice):
    """A batch was applied to the view."""

    n: int
    action: AnyAction | None
    events: tuple[AnyEvent, ...]
    standin: bool = False
    """The host's stand-in bot played for an absent player."""


@dataclass(frozen=True, slots=True)
class Missed(Notice):
    """A batch that happened while this player was away: it came back past it inside a
    snapshot, and the batch was fetched afterwards for the log (its stand-in's moves are
    marked ``standin``). Told in order, after the snapshot's :class:`Resynced`."""

    n: int
    action: AnyAction | None
    events: tuple[AnyEvent, ...]
    standin: bool


@dataclass(frozen=True, slots=True)
class Resynced(Notice):
    n: int
    reason: str


@dataclass(frozen=True, slots=True)
class Rejected(Notice):
    reason: str


@dataclass(frozen=True, slots=True)
class RaceResult(Notice):
    """The host's result of a Block race: who won the pile, and every press it took."""

    pile: int
    winner: Seat | None
    presses: tuple[tuple[Seat, str, float, str], ...]

    @classmethod
    def from_body(cls, body: dict[str, Any]) -> RaceResult:
        """The result a ``race`` frame's body says (untrusted: ``FrameError`` without a
        pile; presses that are not ``[seat, name, seconds, how]`` are left out)."""
        presses = []
        for entry in required(body, "presses", list)[:32]:
            if (isinstance(entry, list) and len(entry) == 4 and type(entry[0]) is int
                    and isinstance(entry[1], str) and isinstance(entry[2], int | float)
                    and isinstance(entry[3], str)):
                presses.append((entry[0], entry[1][:8], float(entry[2]), entry[3][:16]))
        return cls(required(body, "pile", int), optional(body, "winner", int), tuple(presses))


@dataclass(frozen=True, slots=True)
class ChatLine(Notice):
    name: str
    text: str


@dataclass(frozen=True, slots=True)
class GameEnded(Notice):
    outcome: Outcome


@dataclass(frozen=True, slots=True)
class Verified(Notice):
    verdict: Verdict


@dataclass(frozen=True, slots=True)
class Desynced(Notice):
    n: int
    ours: str
    theirs: str

