"""A player's or spectator's session: a pure state machine, like the host's.

It joins a table, keeps its own view in step with the host's batches (strictly in
order, repairing gaps and desyncs), sends signed actions, and checks the fair deal
when the host reveals its secret. What happens is reported as :class:`Notice` values.
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass, field
from typing import Any

from engine.errors import EngineError, InvalidEventError, MalformedError
from engine.games import STACKS, AnyAction, AnyEvent, GameDef, game_def
from engine.state import SPECTATOR, Audience, Outcome, Seat, State, Termination
from netplay import history
from netplay.batch import Batch
from netplay.budget import Budget, Limit
from netplay.clock import Wait, next_beat
from netplay.codec import TABLE_PROTOCOL, ReplayGuard, decode
from netplay.entropy import check_commitments, entropy_commitment
from netplay.errors import FrameError
from netplay.hosts import Claim, HostTrust, Trust, fingerprint, split_pin
from netplay.identity import Identity
from netplay.messages import (
    CONN_LEN,
    MAX_CHAT,
    clean_text,
    conn_of,
    key_bytes,
    optional,
    required,
)
from netplay.topics import Topics
from netplay.verify import GameFacts, Verdict, verify_game
from netplay.wire import Outgoing, Sender

log = logging.getLogger("netplay.player")

MAX_BUFFER = 256
GAP_WAIT = 0.3
RESYNC_EVERY = 1.0
CHUNK = history.CHUNK
"""Batches of history a spectator asks for at once (the host sends them in bulk)."""
SEAT_CHUNK = 64
"""Batches a seated player's history comes back in at once (the host's ``MAX_RESEND``)."""
CHUNK_PATIENCE = 1.5
"""Seconds to wait for a chunk of history before asking for it again."""
HEARTBEAT = 4.0
"""Seconds between a peer's heartbeats to the host. They tell the host the peer is there
and how far it got; the host counts a seat away after ``away_after`` (10 s) without one,
so a beat can be lost (jittered up to a fifth sooner, two beats span at most 8 s) before
a false "away", and a frozen peer is still found in 10 s (a peer killed or cut off is
found at once on a broker that fires its last will). Every second, an idle table of four
was sending its host four beats: more frames than its game (measured: 200 tables acting
every 2 s on one Mosquitto, frames 2,275 -> 1,843 a second, the peers' CPU 143% -> 122%,
action -> own view p99 124 -> 56 ms); every 2 s they were still 3.5 of the 9 frames an
action at a table acting every 2 s (issue #28)."""
IDLE_HEARTBEAT = 8.0
"""Seconds between a seated player's heartbeats while the table does not wait for it (not
its turn, no Block window it may still answer; protocol 8): the host counts such a seat
away only after ``idle_away_after`` (20 s) without one. The moment the table waits for it,
the seat beats every :data:`HEARTBEAT` again, the next beat within that much, and the host
counts it away after ``away_after`` (10 s) from the later of its last frame and the moment
it began to wait for it. At a table of four acting every 2 s a seat acts every 8 s, and
its actions stand for most of its beats: 1.6 beats an action went to 0.6 (issue #28;
docs/protocol.md, *Presence*)."""
HOST_SILENT = 5.0
"""Seconds without a frame from the host (it heartbeats at least every 2 s) before it
counts as offline: a frozen host fires no last will until the broker's keepalive (amqtt:
never)."""
REST_HOST_SILENT = 14.0
""":data:`HOST_SILENT` while the host rests (it beats after 10 s of silence instead of
2 s; a frozen host is found by its last will, within ~10 s, on such a broker)."""
REST_QUIET = 10.0
"""Seconds a resting host may be silent: "host not responding" is said only past them."""
JOIN_RETRY = 3.0
"""Seconds before an unanswered join is sent again."""
ACTION_AGAIN = 3.0
"""Seconds before an action the host has neither applied (no batch carries its proof) nor
rejected is sent again: the same signed frame, sealed anew. The host takes each signed
action once (its own order, ``ACTION_ORDER``), so one that did arrive is not played twice."""
ACTION_TRIES = 4
"""How many times an action goes out in all before the peer stops sending it (a host gone
for good, or one that applied it while this peer was brought forward by a snapshot)."""
SETTLE = 1.0
"""Seconds a peer given a bare table name (no pin, no remembered host) listens to the
table's announcements before its first join. A rogue's retained announcement is on the
broker only until the host puts its own back (within milliseconds; under a sustained
hijack, 10 a second): in this time both keys are seen, and the user is asked to pin one
(:class:`HostsDisagree`) before either host has the peer. A heartbeat does not cut it
short: on an open broker a rogue can send those too."""
MAX_REVEALS = 1024
"""Entropies a seat remembers having revealed before a deal (with their rounds'
commitments): one a round, and an honest table voids a round only when a seat fails."""
CHAT_PER_SEAT = Limit(5, 1)
"""Chat lines shown per seated player: 5 at once, then one a second."""
CHAT_OTHERS = Limit(20, 2)
"""Chat lines shown from everyone else (spectators, strangers) together."""


# -- notices: what the session tells its user -----------------------------------------------


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
class HostConflict(Notice):
    """Another host key announces this table. The session stays with ``current``; the
    interface shows both and may :meth:`PlayerSession.follow` ``other`` (before joining)."""

    current: Claim
    other: Claim
    joined: bool


@dataclass(frozen=True, slots=True)
class HostsDisagree(Notice):
    """Two or more host keys claim the table of a bare name before any welcomed this peer:
    the session follows none of them (and has no seat) until the user picks one
    (:meth:`PlayerSession.follow`): a pin, ``TABLE@FINGERPRINT``."""

    table: str
    claims: tuple[Claim, ...]
    """Every key that claims the table, the first seen first."""

    def pins(self) -> list[str]:
        return [f"{self.table}@{claim.fingerprint}" for claim in self.claims]


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
    it for :data:`HOST_SILENT` seconds (``"silent"``). The table waits for it."""

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
    pile: int
    winner: Seat | None
    presses: tuple[tuple[Seat, str, float, str], ...]


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


# -- the session ------------------------------------------------------------------------------


_ON_INBOX: dict[str, str] = {
    "welcome": "_welcome",
    "refused": "_refused",
    # With a spectator delay the host sends these to the seats at once:
    "start": "_start",
    "race": "_race",
    "events": "_events",
    "history": "_history_frame",
    "snapshot": "_snapshot",
    "rejected": "_rejected",
    "reveal": "_reveal",
    # The deal's round sent again to a seat it waits for (it may have lost it):
    "entropy_round": "_entropy_round",
}
"""The session's handler (a method's name) of each frame type on the peer's own ``in``:
a method is looked up for the one frame, not a map of them made for each."""
_ON_STREAM: dict[str, str] = {
    "start": "_start",
    "events": "_public_events",  # a seat's own sealed copy goes to ``_events``
    "heartbeat": "_host_heartbeat",
    "race": "_public_race",
    "reveal": "_reveal",
    "impostor": "_impostor",
    "entropy_round": "_entropy_round",
    "unseated": "_unseated",
}
"""The handler of each frame type on the table's stream (``table`` or ``events``)."""


@dataclass(slots=True)
class _Unanswered:
    """An action sent and not answered yet (no batch with it as proof, no rejection)."""

    signed: bytes
    """The signed action frame: the same bytes go again (the host plays them once)."""
    sent_at: float
    tries: int = 1


