"""Who is at the table (:class:`Seating`): the seats, the spectators, and the typed key
(:data:`PeerRef`) a peer is known by to the rest of the host (its verdict, for one).

A peer's identity key (``bytes``) says who signed a frame; its :data:`PeerRef` says what it
is to this table: seat 2, or the spectator called "ana". No I/O.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

from engine.games import TableBot
from engine.state import Seat
from netplay import budget
from netplay.identity import peer_id

ENDED_CONNS = 8
"""A seat's ended connections remembered, so that an ``online`` of one replayed is dropped."""


@dataclass(frozen=True, slots=True)
class SeatRef:
    """A seated peer (a player, or one of the host's bots)."""

    seat: Seat

    @property
    def label(self) -> str:
        """The journal's and the record's name for it: ``seat N``."""
        return f"seat {self.seat}"


@dataclass(frozen=True, slots=True)
class SpectatorRef:
    """A spectator, by the name it joined with (two of one name are one to the record)."""

    name: str

    @property
    def label(self) -> str:
        """The journal's and the record's name for it: ``spectator NAME``."""
        return f"spectator {self.name}"


PeerRef = SeatRef | SpectatorRef
"""What a peer is to the table."""


def ref_from_label(label: str) -> PeerRef:
    """The :data:`PeerRef` a journal's label names (``seat N`` or ``spectator NAME``);
    ``ValueError`` for anything else."""
    kind, _, rest = label.partition(" ")
    if kind == "seat" and rest.isdigit():
        return SeatRef(int(rest))
    if kind == "spectator":
        return SpectatorRef(rest)
    raise ValueError(f"{label!r} names neither a seat nor a spectator")


@dataclass
class SeatInfo:
    name: str
    key: bytes | None
    """The player's key; ``None`` for a bot of the host."""
    entropy: bytes
    bot: TableBot | None = None
    last_seen: float = 0.0
    online: bool = True
    offline_at: float | None = None
    standin: TableBot | None = None
    commit: bytes | None = None
    """A player's commitment to its entropy (``netplay.entropy``); the entropy itself is
    empty until revealed."""
    held: bool = False
    """A player's seat dealt without them (away when the reveal timed out): its entropy is
    ``bot_entropy(secret, seat)``, its commitment ``None``, until the player commits again
    in a commit phase."""
    conn: bytes | None = None
    """The player's broker connection, as its newest ``online`` or join (by seq) names it:
    only that connection's last will marks the seat offline (protocol 7)."""
    conn_seq: int = 0
    joined: bytes | None = None
    """The player's signed join that seated them: the record's proof of their name."""
    ended: deque[bytes] = field(default_factory=lambda: deque(maxlen=ENDED_CONNS))
    """Connections whose ``offline`` was taken: an ``online`` naming one is a replay."""
    plain: bool = False
    """The player plays in plain mode (a screen reader, its join says: ``plain``). Kept
    once said, across rejoins and a resume: the table may give such a seat a longer
    Block window (:meth:`netplay.host.HostSession.set_block_window`)."""

    @property
    def is_bot(self) -> bool:
        return self.key is None


class Seating:
    """The seats (by :data:`engine.state.Seat`) and the spectators (by identity key)."""

    def __init__(self, players: int) -> None:
        self.seats: list[SeatInfo | None] = [None] * players
        self.spectators: dict[bytes, str] = {}
        """Each spectator's name, by its identity key."""
        self._roles: tuple[tuple[bytes | None, ...], int, dict[str, str]] | None = None

    def seat_of(self, key: bytes) -> Seat | None:
        for seat, info in enumerate(self.seats):
            if info is not None and info.key == key:
                return seat
        return None

    def ref_of(self, key: bytes) -> PeerRef:
        """What ``key`` is to the table: its seat, or a spectator by name (``?`` for a
        peer that is neither)."""
        seat = self.seat_of(key)
        return SeatRef(seat) if seat is not None else SpectatorRef(self.spectators.get(key, "?"))

    def known(self, key: bytes) -> bool:
        """A seated player or a spectator (a peer that joined)."""
        return key in self.spectators or self.seat_of(key) is not None

    def player_keys(self) -> list[bytes | None]:
        """Each seat's player's key (``None``: empty, or a bot of the host)."""
        return [None if info is None else info.key for info in self.seats]

    def players(self) -> list[tuple[Seat, SeatInfo]]:
        """The seats held by players (not the host's bots)."""
        return [(seat, info) for seat, info in enumerate(self.seats)
                if info is not None and not info.is_bot]

    def humans(self) -> set[Seat]:
        """The seats whose players reveal an entropy (a held seat's is the host's)."""
        return {seat for seat, info in self.players() if not info.held}

    def full(self) -> bool:
        return all(info is not None for info in self.seats)

    def free(self) -> Seat | None:
        return next((s for s, info in enumerate(self.seats) if info is None), None)

    def role(self, peer: str) -> str:
        """Seat, spectator or stranger (``netplay.budget``), by peer id (remembered until
        seats or spectators change: one lookup per frame, however many frames come)."""
        keys = tuple(self.player_keys())
        memo = self._roles
        if memo is None or memo[0] != keys or memo[1] != len(self.spectators):
            roles = {peer_id(key): budget.SPECTATOR for key in self.spectators}
            roles.update({peer_id(key): budget.SEAT for key in keys if key is not None})
            memo = self._roles = (keys, len(self.spectators), roles)
        return memo[2].get(peer, budget.STRANGER)
