"""Work budgets: token buckets that keep one peer from stalling a table (pure, no clock).

Everything a peer can make another peer do costs it tokens from a bucket that holds
``burst`` tokens and refills at ``rate`` per second. A request that finds its bucket
empty is dropped; the first drop of a peer is logged once (then at most once a minute,
with a count), never one line per message, and a budget logs at most
:data:`LOG_PEERS` new peers a minute (then one line with how many more): a flood from
thousands of fresh keys logs a few lines, not one per key. See docs/protocol.md, "Budgets".

The host's budgets (:class:`HostBudgets`) come in two layers:

- a **gate** before any decoding, keyed by the peer id in the topic (``peer/<id>/out``,
  ``presence/<id>``): seated players get a generous bucket each, joined spectators a
  smaller one each, and every other id shares one "strangers" bucket, so a flood from
  fresh ids costs one dictionary lookup per frame and never reaches a seated player's
  bucket;
- a **work** budget after the signature check, keyed by the verified sender, counting
  the frames the host would send back (a resend of ``n`` batches costs ``n``, a snapshot
  :data:`SNAPSHOT_COST`), and a join budget. Once the game is over, a peer may still
  fetch the whole history (to verify it) but only a fixed number of times, and join (or
  join again) only a fixed number of times;
- a **history** budget for a spectator's catch-up, in **bytes** of batches sent back in
  bulk (``history`` frames, ``netplay.history``): one signature and one publish carry
  hundreds of batches, so what the host spends is the bytes, not a unit per batch. A late
  spectator gets a long history at once (the burst), then at the budget's byte rate.

On top of their own buckets, everyone who is not seated — every spectator and every
stranger together — shares one **unseated** bucket of frames and one of work: a rogue
that makes thousands of keys and joins each as a spectator gets one bucket's worth of
the host's time, however many keys it has; seated players keep their own budgets and
never feel it. After the end the unseated work is a fixed allowance for all of them
together (:attr:`HostLimits.ended_unseated_histories` histories), and so are their joins
(:attr:`HostLimits.ended_unseated_joins`). The unseated share one history budget too.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

log = logging.getLogger("netplay.budget")

RELOG_AFTER = 60.0
"""Seconds before a peer still over budget is logged again (with the count)."""
LOG_PEERS = 5
"""New peers over a budget logged by name per :data:`RELOG_AFTER`; the rest are counted."""


@dataclass(frozen=True, slots=True)
class Limit:
    burst: float
    """Tokens a full bucket holds: the most a peer may spend at once."""
    rate: float
    """Tokens per second the bucket refills (0: a fixed allowance)."""

    def __post_init__(self) -> None:
        if self.burst <= 0 or self.rate < 0:
            raise ValueError("a budget needs a positive burst and a rate of at least 0")


class Bucket:
    """One token bucket, full when made."""

    __slots__ = ("at", "limit", "tokens")

    def __init__(self, limit: Limit, now: float) -> None:
        self.limit = limit
        self.tokens = limit.burst
        self.at = now

    def level(self, now: float) -> float:
        """The tokens in the bucket at ``now`` (a clock going backwards refills nothing)."""
        if now > self.at:
            self.tokens = min(self.limit.burst, self.tokens + (now - self.at) * self.limit.rate)
            self.at = now
        return self.tokens

    def take(self, now: float, cost: float = 1.0) -> bool:
        """Spend ``cost`` tokens if the bucket holds them."""
        if self.level(now) >= cost:
            self.tokens -= cost
            return True
        return False


@dataclass
class _Overrun:
    first: float
    logged: float
    dropped: int = 0


class Budget:
    """Buckets of one kind of work, one per peer (``shared`` names one bucket for many)."""

    def __init__(self, kind: str, limit: Limit, *, max_peers: int = 4096,
                  who: str = "peer {} is") -> None:
        self.kind = kind
        self.who = who
        """How the log names a peer over budget (a shared bucket: the ones who share it)."""
        self.limit = limit
        self.max_peers = max_peers
        self._buckets: dict[str, Bucket] = {}
        self.overruns: dict[str, _Overrun] = {}
        self._logged_at = float("-inf")
        """When the current period of new-peer log lines began."""
        self._logged = 0
        """New peers logged by name in the current period."""
        self._unlogged = 0
        """New peers over budget this period beyond :data:`LOG_PEERS` (one line for all)."""

    def allow(self, peer: str, now: float, cost: float = 1.0) -> bool:
        """Spend ``cost`` of ``peer``'s tokens, or note the overrun and refuse. A cost over
        the burst asks for a full bucket (it could never be granted otherwise)."""
        if self.has(peer, now, cost):
            self._bucket(peer, now).take(now, min(cost, self.limit.burst))
            return True
        self._note(peer, now)
        return False

    def has(self, peer: str, now: float, cost: float = 1.0) -> bool:
        """Would ``peer``'s bucket grant ``cost`` now? (Spends nothing, notes nothing.)"""
        return self._bucket(peer, now).level(now) >= min(cost, self.limit.burst)

    def _bucket(self, peer: str, now: float) -> Bucket:
        bucket = self._buckets.get(peer)
        if bucket is None:
            if len(self._buckets) >= self.max_peers:
                self._forget_full(now)
            bucket = self._buckets[peer] = Bucket(self.limit, now)
        return bucket

    def dropped(self, peer: str) -> int:
        overrun = self.overruns.get(peer)
        return 0 if overrun is None else overrun.dropped

    def reset(self, limit: Limit, now: float) -> None:
        """New limits for everyone, every bucket full again (e.g. when the game ends)."""
        self.limit = limit
        self._buckets = {}
        self.overruns = {}

    def _forget_full(self, now: float) -> None:
        # A full bucket holds no history: forgetting it changes nothing for its peer.
        full = [p for p, b in self._buckets.items() if b.level(now) >= self.limit.burst]
        for peer in full or list(self._buckets)[: len(self._buckets) // 2]:
            del self._buckets[peer]

    def _note(self, peer: str, now: float) -> None:
        overrun = self.overruns.get(peer)
        if overrun is None:
            if len(self.overruns) >= self.max_peers:
                self.overruns.clear()
            self.overruns[peer] = _Overrun(now, now, 1)
            if now - self._logged_at >= RELOG_AFTER:
                if self._unlogged:
                    log.warning("%d more peers went over their %s budget in the last %.0f s",
                                self._unlogged, self.kind, now - self._logged_at)
                self._logged_at, self._logged, self._unlogged = now, 0, 0
            if self._logged >= LOG_PEERS:
                self._unlogged += 1
                if self._unlogged == 1:
                    log.warning("more peers over their %s budget: counted, not logged one "
                                "by one, for the next %.0f s", self.kind,
                                RELOG_AFTER - (now - self._logged_at))
                return
            self._logged += 1
            log.warning(
                "%s over its %s budget (%g at once, %g/s): dropping its requests until it "
                "slows down", self.who.format(peer), self.kind, self.limit.burst, self.limit.rate,
            )
            return
        overrun.dropped += 1
        if now - overrun.logged >= RELOG_AFTER:
            overrun.logged = now
            log.warning("%s still over its %s budget: %d requests dropped since %.0f s ago",
                        self.who.format(peer), self.kind, overrun.dropped, now - overrun.first)


# -- the host's budgets ------------------------------------------------------------------------

SEAT = "seat"
SPECTATOR = "spectator"
STRANGER = "stranger"
STRANGERS = "(strangers)"
"""The one bucket every peer id that is neither seated nor watching shares."""
UNSEATED = "(shared)"
"""The one bucket every spectator and stranger shares on top of its own."""

SNAPSHOT_COST = 8.0
"""A snapshot in resend frames: building, encoding and sealing a whole view (~8 batches)."""


@dataclass(frozen=True, slots=True)
class HostLimits:
    """Every limit of the host's budgets (docs/protocol.md, "Budgets")."""

    seat_frames: Limit = Limit(400, 200)
    """Frames of any kind a seated player may send (a fast bot acts many times a second)."""
    spectator_frames: Limit = Limit(60, 20)
    stranger_frames: Limit = Limit(200, 50)
    """Shared by every peer id the host does not know: joins come from here."""
    seat_work: Limit = Limit(256, 128)
    """Frames resent per seated player (a resend of n batches costs n)."""
    spectator_work: Limit = Limit(256, 64)
    """Frames resent per spectator (snapshots; its catch-up is :attr:`spectator_history`)."""
    spectator_history: Limit = Limit(2 << 20, 512 << 10)
    """Bytes of batches sent back in bulk per spectator (a Stacks batch is ~330 bytes):
    ~6,000 batches at once, then ~1,600 a second. The burst is more than a catch-up
    request's patience (1.5 s) of refill, so a paced catch-up keeps the whole rate."""
    unseated_history: Limit = Limit(4 << 20, 1 << 20)
    """Bytes of batches sent back in bulk to every spectator together (a rogue's thousand
    keys get this much of the host's time, however many they are)."""
    joins: Limit = Limit(4, 0.5)
    """Join requests per key (a join during a game costs a snapshot too)."""
    unseated_frames: Limit = Limit(200, 100)
    """Frames of every spectator and stranger together (each also has its own bucket)."""
    unseated_work: Limit = Limit(256, 128)
    """Frames resent to every spectator together: a few late spectators catch up at once,
    a thousand keys of one rogue get no more."""
    ended_histories: int = 3
    """After the end, how many whole histories (plus a snapshot each) a peer may fetch."""
    ended_unseated_histories: int = 8
    """After the end, how many whole histories every spectator together may fetch."""
    ended_joins: int = 3
    """After the end, how many joins a key may still make (each answered by a welcome, and
    a snapshot or the reveal): a fixed allowance, no refill."""
    ended_unseated_joins: int = 16
    """After the end, how many joins every spectator and stranger together may make (a
    seated player's own allowance is not part of it)."""
    max_spectators: int = 256


class HostBudgets:
    """The host's gate and work budgets (see the module's docstring)."""

    def __init__(self, limits: HostLimits | None = None) -> None:
        self.limits = limits = limits or HostLimits()
        self.frames = {
            SEAT: Budget("frames", limits.seat_frames),
            SPECTATOR: Budget("frames", limits.spectator_frames),
            STRANGER: Budget("frames", limits.stranger_frames),
        }
        self.work = {
            SEAT: Budget("resend", limits.seat_work),
            SPECTATOR: Budget("resend", limits.spectator_work),
        }
        self.joins = Budget("join", limits.joins)
        self.unseated_frames = Budget("frames", limits.unseated_frames,
                                      who="every spectator and stranger together is")
        self.unseated_work = Budget("resend", limits.unseated_work,
                                    who="every spectator together is")
        self.history = Budget("history", limits.spectator_history)
        self.unseated_history = Budget("history", limits.unseated_history,
                                       who="every spectator together is")
        self.unseated_joins = Budget("join", Limit(limits.ended_unseated_joins, 0),
                                     who="every spectator and stranger together is")
        """Used after the end only (before it, the strangers' shared gate paces joins)."""
        self.ended = False

    def gate(self, peer: str, role: str, now: float) -> bool:
        """May a frame on ``peer``'s topic be decoded at all?"""
        own = self.frames[role]
        if role == SEAT:
            return own.allow(peer, now)
        return _both(own, STRANGERS if role == STRANGER else peer, self.unseated_frames, now)

    def resend(self, peer: str, role: str, frames: float, now: float) -> bool:
        """May the host send ``frames`` frames back to ``peer`` (a resend or snapshot)?"""
        if role == SEAT:
            return self.work[SEAT].allow(peer, now, frames)
        return _both(self.work[SPECTATOR], peer, self.unseated_work, now, frames)

    def history_bytes(self, peer: str, size: float, now: float) -> bool:
        """May the host send ``size`` bytes of batches in bulk to the spectator ``peer``
        (its own bucket and every spectator's shared one)?"""
        return _both(self.history, peer, self.unseated_history, now, size)

    def join(self, peer: str, now: float, *, seated: bool = False) -> bool:
        """May ``peer`` join (or join again)? After the end a fixed allowance: per key, and
        for everyone not seated also one shared by all of them."""
        if not self.ended or seated:
            return self.joins.allow(peer, now)
        return _both(self.joins, peer, self.unseated_joins, now)

    def game_over(self, batches: int, now: float, history_bytes: int = 0) -> None:
        """From now on each peer gets a fixed allowance: a few whole histories and a few
        joins, no refill. ``history_bytes``: the whole public history packed (what a
        spectator's catch-up of it costs in bulk)."""
        if self.ended:
            return
        self.ended = True
        history = batches + SNAPSHOT_COST
        allowance = Limit(self.limits.ended_histories * history, 0)
        for budget in self.work.values():
            budget.reset(allowance, now)
        self.unseated_work.reset(Limit(self.limits.ended_unseated_histories * history, 0), now)
        whole = max(history_bytes, 1)
        self.history.reset(Limit(self.limits.ended_histories * whole, 0), now)
        self.unseated_history.reset(Limit(self.limits.ended_unseated_histories * whole, 0), now)
        self.joins.reset(Limit(self.limits.ended_joins, 0), now)
        self.unseated_joins.reset(Limit(self.limits.ended_unseated_joins, 0), now)


def _both(own: Budget, peer: str, shared: Budget, now: float, cost: float = 1.0) -> bool:
    """Spend from ``peer``'s own bucket and the shared one, or from neither: a request the
    shared bucket refuses costs its peer nothing, one its peer can't afford costs the
    others nothing. The shared bucket is one peer to its budget: one log line a period."""
    if not own.has(peer, now, cost):
        return own.allow(peer, now, cost)  # refused, and noted
    if not shared.allow(UNSEATED, now, cost):
        return False
    return own.allow(peer, now, cost)
