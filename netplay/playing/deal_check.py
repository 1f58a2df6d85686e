"""The deal check: this seat's part of the commit/reveal rounds, and what the start owes it.

Before the deal each seat commits to a fresh entropy, then reveals it (``netplay.entropy``);
the seed is derived from the host's secret and the revealed entropies. A host could try
deals until one suits it by swapping a seat's entropy, dealing a seat that revealed by its
own secret, or changing a commitment after the reveals; only this seat can tell for its
own entropy, so it checks the start's facts against what it revealed and heard. What it
finds is kept as :attr:`DealCheck.unfair` and fails the end-of-game verdict.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from typing import Any

from engine.state import Seat
from netplay.entropy import check_commitments, entropy_commitment
from netplay.errors import FrameError
from netplay.messages import required
from netplay.verify import GameFacts

log = logging.getLogger("netplay.player")

MAX_REVEALS = 1024
"""Entropies a seat remembers having revealed before a deal (with their rounds'
commitments): one a round, and an honest table voids a round only when a seat fails."""

Commitments = tuple[bytes | None, ...]
"""A round's commitments, one a seat (``None``: held, dealt by the host's secret)."""


class DealCheck:
    """This peer's entropy, its answers to the deal's rounds, and the check of the start.

    ``send(type, body)`` sends this peer's frames of the deal (``entropy``: a commitment or
    a reveal).
    """

    def __init__(self, table: str, send: Callable[[str, dict[str, Any]], None]) -> None:
        self.table = table
        self._send = send
        self.entropy = os.urandom(32)
        """This seat's entropy for the next deal (committed to in its join)."""
        self.revealed: bytes | None = None
        """The entropy this peer revealed for its seat (since its last commitment)."""
        self.unfair: str | None = None
        """Why the start did not deal our seat with the entropy we revealed, if it didn't,
        or does not carry the commitments of the reveal round: the verdict then fails with
        it (see :meth:`check_start`)."""
        self.reveals: dict[bytes, Commitments] = {}
        """Every entropy this seat revealed before the deal, with the commitments of the
        reveal round it revealed it in: a start that deals the seat with it must carry
        exactly those (a host that changed one after our reveal could choose the deal)."""
        self.first_reveal_round: tuple[int, Commitments] | None = None
        """The number and commitments of the first reveal round heard since the last void
        (a commit phase, a lost seat, a round of a higher number: one this peer may have
        missed the void of): what the start must carry, as far as this peer saw. A seat
        that revealed holds the host to the round it revealed in instead (:attr:`reveals`)."""
        self.held_after_reveal = False
        """A round called our seat held (dealt by the host's secret, as if we were away)
        while the host had our reveal: a start dealing us so fails the verdict."""

    def join_commitment(self, dealt: bool) -> bytes:
        """The commitment a join carries. Joining again before the deal (a restarted host)
        with an entropy already revealed would let anyone who saw it choose theirs knowing
        it: a fresh one then."""
        if not dealt and self.entropy in self.reveals:
            self.entropy = os.urandom(32)
        return entropy_commitment(self.entropy)

    def round(self, body: dict[str, Any], seat: Seat | None) -> None:
        """A round of the deal: commit to fresh entropy, or reveal the committed one."""
        number = required(body, "round", int)
        phase = required(body, "phase", str)
        listed = required(body, "commits", list)
        if not all(c is None or (isinstance(c, bytes) and len(c) == 32) for c in listed):
            raise FrameError("an entropy round's commitments are 32 bytes or null")
        commits: Commitments = tuple(listed)
        held = body.get("held")
        held_seats = {s for s in held if type(s) is int} if isinstance(held, list) else set()
        if phase == "commit":
            self.first_reveal_round = None  # a void round: everyone commits afresh
        elif phase == "reveal" and (self.first_reveal_round is None
                                    or number > self.first_reveal_round[0]):
            # The first reveal round since the void fixes every commitment: one listed
            # differently later in the same round can't be the deal's (a host re-listing
            # its own seat's).
            self.first_reveal_round = (number, commits)
        if seat is None:
            return
        if not 0 <= seat < len(commits):
            raise FrameError("an entropy round without our seat")
        ours = commits[seat]
        if seat in held_seats and self.revealed is not None:
            self.held_after_reveal = True
        if phase == "commit" and ours is None:
            # A void round. An entropy we revealed may have been seen: a fresh one. One we
            # never revealed is still ours alone (and a join of ours may carry its
            # commitment already: the host takes whichever comes first).
            if self.entropy in self.reveals:
                self.entropy = os.urandom(32)
            self.revealed = None
            self._send("entropy", {"round": number,
                                   "commit": entropy_commitment(self.entropy)})
        elif phase == "reveal":
            self._reveal_in(number, ours, commits)

    def _reveal_in(self, number: int, ours: bytes | None, commits: Commitments) -> None:
        """Answer a reveal round that lists ``ours`` for our seat."""
        if ours is None:
            return  # held: dealt by the host's secret
        self.held_after_reveal = False
        spent = next((e for e in self.reveals if entropy_commitment(e) == ours), None)
        entropy = self.entropy if spent is None else spent
        if spent is not None and self.reveals[spent] != commits:
            # Revealed already, in a round that listed other commitments: the host changed
            # one since. Revealing again changes nothing; the start check names it.
            log.warning("the host lists other commitments than the round we revealed in: "
                        "not revealing again")
            return
        if spent is None and ours != entropy_commitment(entropy):
            log.warning("the host lists a commitment for our seat that is not ours: "
                        "not revealing")
            return
        self._send("entropy", {"round": number, "entropy": entropy})
        self.revealed = entropy
        if spent is None:
            self.reveals[entropy] = commits
            while len(self.reveals) > MAX_REVEALS:  # a host voiding round after round
                del self.reveals[next(iter(self.reveals))]

    def seat_lost(self) -> None:
        """A seat lost its place before the deal: the round is void, and the next reveal
        round is the deal's."""
        self.first_reveal_round = None

    def check_start(self, facts: GameFacts, seat: Seat | None) -> None:
        """Check the start's facts against what this seat revealed and heard."""
        self._check_own_entropy(facts, seat)
        self._check_commitments(facts, seat)

    def _unfair(self, why: str) -> None:
        if self.unfair is None:
            self.unfair = why
            log.warning("table %s: %s", self.table, why)

    def _check_commitments(self, facts: GameFacts, seat: Seat | None) -> None:
        """The start must carry exactly the commitments of the reveal round: those of the
        round we revealed the entropy it deals our seat with in, else those of the reveal
        round we heard (a spectator, a held seat). A host that changed one after the
        reveals (a seat it controls, its entropy ground until the deal suits it) is caught
        here; nobody else can tell, as the changed commitment matches its entropy."""
        bound = None
        if seat is not None and 0 <= seat < facts.players:
            bound = self.reveals.get(facts.entropies[seat])
        if bound is None:
            first = self.first_reveal_round
            bound = None if first is None else first[1]
        if bound is None:
            return
        problem = check_commitments(bound, facts.entropy_commits)
        if problem:
            self._unfair(problem)

    def _check_own_entropy(self, facts: GameFacts, seat: Seat | None) -> None:
        """The deal must use the entropy we revealed for our seat. Nobody else can check
        it: a host that swapped it (for one of its own with a matching commitment, or for
        a bot's, saying the seat was away) could otherwise try deals until one suits it."""
        revealed = self.revealed
        if seat is None or not 0 <= seat < facts.players:
            return
        commits = facts.entropy_commits
        if self.held_after_reveal and commits is not None and commits[seat] is None:
            self._unfair(
                f"the host dealt seat {seat} by its own secret, as if its player were away, "
                "after this player revealed its entropy (a host can choose the deal that "
                "way; an honest one does it only when the reveal never reached it)")
            return
        if revealed is not None and facts.entropies[seat] != revealed:
            self._unfair(
                f"the host dealt seat {seat} with an entropy that is not the entropy this "
                "player revealed for it (a host can choose the deal that way; an honest "
                "one does it only when the reveal never reached it)"
            )