@dataclass
class _Pending:
    """Things waiting for the game to be known or complete."""

    batches: dict[int, Batch] = field(default_factory=dict)
    gap_since: float | None = None
    last_resync: float = -1e9


class PlayerSession:
    """One peer at one table: a seated player, or a spectator when ``watch``."""

    def __init__(
        self,
        identity: Identity,
        table: str,
        name: str,
        now: float,
        *,
        watch: bool = False,
        password: str | None = None,
        heartbeat: float = HEARTBEAT,
        idle_heartbeat: float | None = None,
        pin: str | None = None,
        remembered: bytes | None = None,
        settle: float = SETTLE,
    ) -> None:
        table, pinned = split_pin(table)
        self.trust = HostTrust(pin or pinned, remembered=remembered)
        """Which host key this peer follows (``TABLE@FINGERPRINT`` pins one; ``remembered``,
        the host this profile joined the table's unfinished game with, is followed as if
        pinned)."""
        self.reads_chat = True
        """Whether the peer subscribes to chat (a bot shows it nobody: a chat flood then
        costs it nothing)."""
        self.identity = identity
        self.topics = Topics(table)
        self.table = table
        self.name = name
        self.watch = watch
        self.password = password
        self.heartbeat_every = heartbeat
        self.idle_heartbeat_every = IDLE_HEARTBEAT * heartbeat / HEARTBEAT \
            if idle_heartbeat is None else idle_heartbeat
        """Beats while the table does not wait for this seat (:data:`IDLE_HEARTBEAT`; by
        default in the same proportion to ``heartbeat``)."""
        self.sender = Sender(identity, table)
        self.entropy = os.urandom(32)
        self.guard = ReplayGuard()
        self.now = now
        self.host_key: bytes | None = None
        self.host_boot: bytes | None = None
        """The host's incarnation (``boot`` in its announcements)."""
        self.announce: dict[str, Any] | None = None
        self.joined = False
        self.seat: Seat | None = None
        self.facts: GameFacts | None = None
        self.names: tuple[str, ...] = ()
        self.bot_level: str | None = None
        """A bot peer's level: its join says so (signed), and its games are rated as the
        level's (one identity per level, whatever key its table gave it)."""
        self.joins: list[bytes | None] | None = None
        """The players' signed joins, as the host's facts give them (a seat's record
        keeps them: its names' proof)."""
        self.definition: GameDef[Any, Any, Any, Any] = STACKS
        """The table's game, as its announcement names it (``variant``)."""
        self.games: frozenset[str] | None = None
        """The games this peer can play (``None``: every game of the engine); at a table
        of another game it reports :class:`Refused` and does not join."""
        self.view: State | None = None
        """This peer's view: a Sequence Stacks ``State``, or the view type of
        :attr:`definition` at a table of another game."""
        self.applied = 0
        """The last batch applied to :attr:`view`."""
        self.received: dict[int, Batch] = {}
        """Every batch received as sent (for the end-of-game check)."""
        self.base = 0
        """Batches up to here came inside a snapshot, not one by one."""
        self.pending = _Pending()
        self.secret: bytes | None = None
        self.termination: int | None = None
        """How the game ended (``engine.state.Termination``), once revealed."""
        self.total: int | None = None
        self.verdict: Verdict | None = None
        self.notices: list[Notice] = []
        self.dropped: list[str] = []
        self._next_heartbeat = now
        self.resting = False
        """The host says its presence rests on the broker (``rest`` in its boxed beats): it
        beats after 10 s of silence, and this seat waits :data:`REST_HOST_SILENT` for it."""
        self.conn = os.urandom(CONN_LEN)
        """This connection's nonce: the last will and the ``online`` name it, so a will of
        an earlier connection, replayed, can't mark the seat away (protocol 7)."""
        self._will_made = False
        self._online_said: bytes | None = None
        self._host_conn: tuple[bytes, int, bytes] | None = None
        """The host's connection as its newest announcement names it (key, seq, nonce): only
        that connection's will says the host is gone."""
        self._acted_at: float | None = None
        """When an action last went to the host, since the last heartbeat."""
        self._answered_at: float | None = None
        """When the host last sent to this peer's own channel, since the last heartbeat."""
        self._join_sent = False
        self.settle = settle
        """Seconds a bare table name listens before its first join (:data:`SETTLE`)."""
        self._settle_until: float | None = None
        """When the first join of a bare name may go (set at its first announcement)."""
        self._protocol_said = False
        self._early_round: dict[str, Any] | None = None
        """An entropy round heard before our welcome (see ``_entropy_round``)."""
        self._revealed: bytes | None = None
        """The entropy this peer revealed for its seat (since its last commitment)."""
        self._unfair_deal: str | None = None
        """Why the start did not deal our seat with the entropy we revealed, if it didn't,
        or does not carry the commitments of the reveal round: the verdict then fails with
        it (see ``_check_own_entropy`` and ``_check_commitments``)."""
        self._reveals: dict[bytes, tuple[bytes | None, ...]] = {}
        """Every entropy this seat revealed before the deal, with the commitments of the
        reveal round it revealed it in: a start that deals the seat with it must carry
        exactly those (a host that changed one after our reveal could choose the deal)."""
        self._seen_reveal: tuple[int, tuple[bytes | None, ...]] | None = None
        """The number and commitments of the first reveal round heard since the last void
        (a commit phase, a lost seat, a round of a higher number: one this peer may have
        missed the void of): what the start must carry, as far as this peer saw. A seat
        that revealed holds the host to the round it revealed in instead (``_reveals``)."""
        self._held_after_reveal = False
        """A round called our seat held (dealt by the host's secret, as if we were away)
        while the host had our reveal: a start dealing us so fails the verdict."""
        self._join_at: float | None = None
        """When the last join went out unanswered (a host over its join budget, say,
        dropped it): it goes again every JOIN_RETRY seconds until welcomed or refused."""
        self.host_heard: float | None = None
        """When a valid frame of the host last came (this session's clock)."""
        self.host_offline_at: float | None = None
        """When the host was found gone (its will, or silence); ``None`` while it is heard."""
        self.closed = False
        """The host closed the table."""
        self.host_over = False
        """The host's last announcement before any close said its game was over (with a
        spectator delay, before a spectator has seen the end)."""
        self.known = 0
        """The highest batch number the host is known to have published."""
        self._chunk: tuple[int, int, float] | None = None
        """A chunk of history asked for: first and last batch, when."""
        self._unanswered: list[_Unanswered] = []
        """Actions sent and not answered yet, oldest first."""
        self._no_start_since: float | None = None
        """Since when this peer has been in, with the game begun, and without its start
        (the facts): a lost ``start`` is asked for again (:meth:`_start_missing`)."""
        self._history: tuple[int, int] | None = None
        self.waits: tuple[float, list[Wait]] = (now, [])
        """Whom the table waits for, as the host's last heartbeat said, and when it came."""
        self.waits_at = 0
        """The host's batch count when it said :attr:`waits`: they describe the table
        after that batch, and a view past it has moved on to a turn they don't cover."""
        """Batches a seated player missed (they came inside a snapshot), fetched for its log."""
        self._chat_budget = Budget("chat", CHAT_PER_SEAT, max_peers=64)
        self._chat_others = Budget("chat", CHAT_OTHERS, max_peers=1)

    # -- what the driver needs -------------------------------------------------------------

    @property
    def peer_id(self) -> str:
        return self.identity.peer_id

    @property
    def audience(self) -> Audience:
        return SPECTATOR if self.seat is None else self.seat

    @property
    def _stream(self) -> str:
        """Where we follow the table: a seat on ``table`` (``events`` but the spectators'
        copies of the batches, which a seat has sealed on its own ``in``), a spectator on
        ``events``."""
        return self.topics.events if self.watch else self.topics.table_stream

    def subscriptions(self) -> list[str]:
        t = self.topics
        topics = [t.announce, self._stream, t.inbox(self.peer_id), t.all_presence, t.chat]
        return topics if self.reads_chat else topics[:-1]

    def last_will(self) -> Outgoing:
        """The ``offline`` presence the broker publishes if this peer vanishes, for the next
        connection attempt: each attempt after the first is a new connection, with a nonce
        of its own (:attr:`conn`)."""
        if self._will_made:
            self.conn = os.urandom(CONN_LEN)
        self._will_made = True
        payload = self.sender.frame("presence", {"online": False, "conn": self.conn})
        return Outgoing(self.topics.presence(self.peer_id), payload, retain=True)

    def start(self, now: float) -> None:
        self.now = now
        self.connected(now)
        if self.announce is not None and self._may_join():
            self._send_join()

    def connected(self, now: float) -> None:
        """The peer (re)connected: it is online on this connection (said once each)."""
        self.now = now
        if self._online_said == self.conn:
            return
        self._online_said = self.conn
        self.sender.send(self.topics.presence(self.peer_id), "presence",
                         {"online": True, "conn": self.conn}, retain=True)

    def leave(self) -> None:
        self.sender.send(self.topics.presence(self.peer_id), "presence",
                         {"online": False, "conn": self.conn}, retain=True)

    def data_to_send(self) -> list[Outgoing]:
        return self.sender.drain()

    def take_notices(self) -> list[Notice]:
        out, self.notices = self.notices, []
        return out

    def waiting(self, now: float) -> list[Wait]:
        """Whom the table waits for now (counted down since the host said it), for seats
        that still have to decide in this peer's view. Nothing once the view is past the
        batch the host said it at: the last turn's time is not the new turn's, and the
        host's next heartbeat tells the new one."""
        told, waits = self.waits
        view = self.view
        if view is None or view.outcome is not None or now - told > 3.0 \
                or self.applied > self.waits_at:
            return []
        return [w.later(now - told) for w in waits]

    def host_silent_for(self, now: float) -> float | None:
        """Seconds since the host was last heard (``None`` before it ever was)."""
        return None if self.host_heard is None else max(0.0, now - self.host_heard)

    def host_late_for(self, now: float) -> float | None:
        """:meth:`host_silent_for`, but ``None`` while a resting host may well be silent
        (:data:`REST_QUIET`): what an interface calls "not responding"."""
        silent = self.host_silent_for(now)
        if silent is None or (self.resting and silent < REST_QUIET):
            return None
        return silent

    @property
    def host_silent_limit(self) -> float:
        """Seconds of silence after which the host counts as offline."""
        return REST_HOST_SILENT if self.resting else HOST_SILENT

    @property
    def spectator_delay(self) -> float:
        """Seconds the table's spectators see the game late, as announced (0: none, or
        nothing sensible announced)."""
        delay = (self.announce or {}).get("spectator_delay")
        if isinstance(delay, int | float) and not isinstance(delay, bool) \
                and 0 < delay <= 3600:
            return float(delay)
        return 0.0

    @property
    def host_offline(self) -> bool:
        return self.host_offline_at is not None

    def _watching_host(self) -> bool:
        return self.host_heard is not None and not self.closed and self.host_offline_at is None

    def _join_due(self) -> float | None:
        if self._join_at is None or self.joined or self.host_key is None or self.closed:
            return None
        return self._join_at + JOIN_RETRY

    def next_deadline(self) -> float:
        """When :meth:`tick` next has something to do: never a time it would let pass
        without doing it (the driver would wake again at once, and again)."""
        pending = self.pending
        times = [self._next_heartbeat if self.joined else float("inf")]
        if self._watching_host():
            assert self.host_heard is not None
            times.append(self.host_heard + self.host_silent_limit)
        if self._chunk is not None:
            times.append(self._chunk[2] + CHUNK_PATIENCE)
        resync_allowed = pending.last_resync + RESYNC_EVERY
        if pending.gap_since is not None:
            times.append(max(pending.gap_since + GAP_WAIT, resync_allowed))
        if self._no_start_since is not None:
            times.append(max(self._no_start_since + GAP_WAIT, resync_allowed))
        if self._unanswered:
            times.append(self._unanswered[0].sent_at + ACTION_AGAIN)
        if self.secret is not None and self.verdict is None and self._chunk is None \
                and self.total is not None and self.applied >= self.total:
            times.append(resync_allowed)  # history still missing: asked for again then
        due = self._join_due()
        if due is not None:
            times.append(due)
        if self._settle_until is not None and self.now < self._settle_until:
            times.append(self._settle_until)
        return min(times)

    # -- output ----------------------------------------------------------------------------

    def act(self, action: AnyAction) -> None:
        """Send an action to the host (it answers with a batch, or ``rejected``).

        The signed action frame travels sealed to the host: an action the host refuses
        must not show anyone the card it named. Once accepted, the host publishes that
        same signed frame as the proof of the action.
        """
        if self.host_key is None:
            return
        signed = self.sender.frame("action", {"action": action.to_wire(), "at": self.applied})
        self.sender.send_sealed(self.topics.outbox(self.peer_id), self.host_key, "action",
                                {"signed": signed})
        self._unanswered.append(_Unanswered(signed, self.now))
        self._acted_at = self.now
        self._answered_at = None  # the answer to this action is still to come
        # The action stands for a beat: the next one a whole interval from now (it is
        # sent then only if the host did not answer meanwhile: _answered_lately).
        self._next_heartbeat = max(self._next_heartbeat, next_beat(self.now, self.beat_every()))

    def _act_again(self) -> None:
        """The oldest unanswered action goes again (it, or the host's answer, may have been
        lost with a connection the broker dropped): the same signed frame, so the host
        plays it at most once."""
        oldest = self._unanswered[0]
        if oldest.tries >= ACTION_TRIES or self.host_key is None:
            del self._unanswered[0]
            return
        log.info("table %s: no answer to an action in %.0f s: sending it again",
                 self.table, self.now - oldest.sent_at)
        self.sender.send_sealed(self.topics.outbox(self.peer_id), self.host_key, "action",
                                {"signed": oldest.signed})
        oldest.sent_at = self.now
        oldest.tries += 1

    def _answered(self, proof: bytes | None) -> None:
        """A batch with ``proof`` applied (``None``: an action rejected): the action it
        answers, and any sent before it (the host takes them in order), are answered."""
        unanswered = self._unanswered
        if proof is None:
            del unanswered[:1]
            return
        for index, entry in enumerate(unanswered):
            if entry.signed == proof:
                del unanswered[:index + 1]
                return

    def chat(self, text: str) -> None:
        text = clean_text(text, MAX_CHAT)
        if text:
            self.sender.send(self.topics.chat, "chat", {"text": text, "name": self.name}, qos=0)

    def tick(self, now: float) -> None:
        self.now = now
        due = self._join_due()
        if due is not None and now >= due:
            self._send_join()
        if self._settle_until is not None and now >= self._settle_until \
                and not self._join_sent and not self.joined and self._may_join():
            self._send_join()  # the bare name listened long enough: one host claims it
        if now >= self._next_heartbeat and self.joined:
            every = self.beat_every()
            self._next_heartbeat = next_beat(now, every)
            if not self._answered_lately(now, every):
                self._to_host("heartbeat", {"at": self.applied}, qos=0)
            self._acted_at = self._answered_at = None
        pending = self.pending
        if self._chunk is not None:
            pending.gap_since = None  # catching up: the chunks fill the gap
            if now >= self._chunk[2] + CHUNK_PATIENCE:
                self._catch_up(again=True)
        if pending.gap_since is not None and now >= pending.gap_since + GAP_WAIT:
            self._request_resync(self.applied + 1, snapshot=False, reason="gap")
        if self._no_start_since is not None and now >= self._no_start_since + GAP_WAIT:
            self._request_resync(self.applied + 1, snapshot=False, reason="start")
        if self._unanswered and now >= self._unanswered[0].sent_at + ACTION_AGAIN:
            self._act_again()
        if self.secret is not None and self.verdict is None:
            self._try_verify()  # asks again for history that has not come
        if self._watching_host() and self.host_heard is not None \
                and now - self.host_heard >= self.host_silent_limit:
            self._host_gone("silent")

    def _to_host(self, type_: str, body: dict[str, Any], *, qos: int = 1) -> None:
        """A frame for the host alone on our ``out``: sealed to it once we know its key
        (its box vouches for us, at a fraction of a signature's cost on both ends), else
        signed."""
        topic = self.topics.outbox(self.peer_id)
        if self.host_key is None:
            self.sender.send(topic, type_, body, qos=qos)
        else:
            self.sender.send_sealed(topic, self.host_key, type_, body, qos=qos)

    def beat_every(self) -> float:
        """Seconds between this peer's heartbeats now: :data:`HEARTBEAT` while the table
        waits for this seat, has no game going yet (the deal's rounds wait for every seat)
        or for a spectator; :data:`IDLE_HEARTBEAT` while it waits for others."""
        return self.heartbeat_every if self._waited() else self.idle_heartbeat_every

    def _waited(self) -> bool:
        """Whether the table may be waiting for this peer (see :meth:`beat_every`)."""
        view = self.view
        return self.seat is None or view is None or self.facts is None \
            or self.seat in self.definition.to_move(view)

    def _answered_lately(self, now: float, every: float) -> bool:
        """Whether this beat would tell the host nothing: an action went to it since the
        last beat, within the interval, the host has answered on our own channel since
        (so it heard us, and we follow its stream), and we know of no batch we miss."""
        acted, answered = self._acted_at, self._answered_at
        pending = self.pending
        return (acted is not None and answered is not None and answered >= acted
                and now - acted <= every and not pending.batches
                and pending.gap_since is None and self._chunk is None)

    def _host_gone(self, reason: str) -> None:
        self.host_offline_at = self.now
        silent = self.host_silent_for(self.now) or 0.0
        log.warning("the host of %s is offline (%s, silent for %.1f s)", self.table, reason,
                    silent)
        self.notices.append(HostOffline(reason, silent, heard=self.host_heard is not None))

    def _host_heard(self) -> None:
        if self.host_offline_at is not None:
            away = self.now - self.host_offline_at
            self.host_offline_at = None
            log.info("the host of %s is back after %.1f s", self.table, away)
            self.notices.append(HostBack(away))
        self.host_heard = self.now

    # -- input -----------------------------------------------------------------------------

    def receive(self, topic: str, payload: bytes, now: float) -> None:
        """Handle one message. Never raises: bad input is dropped and logged."""
        self.now = now
        try:
            self._receive(topic, payload)
        except FrameError as exc:
            self.dropped.append(exc.reason)
            log.info("dropped a message on %r: %s", topic, exc.reason)
        except Exception:  # a bug must cost one message, never the session
            log.exception("internal error handling a message on %r", topic)
            self.dropped.append("internal error (logged)")
        if self._start_missing():
            if self._no_start_since is None:
                self._no_start_since = now
        else:
            self._no_start_since = None

    def _receive(self, topic: str, payload: bytes) -> None:
        t = self.topics
        if topic == t.chat:
            self._chat(payload)
            return
        if topic.startswith(t.base + "/presence/"):
            return  # presence is shown from the host's announcements
        if topic == t.announce and not payload:
            # Unsigned: anyone can send it. Only the host's signed "closed" closes a table.
            raise FrameError("an empty announcement (closes nothing)")
        # Only the host's frames matter off the announce topic: others are dropped before
        # their signature is checked.
        inbox = topic == t.inbox(self.peer_id)
        # A seat's batches come in one frame for every seat on ``table``, its own box at
        # its seat's place; anything else sealed to it only on its own ``in``.
        boxes = topic == t.table_stream and self.seat is not None and not self.watch
        frame = decode(payload, expected=None if topic == t.announce else self.host_key or b"",
                       opener=self.identity if inbox or boxes else None,
                       seat=self.seat if boxes else None)
        if frame.table != self.table:
            raise FrameError(f"frame for table {frame.table!r}")
        if topic == t.announce:
            if frame.type == "offline":
                self._will(frame.sender, frame.seq, frame.body)
                return
            if frame.type != "announce":
                raise FrameError("not an announcement")
            self._announce(frame.sender, frame.body)
            self._note_host_conn(frame.sender, frame.seq, frame.body)
            return
        if self.host_key is None or frame.sender != self.host_key:
            raise FrameError("a frame not from this table's host")
        if boxes and frame.type == "heartbeat" and not frame.sealed:
            # Since protocol 6 the host beats to its seats in a box each.
            raise FrameError("a signed heartbeat on the seats' stream (an older host's)")
        self.guard.check(frame, topic)
        self._host_heard()
        body = frame.body
        kind = frame.type
        if inbox:
            self._answered_at = self.now
            if kind in ("events", "snapshot") and self.seat is not None and not frame.sealed:
                raise FrameError(f"an unsealed {kind!r} for a seated player")
            name = _ON_INBOX.get(kind)
        elif topic == self._stream:
            if frame.sealed:
                if kind == "events":
                    self._answered_at = self.now  # our own copy of a batch: the host hears us
                elif kind != "heartbeat":
                    raise FrameError(f"a sealed {kind!r} on the seats' stream")
            name = "_events" if kind == "events" and frame.sealed else _ON_STREAM.get(kind)
        else:
            raise FrameError(f"message on unexpected topic {topic!r}")
        if name is None:
            raise FrameError(f"unexpected {kind!r} on {topic}")
        getattr(self, name)(body)

    def _chat(self, payload: bytes) -> None:
        frame = decode(payload)
        if frame.table != self.table or frame.type != "chat":
            raise FrameError("not a chat line of this table")
        self.guard.check(frame, self.topics.chat)
        text = clean_text(required(frame.body, "text", str), MAX_CHAT)
        name = clean_text(required(frame.body, "name", str), 24) or "?"
        # A seated player speaks under its seat's name, whatever it claims.
        keys = self.facts.keys if self.facts else ()
        # Before the deal the seats are the host's announcement's (no facts yet).
        announced = {entry["key"]: clean_text(str(entry.get("name", "")), 24) or "?"
                     for entry in (self.announce or {}).get("seats") or ()
                     if isinstance(entry, dict) and isinstance(entry.get("key"), bytes)}
        seated = frame.sender in keys or frame.sender in announced \
            or frame.sender == self.host_key
        if seated and not self._chat_budget.allow(frame.sender_id, self.now):
            return
        if not seated and not self._chat_others.allow("(others)", self.now):
            return
        if frame.sender in keys:
            name = self.names[keys.index(frame.sender)]
        elif frame.sender in announced:
            name = announced[frame.sender]
        elif frame.sender == self.host_key:
            name = f"{name} (host)"
        else:
            name = f"{name} (watching)"
        if text:
            self.notices.append(ChatLine(name, text))

    def _announce(self, sender: bytes, body: dict[str, Any]) -> None:
        host = key_bytes(body, "host")
        if host != sender:
            raise FrameError("an announcement not signed by the host it names")
        before = self.trust.announce
        followed = self.trust.key
        trust = self.trust.consider(host, body, joined=self.joined)
        if trust is Trust.UNEXPECTED:
            assert self.trust.remembered is not None
            notice = UnexpectedHost(self.table, fingerprint(self.trust.remembered),
                                    Claim.of(host, body))
            log.warning("%s", notice.words())
            self.notices.append(notice)
        if trust in (Trust.IGNORE, Trust.UNEXPECTED):
            raise FrameError(f"an announcement of another host ({fingerprint(host)})")
        if trust is Trust.AMBIGUOUS:
            self._unfollow()
            claims = tuple(self.trust.claims())
            log.warning("table %s: hosts %s claim it; following none until one is chosen",
                        self.table, ", ".join(c.fingerprint for c in claims))
            self.notices.append(HostsDisagree(self.table, claims))
            raise FrameError("another host key claims the table: following none")
        if trust is Trust.CONFLICT:
            assert self.host_key is not None and self.announce is not None
            log.warning("table %s: host %s also announces it; staying with %s", self.table,
                        fingerprint(host), fingerprint(self.host_key))
            self.notices.append(HostConflict(
                Claim.of(self.host_key, self.announce), Claim.of(host, body), self.joined
            ))
            raise FrameError("an announcement from a different host key")
        if trust is Trust.CHANGED:
            assert self.host_key is not None and before is not None
            self.notices.append(HostChanged(Claim.of(self.host_key, before), Claim.of(host, body)))
            self._join_sent = False
        try:
            self._follow(host, body)
        except FrameError:
            # Not followed after all (a malformed announcement): the trust must not stay
            # with a key the session does not follow, or the real host's announcements
            # would then look like a second host's.
            self.trust.key, self.trust.announce = followed, before
            raise

    def follow(self, key: bytes) -> None:
        """Follow one of the host keys that claimed this table, and it only (the user chose
        it after :class:`HostsDisagree`). Only before being welcomed: a seat belongs to its
        host."""
        if self.joined or not any(claim.key == key for claim in self.trust.claims()):
            return
        body = self.trust.choose(key)
        self._join_sent = False
        self._follow(key, body)

    def _unfollow(self) -> None:
        """Follow no host (two claim the table): no join goes, nothing of either is taken."""
        self.host_key = self.host_boot = self.announce = None
        self.host_heard = self.host_offline_at = None
        self.closed = False
        self._join_sent = False
        self._join_at = None
        self._settle_until = None

    def _may_join(self) -> bool:
        """Whether a join may go to the followed host now: it announced an open table, and
        a bare table name has listened for :attr:`settle` seconds since its first
        announcement without a second key claiming the table."""
        if self.host_key is None or self.announce is None or self.closed \
                or self.trust.undecided:
            return False
        if self.joined or not self.trust.bare or self.settle <= 0:
            return True  # (joined: a restarted host is joined again at once)
        if self._settle_until is None:
            self._settle_until = self.now + self.settle
        return self.now >= self._settle_until

    def _follow(self, host: bytes, body: dict[str, Any]) -> None:
        if body.get("status") == "closed" and self.host_key == host:
            self.notices.append(TableClosed())
        boot = optional(body, "boot", bytes)
        if host == self.host_key and boot is not None and boot != self.host_boot \
                and self.host_boot is not None:
            # The same host, started again (``stacks host --resume``): it knows our seat
            # from its journal but not that we are here. Join again to be welcomed back.
            log.info("the host of table %s restarted: joining again", self.table)
            self._join_sent = False
        protocol = body.get("protocol", TABLE_PROTOCOL)
        if protocol != TABLE_PROTOCOL:
            # An older or newer program: its sealed frames would not open here, nor ours
            # there. Said once; the host is not followed and no seat is taken.
            if not self._protocol_said:
                self._protocol_said = True
                self.notices.append(Refused(
                    f"the table's host runs protocol {protocol!r} and this program "
                    f"{TABLE_PROTOCOL}: both need the same version of sequence-stacks"))
            raise FrameError(f"a host of protocol {protocol!r}")
        variant = body.get("variant", STACKS.name)
        try:
            definition = game_def(variant)
        except EngineError:
            raise FrameError(f"a table of a game this program does not know: {variant!r}") \
                from None
        if self.joined and definition is not self.definition:
            raise FrameError("the table's game changed after we joined")
        if self.games is not None and definition.name not in self.games:
            if not self._join_sent:
                self._join_sent = True
                self.notices.append(Refused(
                    f"the table plays {definition.title}, which this program can't show yet"))
            return
        self.definition = definition
        self.host_boot = boot
        self.host_key = host
        self.announce = body
        status = body.get("status")
        self.closed = status == "closed"
        if status in ("lobby", "playing", "over"):
            self.host_over = status == "over"
        self._host_heard()
        self.notices.append(TableSeen(body))
        if not self._join_sent and self._may_join():
            self._send_join()

    def _note_host_conn(self, host: bytes, seq: int, body: dict[str, Any]) -> None:
        """The followed host's connection, as its newest announcement (by seq) names it."""
        conn = conn_of(body)
        if host != self.host_key or conn is None:
            return
        known = self._host_conn
        if known is None or known[0] != host or seq > known[1]:
            self._host_conn = (host, seq, conn)

    def _will(self, sender: bytes, seq: int, body: dict[str, Any]) -> None:
        """The host's last will: signed when it connected, published by the broker when
        the host vanished. Taken whatever its seq (it is older than the announcements that
        followed it), but only for the connection the host's newest announcement names
        (``conn``): a will of an earlier connection, replayed, says nothing (protocol 7).
        Anything the live host sends later undoes it."""
        if key_bytes(body, "host") != sender:
            raise FrameError("a last will not signed by the host it names")
        known = self._host_conn
        if known is not None and known[0] == sender and body.get("conn") != known[2] \
                and seq <= known[1]:
            # Signed as its connection began: older than the newest announcement, and of
            # another connection, it is a replay.
            raise FrameError("the last will of an earlier connection of the host")
        if not self.trust.expects(sender):
            raise FrameError(f"the last will of another host ({fingerprint(sender)})")
        if self.host_key is None:
            # A newcomer finds the will retained: the table exists, its host is gone.
            self.host_key = sender
        elif sender != self.host_key:
            raise FrameError("the last will of a different host key")
        if self.trust.key in (None, sender):
            # A departure signed by the followed host: a new host key may take the table
            # over (followed and said) as long as this peer has no seat there.
            self.trust.key = sender
            self.trust.announce = {**(self.trust.announce or {}), "status": "offline"}
        if self.host_offline_at is None:
            self._host_gone("will")

    def _send_join(self) -> None:
        assert self.host_key is not None
        password = None
        if self.password is not None:
            password = self.identity.seal_for(self.host_key, self.password.encode())
        if self.facts is None and self.entropy in self._reveals:
            # Joining again before the deal (a restarted host): a commitment to an entropy
            # already revealed would let anyone who saw it choose theirs knowing it.
            self.entropy = os.urandom(32)
        self.sender.send(
            self.topics.outbox(self.peer_id), "join",
            {"name": self.name, "entropy_commit": entropy_commitment(self.entropy),
             "password": password, "watch": self.watch, "at": self.applied,
             "conn": self.conn, **({"bot": self.bot_level} if self.bot_level else {})},
        )
        self._join_sent = True
        self._join_at = self.now

    def _welcome(self, body: dict[str, Any]) -> None:
        seat = optional(body, "seat", int)
        players = required(body, "players", int)
        if seat is not None and not 0 <= seat < players:
            raise FrameError("welcome to a seat that does not exist")
        if self.watch and seat is not None:
            raise FrameError("a spectator was given a seat")
        if not self.watch and seat is None:
            raise FrameError("a player was welcomed as a spectator")
        self.seat = seat
        self.joined = True
        self._join_at = None
        facts = optional(body, "facts", dict)
        had_facts = self.facts is not None
        if facts is not None:
            self._set_facts(facts)
        self.notices.append(Joined(seat))
        early, self._early_round = self._early_round, None
        if early is not None and seat is not None:
            self._entropy_round(early)
        if facts is not None and not had_facts:
            # Welcomed into a game already dealt: it has started, for this peer too.
            self.notices.append(GameStarted(self.names))
        batches = body.get("batches")
        if type(batches) is int and batches >= 0:
            self.known = max(self.known, batches)
        if facts is not None and self.watch:
            # A spectator follows the game from its first batch, however late it comes.
            self.known = max(self.known, 1)
            self._catch_up()

    def _refused(self, body: dict[str, Any]) -> None:
        reason = clean_text(required(body, "reason", str), 200)
        self.notices.append(Refused(reason))
        self._join_sent = True
        self._join_at = None

    def _set_facts(self, body: dict[str, Any]) -> None:
        players = required(body, "players", int)
        definition = self.definition
        if body.get("game", STACKS.name) != definition.name:
            raise FrameError(f"the game's facts are not of {definition.title}")
        if players not in definition.player_counts:
            raise FrameError(f"{definition.title} is not for {players} players")
        try:
            rules = definition.config_from_wire(required(body, "rules", dict))
        except EngineError as exc:
            raise FrameError(f"rules: {exc}") from None
        names = required(body, "names", list)
        keys = required(body, "keys", list)
        entropies = required(body, "entropies", list)
        if not len(names) == len(keys) == len(entropies) == players:
            raise FrameError("names, keys and entropies per seat")
        if not all((isinstance(k, bytes) and len(k) == 32) or k is None for k in keys):
            raise FrameError("keys are 32 bytes or null")
        if not all(isinstance(e, bytes) and len(e) == 32 for e in entropies):
            raise FrameError("entropies are 32 bytes each")
        commits = required(body, "entropy_commits", list)
        if len(commits) != players or not all(
            (isinstance(c, bytes) and len(c) == 32) or c is None
            for c in commits
        ):
            raise FrameError("a commitment per player's seat (null for the host's bots)")
        commit = key_bytes(body, "commit")
        dealer = body.get("dealer")
        if dealer is not None and (type(dealer) is not int or not 0 <= dealer < players):
            raise FrameError("the dealer is a seat or null")
        try:
            initial = definition.new_state(rules, players)
        except EngineError as exc:
            raise FrameError(f"an impossible table: {exc}") from None
        joins = body.get("joins")
        if joins is not None and (not isinstance(joins, list) or len(joins) != players
                                  or not all(j is None or isinstance(j, bytes) for j in joins)):
            raise FrameError("a signed join (or null) per seat")
        self.joins = joins
        self.names = tuple(clean_text(n, 24) if isinstance(n, str) else "?" for n in names)
        self.facts = GameFacts(
            self.table, players, rules, tuple(keys), commit, tuple(entropies), dealer,
            tuple(commits),
            game=definition.name,
        )
        if self.view is None:
            self.view = definition.view_for(initial, self.audience)
        self._check_own_entropy(self.facts)
        self._check_commitments(self.facts)

    def _unfair(self, why: str) -> None:
        if self._unfair_deal is None:
            self._unfair_deal = why
            log.warning("table %s: %s", self.table, why)

    def _check_commitments(self, facts: GameFacts) -> None:
        """The start must carry exactly the commitments of the reveal round: those of the
        round we revealed the entropy it deals our seat with in, else those of the reveal
        round we heard (a spectator, a held seat). A host that changed one after the
        reveals (a seat it controls, its entropy ground until the deal suits it) is caught
        here; nobody else can tell, as the changed commitment matches its entropy."""
        seat = self.seat
        bound = None
        if seat is not None and 0 <= seat < facts.players:
            bound = self._reveals.get(facts.entropies[seat])
        if bound is None:
            bound = None if self._seen_reveal is None else self._seen_reveal[1]
        if bound is None:
            return
        problem = check_commitments(bound, facts.entropy_commits)
        if problem:
            self._unfair(problem)

    def _check_own_entropy(self, facts: GameFacts) -> None:
        """The deal must use the entropy we revealed for our seat. Nobody else can check
        it: a host that swapped it (for one of its own with a matching commitment, or for
        a bot's, saying the seat was away) could otherwise try deals until one suits it."""
        seat, revealed = self.seat, self._revealed
        if seat is None or not 0 <= seat < facts.players:
            return
        commits = facts.entropy_commits
        if self._held_after_reveal and commits is not None and commits[seat] is None:
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

    def _start(self, body: dict[str, Any]) -> None:
        if self.facts is None:
            self._set_facts(body)
            self.notices.append(GameStarted(self.names))
            self._drain()

    # -- batches -----------------------------------------------------------------------------

    def _events(self, body: dict[str, Any]) -> None:
        self._queue(Batch.from_body(body, self.definition))

    def _history_frame(self, body: dict[str, Any]) -> None:
        """Batches of the public stream in bulk: a spectator's catch-up. Each goes the way
        of a live one (applied in order, its hash checked)."""
        if self.seat is not None:
            raise FrameError("a history frame for a seated player (its batches come sealed)")
        for batch in history.batches(body, self.definition):
            self._queue(batch)

    def _public_events(self, body: dict[str, Any]) -> None:
        if self.seat is None and self.joined:
            self._queue(Batch.from_body(body, self.definition))

    def _queue(self, batch: Batch) -> None:
        self.known = max(self.known, batch.n)
        if batch.n <= self.applied:
            # A duplicate, or history asked for after a snapshot: keep it for the check.
            history = self._history
            if history is not None and history[0] <= batch.n <= history[1] \
                    and batch.n not in self.received:
                self.notices.append(Missed(batch.n, batch.action, batch.events, batch.standin))
            self.received.setdefault(batch.n, batch)
            self._chunk_done()
            if self.secret is not None and self.verdict is None:
                self._try_verify()
            return
        waiting = self.pending.batches
        if len(waiting) >= MAX_BUFFER and batch.n not in waiting:
            # Full: keep the batches nearest the gap. Those it fills (a catch-up chunk)
            # must find room; the farthest one is asked for again in its turn.
            farthest = max(waiting)
            if batch.n > farthest:
                raise FrameError("too many batches waiting for a gap to fill")
            del waiting[farthest]
        waiting[batch.n] = batch
        self._drain()

    def _drain(self) -> None:
        pending = self.pending
        while self.view is not None and (batch := pending.batches.pop(self.applied + 1, None)):
            if not self._apply(batch):
                return
        if self.joined and self._waited():
            # The table waits for this seat now: its next beat within HEARTBEAT (the host
            # counts its silence from the later of its last frame and this moment).
            self._next_heartbeat = min(self._next_heartbeat,
                                       next_beat(self.now, self.heartbeat_every))
        if not pending.batches:
            pending.gap_since = None
        elif pending.gap_since is None:
            pending.gap_since = self.now
        self._chunk_done()
        if self.secret is not None and self.verdict is None:
            self._try_verify()

    # -- catch-up: history in chunks ----------------------------------------------------------

    def _wanted(self) -> int | None:
        """The first batch of history still wanted, if any."""
        if self.watch and self.joined and self.facts is not None:
            start = self.applied + 1
            if start <= self.known and start not in self.pending.batches:
                return start
        history = self._history
        if history is not None:
            missing = next((n for n in range(history[0], history[1] + 1)
                            if n not in self.received), None)
            if missing is not None:
                return missing
            self._history = None
        return None

    def _catch_up(self, *, again: bool = False) -> None:
        """Ask for the next chunk of history, one chunk in flight at a time (the host's
        work per peer is budgeted: a paced catch-up never trips it for long)."""
        if self._chunk is not None and not again:
            return
        start = self._wanted()
        if start is None:
            self._chunk = None
            return
        size = CHUNK if self.seat is None else SEAT_CHUNK
        self._chunk = (start, start + size - 1, self.now)
        self.pending.last_resync = self.now
        self._to_host("resync", {"from": start, "snapshot": False, "reason": "catch-up",
                                 "history": True})

    def _chunk_done(self) -> None:
        chunk = self._chunk
        if chunk is None:
            return
        last = min(chunk[1], self.known)
        received = self.received
        # (The last one first: a chunk streaming in order is not in until it is.)
        if (last < chunk[0] or last in received) and \
                all(n in received for n in range(chunk[0], last + 1)):
            self._chunk = None
            self._catch_up()

    def _apply(self, batch: Batch) -> bool:
        assert self.view is not None
        # All or nothing: the batch goes onto a copy that replaces the view on success.
        trial = self.view.copy()
        try:
            for event in batch.events:
                self.definition.apply(trial, event)
        except (InvalidEventError, IndexError, KeyError, ValueError, TypeError) as exc:
            log.warning("batch %d does not apply: %s", batch.n, exc)
            self._desync(batch, self.definition.public_hash(self.view),
                         f"event does not apply: {exc}")
            return False
        self.view = trial
        self.applied = batch.n
        self.received[batch.n] = batch
        if self._unanswered and batch.proof is not None:
            self._answered(batch.proof)
        ours = self.definition.public_hash(self.view)
        if ours != batch.hash:
            self._desync(batch, ours, "hash differs")
            return False
        self.notices.append(Applied(batch.n, batch.action, batch.events, batch.standin))
        if self.view.outcome is not None:
            self._unanswered.clear()
            self.notices.append(GameEnded(self.view.outcome))
        return True

    def _desync(self, batch: Batch, ours: str, why: str) -> None:
        log.warning(
            "desync at batch %d (%s): our hash %s, the host's %s; last events %s",
            batch.n, why, ours, batch.hash, [e.to_wire() for e in batch.events][-8:],
        )
        self.notices.append(Desynced(batch.n, ours, batch.hash))
        self.sender.send(
            self.topics.outbox(self.peer_id), "desync",
            # The report travels unsealed: only what a spectator may see goes in it.
            {"n": batch.n, "ours": ours, "theirs": batch.hash, "why": why,
             "last": [e.redacted_for(SPECTATOR).to_wire() for e in batch.events][-8:],
             "version": 1},
        )
        self._request_resync(batch.n, snapshot=True, reason="desync", force=True)

    def _request_resync(self, start: int, *, snapshot: bool, reason: str,
                        force: bool = False) -> None:
        pending = self.pending
        if not force and self.now - pending.last_resync < RESYNC_EVERY:
            return
        pending.last_resync = self.now
        pending.gap_since = None
        body: dict[str, Any] = {"from": start, "snapshot": snapshot, "reason": reason}
        if self.facts is None:
            body["start"] = True  # the game's facts first: without them nothing applies
        self._to_host("resync", body)

    def _start_missing(self) -> bool:
        """Whether this peer is in, the game has begun, and its ``start`` (the facts every
        batch is applied on) has not come: lost on the way (a frame without a number is
        found missing so), or overtaken by the batches. Asked for again with the next
        ``resync`` (``start``), a short while after it was found missing."""
        if not self.joined or self.facts is not None:
            return False
        if self.known > 0 or self.pending.batches:
            return True
        announce = self.announce or {}
        if self.seat is None and announce.get("spectator_delay") not in (None, 0):
            return False  # behind a spectator delay the start comes when it is released
        return self.host_over or announce.get("status") == "playing"

    def _snapshot(self, body: dict[str, Any]) -> None:
        n = required(body, "n", int)
        try:
            state = self.definition.state_from_wire(required(body, "state", dict))
        except MalformedError as exc:
            raise FrameError(f"snapshot: {exc}") from None
        if state.audience != self.audience:
            raise FrameError("a snapshot of someone else's view")
        if self.definition.public_hash(state) != required(body, "hash", str):
            raise FrameError("a snapshot whose hash does not match")
        before = self.applied
        self.view = state
        self.applied = n
        self.base = max(self.base, n)
        self.known = max(self.known, n)
        if n > before and not self.watch:
            # Back past batches never seen one by one: fetch them for the log.
            low = before + 1 if self._history is None else min(self._history[0], before + 1)
            self._history = (low, n)
        self.pending.batches = {k: b for k, b in self.pending.batches.items() if k > n}
        self._unanswered.clear()  # made on a view now gone: not sent again
        self.notices.append(Resynced(n, "snapshot"))
        if state.outcome is not None:
            self.notices.append(GameEnded(state.outcome))
        self._drain()
        self._catch_up()

    def _host_heartbeat(self, body: dict[str, Any]) -> None:
        at = required(body, "at", int)
        said_at = at
        public = body.get("public")
        if self.seat is None and type(public) is int and 0 <= public <= at:
            at = public  # a spectator delay: what spectators may have so far
        self.known = max(self.known, at)
        players = self.facts.players if self.facts is not None else 6
        entries = body.get("wait")
        waits = [Wait.from_wire(e, players) for e in entries[:6]] \
            if isinstance(entries, list) else []
        self.waits = (self.now, [w for w in waits if w is not None])
        self.waits_at = said_at
        self.resting = self.seat is not None and body.get("rest") is True
        pending = self.pending
        behind = self.joined and self.view is not None and at > self.applied
        if self._chunk is not None:
            return  # catching up already
        if behind and self.watch and self.facts is not None:
            self._catch_up()
            return
        if behind and not pending.batches and pending.gap_since is None:
            pending.gap_since = self.now

    def _entropy_round(self, body: dict[str, Any]) -> None:
        """Commit to fresh entropy, or reveal the committed one (``netplay.entropy``)."""
        seat = self.seat
        if not self.joined and not self.watch:
            # MQTT orders messages per topic only: the round (events topic) may overtake
            # our welcome (inbox topic), as it does on NATS. Answer it once welcomed.
            self._early_round = body
            return
        if self.facts is not None:
            return
        number = required(body, "round", int)
        phase = required(body, "phase", str)
        listed = required(body, "commits", list)
        if not all(c is None or (isinstance(c, bytes) and len(c) == 32) for c in listed):
            raise FrameError("an entropy round's commitments are 32 bytes or null")
        commits: tuple[bytes | None, ...] = tuple(listed)
        held = body.get("held")
        held_seats = {s for s in held if type(s) is int} if isinstance(held, list) else set()
        if phase == "commit":
            self._seen_reveal = None  # a void round: everyone commits afresh
        elif phase == "reveal" and (self._seen_reveal is None
                                    or number > self._seen_reveal[0]):
            # The first reveal round since the void fixes every commitment: one listed
            # differently later in the same round can't be the deal's (a host re-listing
            # its own seat's).
            self._seen_reveal = (number, commits)
        if seat is None:
            return
        if not 0 <= seat < len(commits):
            raise FrameError("an entropy round without our seat")
        ours = commits[seat]
        if seat in held_seats and self._revealed is not None:
            self._held_after_reveal = True
        out = self.topics.outbox(self.peer_id)
        if phase == "commit" and ours is None:
            # A void round. An entropy we revealed may have been seen: a fresh one. One we
            # never revealed is still ours alone (and a join of ours may carry its
            # commitment already: the host takes whichever comes first).
            if self.entropy in self._reveals:
                self.entropy = os.urandom(32)
            self._revealed = None
            self.sender.send(out, "entropy", {"round": number,
                                              "commit": entropy_commitment(self.entropy)})
        elif phase == "reveal":
            self._reveal_in(number, ours, commits)

    def _reveal_in(self, number: int, ours: bytes | None, commits: tuple[bytes | None, ...]
                   ) -> None:
        """Answer a reveal round that lists ``ours`` for our seat."""
        if ours is None:
            return  # held: dealt by the host's secret
        self._held_after_reveal = False
        spent = next((e for e in self._reveals if entropy_commitment(e) == ours), None)
        entropy = self.entropy if spent is None else spent
        if spent is not None and self._reveals[spent] != commits:
            # Revealed already, in a round that listed other commitments: the host changed
            # one since. Revealing again changes nothing; the start check names it.
            log.warning("the host lists other commitments than the round we revealed in: "
                        "not revealing again")
            return
        if spent is None and ours != entropy_commitment(entropy):
            log.warning("the host lists a commitment for our seat that is not ours: "
                        "not revealing")
            return
        self.sender.send(self.topics.outbox(self.peer_id), "entropy",
                         {"round": number, "entropy": entropy})
        self._revealed = entropy
        if spent is None:
            self._reveals[entropy] = commits
            while len(self._reveals) > MAX_REVEALS:  # a host voiding round after round
                del self._reveals[next(iter(self._reveals))]

    def _unseated(self, body: dict[str, Any]) -> None:
        seat = required(body, "seat", int)
        name = clean_text(required(body, "name", str), 24)
        why = clean_text(required(body, "why", str), 200)
        self.notices.append(Unseated(seat, name, why))
        self._seen_reveal = None  # the round is void: the next reveal round is the deal's

    def _impostor(self, body: dict[str, Any]) -> None:
        what = clean_text(required(body, "what", str), 200)
        key = optional(body, "key", bytes)
        self.notices.append(Impostor(what, key if key is not None and len(key) == 32 else None))

    def _rejected(self, body: dict[str, Any]) -> None:
        self._answered(None)
        self.notices.append(Rejected(clean_text(required(body, "reason", str), 300)))

    def _public_race(self, body: dict[str, Any]) -> None:
        if self.seat is not None and self.spectator_delay > 0:
            return  # a seat had it on its own channel already (the public one is late)
        self._race(body)

    def _race(self, body: dict[str, Any]) -> None:
        presses = []
        for entry in required(body, "presses", list)[:32]:
            if (isinstance(entry, list) and len(entry) == 4 and type(entry[0]) is int
                    and isinstance(entry[1], str) and isinstance(entry[2], int | float)
                    and isinstance(entry[3], str)):
                presses.append((entry[0], entry[1][:8], float(entry[2]), entry[3][:16]))
        self.notices.append(
            RaceResult(required(body, "pile", int), optional(body, "winner", int),
                       tuple(presses))
        )

    # -- the end ------------------------------------------------------------------------------

    def _reveal(self, body: dict[str, Any]) -> None:
        if self.secret is not None:
            verdict = self.verdict
            if verdict is not None:
                # The host sends the reveal again only to a peer it has no verdict from:
                # ours was lost on its way. Said again (the host paces its reveals).
                self._to_host("verified", {"ok": verdict.ok, "detail": verdict.detail})
            return
        self.secret = key_bytes(body, "secret")
        self.total = required(body, "total", int)
        self.known = max(self.known, self.total)
        termination = required(body, "termination", int)
        if not 0 <= termination < len(Termination):
            raise FrameError("unknown termination")
        self.termination = termination
        self._try_verify()

    def record(self, ended_at: float) -> dict[str, Any] | None:
        """This seat's record of the finished game (``netplay.record.SEAT_FORMAT``): the
        batches as this seat received them, the facts and the revealed secret; ``None``
        unless this peer sat at the table and its check of the deal passed."""
        facts, secret, total = self.facts, self.secret, self.total
        if self.seat is None or facts is None or secret is None or total is None \
                or self.verdict is None or not self.verdict.ok:
            return None
        batches = [self.received[n] for n in range(1, total + 1)]
        last = batches[-1].events[-1] if batches[-1].events else None
        return {
            "format": "sequence-stacks-seat-record",
            "version": 1,
            "seat": self.seat,
            "table": self.table,
            "game": facts.game,
            "host": self.host_key,
            "players": facts.players,
            "rules": facts.rules.to_wire(),
            "names": list(self.names),
            "keys": list(facts.keys),
            "joins": self.joins,
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

    def _try_verify(self) -> None:
        if self.facts is None or self.secret is None or self.total is None:
            return
        if self.applied < self.total:
            return  # still catching up; _drain calls again
        missing = [n for n in range(1, self.total + 1) if n not in self.received]
        if missing:
            if self._chunk is None:
                self._request_resync(missing[0], snapshot=False, reason="history")
            return
        self.verdict = verify_game(
            self.facts, self.secret, self.received, self.total, self.audience
        )
        if self._unfair_deal is not None:
            self.verdict = Verdict(False, self._unfair_deal)
        self.notices.append(Verified(self.verdict))
        self._to_host("verified", {"ok": self.verdict.ok, "detail": self.verdict.detail})

