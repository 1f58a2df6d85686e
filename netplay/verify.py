"""The fair-deal check: re-derive the seed, replay every action, compare what was received.

Used by every peer at the end of a game (on its own redacted events) and by
``stacks verify`` on a game record (on the host's full events).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from engine.actions import CloseBlockWindow
from engine.errors import EngineError
from engine.games import DEFAULT_GAME, game_def
from engine.state import HOST, Audience
from netplay.batch import Batch
from netplay.codec import decode
from netplay.entropy import check_commitments, check_entropies
from netplay.errors import FrameError
from netplay.messages import required

DEAL_LABEL = b"sstacks-deal"


def commitment(secret: bytes) -> bytes:
    return hashlib.sha256(secret).digest()


def deal_seed(secret: bytes, entropies: Sequence[bytes]) -> bytes:
    """``SHA-256("sstacks-deal" || secret || entropy_0 || ... )`` (docs/protocol.md)."""
    digest = hashlib.sha256(DEAL_LABEL)
    digest.update(secret)
    for entropy in entropies:
        digest.update(entropy)
    return digest.digest()


@dataclass(frozen=True, slots=True)
class Verdict:
    ok: bool
    detail: str

    def __str__(self) -> str:
        return "deal verified" if self.ok else f"verification failed: {self.detail}"


@dataclass(frozen=True, slots=True)
class GameFacts:
    """What every peer knows from ``start`` and ``reveal``."""

    table: str
    players: int
    rules: Any
    """The table rules: a ``RulesConfig``, or the config of ``game``."""
    keys: tuple[bytes | None, ...]
    """Per seat: the player's key, ``None`` for a bot of the host."""
    commit: bytes
    entropies: tuple[bytes, ...]
    dealer: int | None = None
    """A26: the dealer passed on by a rematch; ``None`` = drawn from the seed."""
    entropy_commits: tuple[bytes | None, ...] | None = None
    """Per seat, the commitment a player joined with (``None`` for a host bot); ``None``
    altogether for games from before commit-then-reveal (``netplay.entropy``)."""
    game: str = DEFAULT_GAME
    """Which game (``engine.games.GAMES``): ``stacks`` or ``sequence``."""
    reveal_commits: tuple[bytes | None, ...] | None = None
    """Per seat, the commitment the reveal round listed (a record's ``reveal_commits``):
    the start's must be exactly these. ``None`` for records from before it was kept."""


def check_proof(facts: GameFacts, batch: Batch) -> str | None:
    """Why ``batch``'s action is not proven by its seat's signature, or ``None`` if it is."""
    action = batch.action
    if action is None or isinstance(action, CloseBlockWindow):
        return None
    key = facts.keys[action.seat] if 0 <= action.seat < facts.players else None
    if key is None or batch.standin:
        # A bot of the host, or its stand-in for an absent player: the host vouches.
        return None
    if batch.proof is None:
        return f"batch {batch.n}: seat {action.seat}'s action carries no signed proof"
    try:
        frame = decode(batch.proof)
        signed = game_def(facts.game).action_from_wire(required(frame.body, "action", dict))
    except (FrameError, EngineError) as exc:
        return f"batch {batch.n}: the proof does not decode ({exc})"
    if frame.sender != key:
        return f"batch {batch.n}: the proof is not signed by seat {action.seat}"
    if frame.table != facts.table or signed != action:
        return f"batch {batch.n}: the proof is for another action"
    return None


def verify_game(
    facts: GameFacts,
    secret: bytes,
    batches: Mapping[int, Batch],
    total: int,
    audience: Audience = HOST,
) -> Verdict:
    """Replay the game from the seed and check every batch (redacted for ``audience``)."""
    if total < 1:
        return Verdict(False, "no batches to replay")
    if commitment(secret) != facts.commit:
        return Verdict(False, "the revealed secret does not match the host's commitment")
    missing = [n for n in range(1, total + 1) if n not in batches]
    if missing:
        return Verdict(False, f"batches missing: {missing[:5]}{'...' if len(missing) > 5 else ''}")
    dealer = facts.dealer
    if dealer is not None and (type(dealer) is not int or not 0 <= dealer < facts.players):
        return Verdict(False, f"the dealer {dealer!r} is not a seat")
    if facts.entropy_commits is not None:
        bots = tuple(key is None for key in facts.keys)
        problem = check_entropies(secret, facts.entropies, facts.entropy_commits, bots)
        if problem:
            return Verdict(False, problem)
    if facts.reveal_commits is not None:
        problem = check_commitments(facts.reveal_commits, facts.entropy_commits)
        if problem:
            return Verdict(False, problem)
    seed = deal_seed(secret, facts.entropies)
    try:
        definition = game_def(facts.game)
        game = definition.new_game(facts.players, seed, facts.rules, facts.dealer)
        game.keep_log = False
        first = batches[1]
        if first.action is not None:
            return Verdict(False, "batch 1 must be the deal")
        if tuple(e.redacted_for(audience) for e in game.log) != first.events:
            return Verdict(False, "the deal differs from the one the seed gives")
        if definition.public_hash(game.state) != first.hash:
            return Verdict(False, "batch 1: hash differs")
        for n in range(2, total + 1):
            batch = batches[n]
            if batch.action is None:
                return Verdict(False, f"batch {n} has no action")
            problem = check_proof(facts, batch)
            if problem:
                return Verdict(False, problem)
            events = game.act(batch.action)
            if tuple(e.redacted_for(audience) for e in events) != batch.events:
                return Verdict(False, f"batch {n}: events differ from the replay")
            if definition.public_hash(game.state) != batch.hash:
                return Verdict(False, f"batch {n}: public hash differs from the replay")
    except EngineError as exc:
        return Verdict(False, f"the replay failed: {exc}")
    if not game.over:
        return Verdict(False, "the replayed game did not end")
    return Verdict(True, f"{total} batches replayed from the seed")

