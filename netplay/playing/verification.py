"""The end-of-game check: once the host reveals its secret, replay the game and judge it.

Every peer replays the whole game from the start's facts and the revealed secret, and
checks that every batch it received is reproduced (``netplay.verify``); a deal that failed
this seat's own check (:mod:`netplay.playing.deal_check`) fails the verdict. The verdict
is told (:class:`Verified`) and sent to the host, and again whenever the host reveals
again (ours was lost on its way). History still missing is asked for first.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engine.state import Seat, Termination
from netplay.errors import FrameError
from netplay.messages import key_bytes, required
from netplay.playing.deal_check import DealCheck
from netplay.playing.follower import Follower
from netplay.playing.notices import Notice, Verified
from netplay.verify import Verdict, verify_game


class Verification:
    """The host's reveal, and this peer's verdict on the game."""

    def __init__(self, follower: Follower, deal: DealCheck, *,
                 to_host: Callable[[str, dict[str, Any]], None],
                 tell: Callable[[Notice], None]) -> None:
        self.follower = follower
        self.deal = deal
        self._to_host = to_host
        self._tell = tell
        self.secret: bytes | None = None
        """The host's secret, once revealed."""
        self.total: int | None = None
        """The game's number of batches, as the reveal says."""
        self.termination: int | None = None
        """How the game ended (``engine.state.Termination``), once revealed."""
        self.verdict: Verdict | None = None

    @property
    def waiting(self) -> bool:
        """Whether the secret is revealed and the verdict still to come."""
        return self.secret is not None and self.verdict is None

    def reveal(self, body: dict[str, Any], now: float) -> None:
        """The host's ``reveal``: its secret, the game's length and its end."""
        if self.secret is not None:
            verdict = self.verdict
            if verdict is not None:
                # The host sends the reveal again only to a peer it has no verdict from:
                # ours was lost on its way. Said again (the host paces its reveals).
                self._to_host("verified", {"ok": verdict.ok, "detail": verdict.detail})
            return
        self.secret = key_bytes(body, "secret")
        self.total = required(body, "total", int)
        self.follower.known = max(self.follower.known, self.total)
        termination = required(body, "termination", int)
        if not 0 <= termination < len(Termination):
            raise FrameError("unknown termination")
        self.termination = termination
        self.try_verify(now)

    def retry(self, now: float) -> None:
        """A batch came: the verdict may be due now."""
        if self.waiting:
            self.try_verify(now)

    def try_verify(self, now: float) -> None:
        follower = self.follower
        facts = follower.facts
        if facts is None or self.secret is None or self.total is None:
            return
        if follower.applied < self.total:
            return  # still catching up; the follower's drain calls again
        missing = [n for n in range(1, self.total + 1) if n not in follower.received]
        if missing:
            if follower.chunk is None:
                follower.request_resync(missing[0], now, snapshot=False, reason="history")
            return
        self.verdict = verify_game(
            facts, self.secret, follower.received, self.total, follower.audience
        )
        if self.deal.unfair is not None:
            self.verdict = Verdict(False, self.deal.unfair)
        self._tell(Verified(self.verdict))
        self._to_host("verified", {"ok": self.verdict.ok, "detail": self.verdict.detail})

    def next_deadline(self, now: float) -> float | None:
        """When history still missing for the check is asked for again."""
        follower = self.follower
        if self.waiting and follower.chunk is None and self.total is not None \
                and follower.applied >= self.total:
            return follower.resync_allowed_at
        return None

    def tick(self, now: float) -> None:
        self.retry(now)  # asks again for history that has not come

    def record(self, seat: Seat | None, host: bytes | None, ended_at: float
               ) -> dict[str, Any] | None:
        """This seat's record of the finished game (``netplay.record.SEAT_FORMAT``): the
        batches as this seat received them, the facts and the revealed secret; ``None``
        unless this peer sat at the table and its check of the deal passed."""
        follower = self.follower
        facts, secret, total = follower.facts, self.secret, self.total
        if seat is None or facts is None or secret is None or total is None \
                or self.verdict is None or not self.verdict.ok:
            return None
        batches = [follower.received[n] for n in range(1, total + 1)]
        last = batches[-1].events[-1] if batches[-1].events else None
        return {
            "format": "sequence-stacks-seat-record",
            "version": 1,
            "seat": seat,
            "table": follower.table,
            "game": facts.game,
            "host": host,
            "players": facts.players,
            "rules": facts.rules.to_wire(),
            "names": list(follower.names),
            "keys": list(facts.keys),
            "joins": follower.joins,
            "entropies": list(facts.entropies),
            "entropy_commits": None if facts.entropy_commits is None
            else list(facts.entropy_commits),
            "dealer": facts.dealer,
            "commit": facts.commit,
            "secret": secret,
            "batches": [b.to_body() for b in batches],
            "outcome": {"termination": self.termination,
                        "winner": None if last is None else last.to_wire().get("winner")},
            "ended_at": ended_at,
        }
