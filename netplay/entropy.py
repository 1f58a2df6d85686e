"""Commit, then reveal: the deal's entropy, so that no coalition short of everyone chooses it.

The seed is ``SHA-256("sstacks-deal" || secret || entropy_0 || ... )`` (``netplay.verify``).
The host commits to ``secret`` in its first announcement. Each joiner commits to its
entropy when it joins (``entropy_commit``) and reveals it only once every seat has
committed; the host's own bots take ``bot_entropy(secret, seat)``, fixed by the host's
commitment. A seat that does not reveal in time, or reveals something else than it
committed to, loses its seat; the round is void, every remaining player commits to fresh
entropy and the table waits for the seat to fill again (docs/protocol.md, "A fair deal").
A seat whose player is away when the reveal times out is *held*: dealt with
``bot_entropy(secret, seat)`` like a host bot; that round is void too, and the others commit
afresh, so the held seats are fixed before anyone reveals again. The start must carry
exactly the commitments of the reveal round (:func:`check_commitments`): a commitment
changed after the reveals could be one chosen knowing them.

Pure functions and one small state machine, :class:`DealRound`; no I/O.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

ENTROPY_LABEL = b"sstacks-entropy"
BOT_LABEL = b"sstacks-bot-entropy"
REVEAL_WAIT = 15.0
"""Seconds the host waits for every commitment, then for every reveal."""

COMMIT = "commit"
REVEAL = "reveal"
CHANGED = "the host changed a commitment after the reveal"
"""The words of a start whose commitments are not the reveal round's (docs/rng.md)."""


def entropy_commitment(entropy: bytes) -> bytes:
    """``SHA-256("sstacks-entropy" || entropy)``: what a joiner sends instead of its entropy."""
    return hashlib.sha256(ENTROPY_LABEL + entropy).digest()


def bot_entropy(secret: bytes, seat: int) -> bytes:
    """A host bot's entropy: ``SHA-256("sstacks-bot-entropy" || secret || seat)``; the host
    can't choose it once it has announced ``SHA-256(secret)``."""
    return hashlib.sha256(BOT_LABEL + secret + bytes([seat])).digest()


def check_entropies(
    secret: bytes,
    entropies: tuple[bytes, ...],
    commits: tuple[bytes | None, ...],
    bots: tuple[bool, ...],
) -> str | None:
    """Why the start's entropies break the commit-then-reveal rule, or ``None``."""
    if not len(entropies) == len(commits) == len(bots):
        return "entropies, commitments and seats differ in number"
    for seat, (entropy, commit, bot) in enumerate(zip(entropies, commits, bots, strict=True)):
        if bot or commit is None:  # a host bot, or a held seat whose player was away
            if entropy != bot_entropy(secret, seat):
                return f"seat {seat} (a bot of the host): its entropy is not the one the " \
                       "host's secret fixes"
        elif commit is None or entropy_commitment(entropy) != commit:
            return f"seat {seat}: its entropy does not match the commitment it joined with"
    return None


def check_commitments(
    reveal: tuple[bytes | None, ...], start: tuple[bytes | None, ...] | None
) -> str | None:
    """Why the start's commitments are not exactly those of the reveal round, or ``None``.

    Every seat's commitment is fixed when the reveal round lists it: one changed after the
    reveals (a seat the host controls, with an entropy chosen knowing the honest ones)
    would let the host try deals until one suits it."""
    if start is None or len(start) != len(reveal):
        return f"{CHANGED} (the reveal round listed {len(reveal)} seats, the start " \
               f"{'none' if start is None else len(start)})"
    for seat, (said, dealt) in enumerate(zip(reveal, start, strict=True)):
        if said != dealt:
            return f"{CHANGED} (seat {seat})"
    return None


@dataclass
class DealRound:
    """Where the table is between "every seat taken" and the deal."""

    number: int = 0
    phase: str | None = None
    """``commit`` (waiting for fresh commitments), ``reveal`` or ``None`` (not full yet)."""
    deadline: float | None = None
    waiting: set[int] = field(default_factory=set)
    """Seats the current phase still waits for."""
    began: float = 0.0
    """When the current phase went out to everyone."""
    again: dict[int, float] = field(default_factory=dict)
    """When the current phase last went again to each seat (its round, or its answer,
    lost on the way)."""

    def begin(self, phase: str, seats: set[int], now: float) -> None:
        self.phase = phase
        self.waiting = set(seats)
        self.deadline = now + REVEAL_WAIT
        self.began = now
        self.again = {}

    def void(self) -> None:
        """A seat failed: this round's entropies are spent; the next round starts afresh."""
        self.number += 1
        self.phase = None
        self.deadline = None
        self.waiting = set()
        self.again = {}
