"""The peers' verdicts on the deal (:class:`Verdicts`): each peer replays the game at its end
and says whether every event it received is reproduced; the host keeps what each said, by
:data:`~netplay.hosting.seats.PeerRef`, for its record. No I/O.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from netplay.hosting.seats import PeerRef, SeatRef, SpectatorRef, ref_from_label


@dataclass(frozen=True, slots=True)
class Verdict:
    ok: bool
    detail: str

    def to_body(self) -> dict[str, Any]:
        return {"ok": self.ok, "detail": self.detail}


class Verdicts:
    """What each peer said of the deal, the last word of each."""

    def __init__(self) -> None:
        self._by_peer: dict[PeerRef, Verdict] = {}

    def __contains__(self, who: object) -> bool:
        return who in self._by_peer

    def __len__(self) -> int:
        return len(self._by_peer)

    def get(self, who: PeerRef) -> Verdict | None:
        return self._by_peer.get(who)

    def take(self, who: PeerRef, verdict: Verdict) -> bool:
        """Note ``who``'s verdict; whether it is news (another than it said before)."""
        news = self._by_peer.get(who) != verdict
        self._by_peer[who] = verdict
        return news

    def restore(self, label: str, ok: bool, detail: str) -> None:
        """A verdict as journaled (by its label, ``seat N`` or ``spectator NAME``)."""
        self._by_peer[ref_from_label(label)] = Verdict(ok, detail)

    def all_seated(self, seats: Iterable[int]) -> bool:
        """Every one of ``seats`` has said its verdict."""
        return all(SeatRef(seat) in self._by_peer for seat in seats)

    def spectator_said(self, name: str) -> bool:
        return SpectatorRef(name) in self._by_peer

    def spectators_silent(self, spectators: Mapping[bytes, str],
                          since: Mapping[bytes, float], within: float, now: float) -> int:
        """Spectators (by key, their names in ``spectators``) heard of within ``within``
        seconds before ``now`` (``since``: when, by key) that have not said their verdict:
        at the end, the host waits a moment for them."""
        return sum(1 for key, at in since.items() if key in spectators
                   and now - at < within and not self.spectator_said(spectators[key]))

    def by_label(self) -> dict[str, dict[str, Any]]:
        """The verdicts as the record and the journal name them: by label, in the order
        they first came."""
        return {who.label: verdict.to_body() for who, verdict in self._by_peer.items()}
