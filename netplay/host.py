"""The host's session: a pure state machine (frames in, frames out, timers by ``tick``).

It runs the authoritative engine, seats players, plays the host's own bots, arbitrates
the Block race with its clock alone, and keeps everything a game record needs.
The asyncio driver (``netplay.peers``) only moves bytes and calls ``tick``.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import hmac
import logging
import math
import os
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from engine.actions import Block, CloseBlockWindow, PassBlock
from engine.bots import canonical
from engine.config import RulesConfig
from engine.errors import EngineError, IllegalActionError, MalformedError
from engine.events import PileBlocked
from engine.games import (
    DEFAULT_GAME,
    STACKS,
    AnyAction,
    AnyEvent,
    GameDef,
    TableBot,
    TableGame,
    game_def,
    searches,
)
from engine.state import SPECTATOR, Audience, Phase, Seat, State
from netplay import budget, history
from netplay.batch import Batch
from netplay.budget import SNAPSHOT_COST, Bucket, HostBudgets
from netplay.clock import TurnClock, Wait, next_beat
from netplay.codec import TABLE_PROTOCOL, Frame, ReplayGuard, decode
from netplay.entropy import COMMIT, REVEAL, DealRound, bot_entropy, entropy_commitment
from netplay.errors import FrameError
from netplay.hosts import AnnounceWatch
from netplay.identity import Identity, peer_id
from netplay.journal import Entry, JournalError
from netplay.listing import ANSWER_LIMIT, QUERY, query_reply_topic
from netplay.messages import CONN_LEN, conn_of, key_bytes, optional, player_name, required
from netplay.probe import Probe
from netplay.topics import Topics
from netplay.verify import commitment, deal_seed
from netplay.wire import Outgoing, Sender

log = logging.getLogger("netplay.host")

GAME_NAME = "sequence-stacks"
MAX_RESEND = 64
"""Batches sent back at once: a longer history goes in chunks of this many."""
IN_FLIGHT = 1.0
"""Seconds after a batch went out during which a seat's heartbeat that does not count it
yet triggers no resend: the beat most likely crossed the batch on its way (under load a
beat and a batch cross often, and each resend is a frame more for both). A batch really
lost is found by the seat itself at the host's next beat or batch (``at``, a gap), and by
the host at the seat's next beat."""
HISTORY_PATIENCE = 2.0
"""Seconds after a peer asked for a history chunk during which its heartbeats showing it
behind trigger no resend of their own (the chunk is on its way)."""
REVEAL_AGAIN = 2.0
"""Seconds between the reveals sent again to a peer that, after the game, has not said it
verified (its heartbeats show it still waiting)."""
ROUND_AGAIN = 2.0
"""Seconds between the deal's rounds sent again to a seat the round still waits for whose
heartbeats come (the round, or its answer, was lost), and after the round went out to
everyone (a beat that crossed it)."""
SEALED_TO_HOST = frozenset({"action", "heartbeat", "resync", "verified"})
"""What a peer may send the host sealed (an action must be): what only the host reads, and
a peer sends often, goes sealed, a box costing either end a fraction of a signature."""
ACTION_ORDER = "sealed-actions"
"""The replay guard's name for the order of the action frames inside sealed ones."""
KEPT_REJECTIONS = 4
"""Rejections kept per player, to answer an action sent again whose rejection was lost."""
REST_HEARTBEAT = 10.0
"""The longest the host stays silent to its seats while its presence rests on the broker
(:attr:`HostSession.resting`): a frozen host is found by its last will then, and a beat
only tells the seats how far the game got (a batch lost at the end of a silence)."""
ENDED_CONNS = 8
"""A seat's ended connections remembered, so that an ``online`` of one replayed is dropped."""
SPECTATOR_HEARD = 8.5
"""Seconds after a spectator's last frame during which the host counts it as watching (it
beats every 4 s, ``netplay.player.HEARTBEAT``): at the end, the host waits a moment for
the verdicts of those."""


@dataclass(frozen=True)
class HostSettings:
    table: str
    players: int
    bots: tuple[str, ...] = ()
    """Strategies of the host's own bots; they take the last seats."""
    rules: Any = field(default_factory=RulesConfig)
    """The table rules: the config type of ``game`` (a default ``RulesConfig`` given for
    another game becomes that game's default config)."""
    block_window: float = 3.0
    password: str | None = None
    title: str = ""
    bot_delay: float = 0.0
    """Seconds a bot of the host waits before it acts (pacing for people watching)."""
    grace: float = 20.0
    """Seconds an away player's turn waits before a stand-in bot plays it."""
    away_after: float = 10.0
    """Seconds without a heartbeat after which a player the table waits for counts as away
    (such a seat beats every 4 s: ``netplay.player.HEARTBEAT``), counted from the later of
    its last frame and the moment the table began to wait for it."""
    idle_away_after: float = 20.0
    """Seconds without a heartbeat after which a player the table does not wait for (not
    its turn, no Block window it may answer) counts as away: such a seat beats every 8 s
    (``netplay.player.IDLE_HEARTBEAT``, protocol 8)."""
    heartbeat: float = 2.0
    """The longest the host stays silent to its peers: it beats when nothing went to
    every peer (a batch, a frame on ``table``) for this long, jittered up to a fifth
    sooner (see :meth:`HostSession._beat`). Until issue #28 it beat on a 1 s grid and
    skipped a beat after a batch: as silent, at most ~2 s, with twice the beats."""
    turn_clock: float = 0.0
    spectator_delay: float = 0.0
    """Seconds the public stream reaches spectators late (players' own streams are not)."""
    """Seconds a seated player has for a turn before the stand-in bot plays it (0: off)."""
    race_settle: float = 0.25
    """Seconds after a Block window closes during which late presses are still listed."""
    standin: str = "medium"
    """The level of the bot that plays the turn of a player who is away."""
    dealer: int | None = None
    """A26: the dealer of this game (a rematch passes the deal left); ``None`` = drawn
    from the game's seed."""
    game: str = DEFAULT_GAME
    """Which game the table plays (``engine.games.GAMES``): ``stacks`` or ``sequence``."""

    @property
    def definition(self) -> GameDef[Any, Any, Any, Any]:
        return game_def(self.game)

    def __post_init__(self) -> None:
        if not 0 <= self.spectator_delay <= 3600:
            raise ValueError("the spectator delay must be 0 to 3600 seconds")
        if not 0 <= self.turn_clock <= 3600:
            raise ValueError("the turn clock must be 0 (off) to 3600 seconds")
        definition = self.definition
        default = definition.config_type()
        if type(self.rules) is not type(default):
            if self.rules != RulesConfig():
                raise ValueError(f"{definition.title} takes its own rules, not {self.rules!r}")
            object.__setattr__(self, "rules", default)
        definition.check_players(self.players)
        if definition is not STACKS:
            definition.new_state(self.rules, self.players)  # teams, dealer: in words
        if len(self.bots) > self.players:
            raise ValueError(f"{len(self.bots)} bots don't fit at {self.players} seats")
        if not 0 < self.block_window <= 60:
            raise ValueError("the block window must be more than 0 and at most 60 seconds")
        first = getattr(self.rules, "first_player", None)
        if first is not None and first >= self.players:
            raise ValueError(f"first_player {first} is not a seat at {self.players} players")
        for level in self.bots:
            _level(self, level)  # raises ValueError for a bot name the game has none of
        canonical(self.standin)  # a level; a game without it stands in with its default
        if self.dealer is not None and not 0 <= self.dealer < self.players:
            raise ValueError(f"dealer {self.dealer} is not a seat at {self.players} players")

    def to_wire(self) -> dict[str, Any]:
        """Plain data for the journal (every field; the rules as their wire form)."""
        wire = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        wire["rules"] = self.rules.to_wire()
        wire["bots"] = list(self.bots)
        return wire

    @classmethod
    def from_wire(cls, wire: dict[str, Any]) -> HostSettings:
        known = {f.name for f in dataclasses.fields(cls)}
        values = {k: v for k, v in wire.items() if k in known}
        values["rules"] = game_def(values.get("game", DEFAULT_GAME)).config_from_wire(
            wire.get("rules", {}))
        values["bots"] = tuple(wire.get("bots", ()))
        return cls(**values)


def _level(settings: HostSettings, name: str) -> str:
    """A host bot's name as shown (Stacks' level for an alias); ``ValueError`` for a name
    the table's game has no bot of."""
    definition = settings.definition
    if definition is STACKS:
        return canonical(name)
    if name not in definition.bot_names:
        raise ValueError(f"{definition.title} has no {name!r} bot; choose from "
                         f"{', '.join(definition.bot_names)}")
    return name


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

    @property
    def is_bot(self) -> bool:
        return self.key is None


@dataclass(eq=False)
class BotTurn:
    """A decision of one of the host's bots, for the driver to make off its loop (see
    :attr:`HostSession.offload`): ``bot.choose(view, seat, legal)``, then
    :meth:`HostSession.bot_decided`."""

    seat: Seat
    bot: TableBot
    view: Any
    legal: list[Any]
    standin: bool
    at: int
    """How many batches the table had published when it was asked."""


@dataclass
class Press:
    seat: Seat
    kind: str
    offset_ms: float
    result: str


@dataclass
class Race:
    pile: int
    opened: float
    deadline: float
    opened_at: int
    """The batch that opened the window: a press must have seen it."""
    presses: list[Press] = field(default_factory=list)
    closed: float | None = None
    winner: Seat | None = None

    def to_body(self) -> dict[str, Any]:
        return {
            "pile": self.pile,
            "winner": self.winner,
            "presses": [[p.seat, p.kind, round(p.offset_ms, 3), p.result] for p in self.presses],
        }


def _batch_body(batch: Batch, audience: Audience) -> dict[str, Any]:
    return batch.redacted_for(audience).to_body()


def _stamp(entry: Entry) -> float | None:
    """The wall time a journal entry says it went out (``at``), if it says one."""
    at = entry.get("at")
    if isinstance(at, int | float) and not isinstance(at, bool) and math.isfinite(at):
        return float(at)
    return None


def _race_from_body(body: dict[str, Any]) -> Race:
    race = Race(body["pile"], 0.0, 0.0, 0, closed=0.0, winner=body["winner"])
    race.presses = [Press(seat, kind, offset, result)
                    for seat, kind, offset, result in body["presses"]]
    return race


_ON_OUTBOX: dict[str, str] = {
    "join": "_join",
    "action": "_action",
    "resync": "_resync",
    "desync": "_desync",
    "heartbeat": "_heartbeat",
    "verified": "_verified",
    "entropy": "_entropy",
}
"""The session's handler (a method's name) of each frame type on a peer's ``out``: a
method is looked up for the one frame, not a map of them made for each."""


class HostSession:
    """One table's authority. Feed it with :meth:`receive` and :meth:`tick`."""

    def __init__(
        self, identity: Identity, settings: HostSettings, now: float, *,
        secret: bytes | None = None, restore: Sequence[Entry] | None = None,
    ) -> None:
        self.identity = identity
        self.settings = settings
        self.definition = settings.definition
        self.topics = Topics(settings.table)
        self.sender = Sender(identity, settings.table)
        self.secret = secret or os.urandom(32)
        self.commit = commitment(self.secret)
        self.guard = ReplayGuard()
        self.presence_guard = ReplayGuard()
        self.now = now
        self.seats: list[SeatInfo | None] = [None] * settings.players
        self.journal: list[Entry] = []
        """Entries for the driver to write (and fsync) before it publishes anything."""
        self.on_journal: Callable[[], None] | None = None
        """Called as soon as an entry is added: a driver may start writing it to disk
        while the session goes on to seal and sign the frames that depend on it."""
        self.boot = os.urandom(8)
        """This incarnation of the host: announced, so peers join a resumed host again."""
        self.resumed = restore is not None
        if restore is None:
            self._journal({"t": "table", "host_seed": bytes(identity.signing_key),
                           "secret": self.secret, "settings": settings.to_wire()})
            first_bot = settings.players - len(settings.bots)
            for index, strategy in enumerate(settings.bots):
                seat = first_bot + index
                self._seat(seat, SeatInfo(
                    f"Bot {seat + 1} ({_level(settings, strategy)})", None,
                    bot_entropy(self.secret, seat),
                    bot=settings.definition.make_bot(strategy, os.urandom(16)),
                ), strategy)
        self.spectators: dict[bytes, str] = {}
        self._history_asked: dict[bytes, float] = {}
        """When each peer last asked for a chunk of history (catch-up)."""
        self._revealed_to: dict[bytes, float] = {}
        """When the game's reveal was last sent again to a peer that had not verified."""
        self._acting: int | None = None
        """The seq of the signed action being handled (its rejection is kept by it)."""
        self._rejections: dict[bytes, dict[int, dict[str, Any]]] = {}
        """Each player's last few rejections, by the seq of the signed action they
        answered: an action sent again (its rejection lost) gets its rejection again."""
        self.clock = TurnClock(settings.turn_clock)
        self._timed_out: tuple[int, Seat] | None = None
        """The turn whose clock ran out: the stand-in bot plays it for the seat."""
        self._clock_bot: TableBot | None = None
        self._delayed: deque[tuple[float, str, dict[str, Any]]] = deque()
        """The public stream held back for spectators: (release time, type, body)."""
        self._released = 0
        self._restored = 0
        """Batches brought back from the journal (a resumed host) and released at once
        (see :meth:`hold_back`)."""
        self._public_over = False
        """The reveal went out to spectators (with a delay: once released): a spectator
        gets the game's end no sooner, whatever it asks."""
        self._journaled: list[tuple[str, Any, float | None]] = []
        """A resumed host's batches and races as journaled, with when they went to the
        players (``at``, wall clock), to hold back again what spectators were not due yet."""
        self.wall_offset: float | None = None
        """The wall clock minus :attr:`now` (set by a driver): batches and races are
        journaled with the wall time they went out, so that a resumed host keeps the
        spectator delay for what it had not released yet. ``None``: not journaled."""
        self._spectator_heard: dict[bytes, float] = {}
        """When each spectator last sent the host anything."""
        self.game: TableGame | None = None
        self.batches: list[Batch] = []
        self._sent_at: dict[int, float] = {}
        """When this process published each of its last batches (see :data:`IN_FLIGHT`);
        a batch not there (replayed from the journal, or long ago) is not in flight."""
        self._waiting_since: dict[Seat, float] = {}
        """Since when the game waits for each seat it waits for (see :meth:`_away_from`)."""
        self.races: list[Race] = []
        self.race: Race | None = None
        self.verdicts: dict[str, dict[str, Any]] = {}
        self.dropped: list[str] = []
        self.budgets = HostBudgets()
        self._copies = history.PublicCopies()
        """The batches' public bodies, packed once for every spectator's catch-up."""
        self._roles: tuple[tuple[bytes | None, ...], int, dict[str, str]] | None = None
        self._bot_at: float | None = None
        self.offload = False
        """Set by a driver that makes the host bots' decisions itself, off its loop (a
        search bot thinks for up to its budget, and the table must keep answering): a due
        decision then waits in :meth:`take_bot_turn` instead of being made in :meth:`tick`."""
        self._bot_turn: BotTurn | None = None
        self._thinking: BotTurn | None = None
        self._next_heartbeat = now
        self.conn = os.urandom(CONN_LEN)
        """This connection's nonce, in the last will and every announcement: a seat takes
        the host's will only for the connection its newest announcement names."""
        self._will_made = False
        self._announced_conn: bytes | None = None
        self.resting = False
        """The host's presence rests on the broker: it was found to fire a silent client's
        last will in time (``netplay.probe``), so the host beats after
        :data:`REST_HEARTBEAT` of silence (docs/protocol.md, *Presence*)."""
        self.probe: Probe | None = None
        self.probe_until: float | None = None
        """The broker probe under way, and by when its will must come to be trusted."""
        self._events_at: float | None = None
        """When a frame last went to every peer (a batch: each seat its sealed copy, the
        spectators theirs; or a signed frame on ``table`` and ``events``), since the last
        heartbeat (sent or skipped): within the interval, it stands for the beat."""
        self._beat_said = True
        """The last heartbeat sent said whom the table waits for, in words."""
        self._rest_said = False
        """The last heartbeat sent told the seats presence rests on the broker."""
        self.beats_skipped = 0
        self._answers = Bucket(ANSWER_LIMIT, now)
        self.watch = AnnounceWatch(identity.key, now)
        self.closed = False
        self.round = DealRound()
        self.reveal_commits: list[bytes | None] | None = None
        """Per seat, the commitments the reveal round listed (``None`` before one): the
        start carries exactly these (``netplay.entropy.check_commitments``), and so does
        the record."""
        if restore is not None:
            self._restore(restore)
            self._restored = len(self.batches)
            self._public_over = self.over
        self._announce()
        self._seats_full()  # every seat a bot of the host, or a resumed full table

    @classmethod
    def resume(cls, entries: Sequence[Entry], now: float) -> HostSession:
        """The table a journal describes, replayed through the engine and checked batch
        by batch; ``JournalError`` if the journal does not hold a table or does not
        replay to the hashes it recorded."""
        head = next((e for e in entries if e.get("t") == "table"), None)
        if head is None:
            raise JournalError("the journal holds no table (the host died before it began)")
        try:
            identity = Identity.from_seed(head["host_seed"])
            settings = HostSettings.from_wire(head["settings"])
            secret = head["secret"]
            if not isinstance(secret, bytes) or len(secret) != 32:
                raise ValueError("the secret is not 32 bytes")
        except (KeyError, TypeError, ValueError, EngineError) as exc:
            raise JournalError(f"the journal's table is unreadable: {exc}") from None
        return cls(identity, settings, now, secret=secret, restore=entries)

    # -- queries -------------------------------------------------------------------------

    @property
    def released(self) -> int:
        """Batches released to spectators: all of them without a spectator delay; with
        one, those published (late) on ``events`` so far. A resumed host releases the
        batches of its journal at once (they went out before it died)."""
        if self.settings.spectator_delay <= 0:
            return len(self.batches)
        return max(self._released, self._restored)

    @property
    def status(self) -> str:
        if self.game is None:
            return "lobby"
        return "over" if self.game.over else "playing"

    @property
    def catching_up(self) -> bool:
        """The game is over for the players, and the spectator delay still holds part of
        it (its last batches, its outcome) back from spectators: the tail. The table stays
        up until it is out (announced as ``catching_up``)."""
        return self.over and bool(self._delayed)

    def tail_left(self, now: float) -> float:
        """Seconds until spectators have had everything held back (0: nothing is)."""
        return max(0.0, self._delayed[-1][0] - now) if self._delayed else 0.0

    def release_all(self) -> None:
        """Publish at once everything the spectator delay still holds back (a host that
        closes its ended table: the game is over, spectators get its end now)."""
        if not self._delayed:
            return
        self._delayed = deque((min(due, self.now), type_, body)
                              for due, type_, body in self._delayed)
        self._release()

    @property
    def over(self) -> bool:
        return self.game is not None and self.game.over

    def seat_of(self, key: bytes) -> Seat | None:
        for seat, info in enumerate(self.seats):
            if info is not None and info.key == key:
                return seat
        return None

    def all_seats_verified(self) -> bool:
        """Every seated player (not the host's bots) has reported its verification."""
        return all(
            f"seat {seat}" in self.verdicts
            for seat, info in enumerate(self.seats)
            if info is not None and not info.is_bot
        )

    def spectators_unverified(self, now: float) -> int:
        """Spectators watching now (heard lately) that have not reported their check of
        the deal: at the end, once everything is out, the host waits a moment for them."""
        return sum(
            1 for key, heard in self._spectator_heard.items()
            if key in self.spectators and now - heard < SPECTATOR_HEARD
            and f"spectator {self.spectators[key]}" not in self.verdicts
        )

    def end_settled(self, now: float) -> bool:
        """Whether a host whose game is over has nothing more to wait for before it may
        close: every seated player's verdict, the spectators still catching up on the
        history, the last Block race told, and the verdicts of the spectators watching
        now (but not, with a spectator delay, while the tail is held back from them:
        :meth:`spectators_unverified` is waited for once it is out)."""
        return (self.all_seats_verified()
                and not self.spectators_catching_up(now)
                and self.race is None
                and (self.catching_up or not self.spectators_unverified(now)))

    def spectators_catching_up(self, now: float) -> int:
        """Spectators that asked for a chunk of history lately and have not verified: the
        host stays a moment longer for them before it closes the table."""
        return sum(
            1 for key, asked in self._history_asked.items()
            if key in self.spectators and now - asked < HISTORY_PATIENCE
            and f"spectator {self.spectators[key]}" not in self.verdicts
        )

    def data_to_send(self) -> list[Outgoing]:
        return self.sender.drain()

    def urgent_to_send(self) -> list[Outgoing]:
        """The frames that go out first, made already (the acting player's batch): a driver
        that waits for its journal before publishing sends these as soon as it may, and
        then :meth:`frames_to_send`."""
        return self.sender.urgent()

    def frames_to_send(self) -> Iterator[Outgoing]:
        """:meth:`data_to_send` one frame at a time, each made when it is reached (so the
        next acting player's batch is not held up by the making of the frames before it)."""
        return self.sender.frames()

    def last_will(self) -> Outgoing:
        """The host's "offline" announcement, which the broker publishes (retained) if the
        host vanishes, for the next connection attempt (each after the first a new
        connection, with a nonce of its own). Signed now, so its seq is older than later
        announcements: peers take it in any order, but only for the connection the
        host's newest announcement names, and the live host's next frame undoes it."""
        if self._will_made:
            self.conn = os.urandom(CONN_LEN)
        self._will_made = True
        body = {"host": self.identity.key, "name": self.settings.title or self.settings.table,
                "players": self.settings.players, "conn": self.conn}
        return Outgoing(self.topics.announce, self.sender.frame("offline", body), retain=True)

    def connected(self, now: float) -> None:
        """The host (re)connected: it announces the new connection (once each)."""
        self.now = now
        if self._announced_conn != self.conn:
            self._announce()

    def probe_started(self, probe: Probe, until: float) -> None:
        """The driver's broker probe went silent: its will (``probe.will`` on
        ``probe.topic``) must come by ``until`` for presence to rest on the broker."""
        self.probe, self.probe_until = probe, until

    def _probe_answered(self) -> None:
        late = self.probe_until is None or self.now > self.probe_until
        self.probe = self.probe_until = None
        if late:
            log.info("table %s: the broker fired a silent client's will late: heartbeats "
                     "carry presence", self.settings.table)
            return
        if not self.resting:
            log.info("table %s: the broker fires a silent client's will: presence rests "
                     "on it", self.settings.table)
        self.resting = True
        self._next_heartbeat = min(self._next_heartbeat, self.now)  # say so to the seats

    def journal_to_write(self) -> list[Entry]:
        """What the driver writes to the journal (and fsyncs) before :meth:`data_to_send`
        goes out: the frames may depend on it."""
        out, self.journal = self.journal, []
        return out

    def next_deadline(self) -> float:
        """When :meth:`tick` next has something to do."""
        times = [self._next_heartbeat]
        if self.probe_until is not None:
            times.append(self.probe_until)
        if self._bot_at is not None:
            times.append(self._bot_at)
        race = self.race
        if race is not None:
            settled = race.closed + self.settings.race_settle if race.closed else None
            times.append(race.deadline if settled is None else settled)
        standin = self._standin_due()
        if standin is not None:
            times.append(standin)
        clock = self.clock.due()
        if clock is not None and self.clock.turn != self._timed_out:
            times.append(clock)
        if self.watch.due is not None:
            times.append(self.watch.due)
        if self._delayed:
            times.append(self._delayed[0][0])
        if self.round.deadline is not None:
            times.append(self.round.deadline)
        return min(times)

    # -- input ---------------------------------------------------------------------------

    def receive(self, topic: str, payload: bytes, now: float) -> None:
        """Handle one message from the broker. Never raises: bad input is dropped and logged."""
        self.now = now
        if topic == QUERY:
            self._answer_listing(payload)
            return
        probe = self.probe
        if probe is not None and topic == probe.topic \
                and hmac.compare_digest(payload, probe.will):
            self._probe_answered()
            return
        self._close_overdue_window()
        try:
            self._receive(topic, payload)
        except FrameError as exc:
            self._drop(topic, exc.reason)
        except Exception:  # a bug must cost one message, never the table
            log.exception("internal error handling a message on %r", topic)
            self._drop(topic, "internal error (logged)")
        self._schedule_bots()

    def tick(self, now: float) -> None:
        """Run what is due: heartbeats, the Block window's timer, bots, stand-ins, races."""
        self.now = now
        if self.probe_until is not None and now > self.probe_until:
            log.info("table %s: the broker did not fire a silent client's will in time: "
                     "heartbeats carry presence", self.settings.table)
            self.probe = self.probe_until = None
        if now >= self._next_heartbeat:
            self._next_heartbeat = next_beat(now, self.settings.heartbeat)
            self._release()
            self._beat()
        self._close_overdue_window()
        if self.watch.due is not None and now >= self.watch.due:
            self._restore_announcement()
        if self.round.deadline is not None and now >= self.round.deadline:
            self._round_timeout()
        race = self.race
        if race is not None and race.closed is not None \
                and now >= race.closed + self.settings.race_settle:
            self._public("race", race.to_body())
            self.race = None
        if self._bot_at is not None and now >= self._bot_at:
            self._bot_at = None
            self._run_bot()
        due = self._standin_due()
        if due is not None and now >= due:
            self._run_standin()
        self._release()
        self._sync_clock()
        clock = self.clock.due()
        if clock is not None and now >= clock and self.clock.turn != self._timed_out:
            self._timed_out = self.clock.turn
            log.info("seat %s ran out of time: the stand-in bot plays this turn",
                     self.clock.turn[1] if self.clock.turn else "?")
        self._schedule_bots()

    def _beat(self) -> None:
        """The heartbeat on ``table`` (and ``events`` while a spectator is there), unless
        a frame went to every peer less than an interval ago and the beat would tell
        nobody anything new: the next beat is then due an interval after that frame.

        So the host is never silent to a peer for longer than the interval, and beats
        only in the silences: since the last beat every peer has heard the host (a
        spectator the public frame, a seat its own sealed copy of the batch), and ``at``
        is the last batch published (a lost one shows as a gap at the next batch, or at
        the beat that ends the next silence). Never skipped with a spectator delay (the
        beat is then the only live word on ``events``), nor while the beat or the last
        one sent says whom the table waits for, in words (someone away, a turn clock, a
        Block window): a peer counts those down from the last beat and would show a
        stale line."""
        waits = self.waits()
        says = any(w.away is not None or w.left is not None for w in waits)
        delay = self.settings.spectator_delay > 0
        rest = self._rests()
        # The host's own pace: rare only while nobody needs it (a waiting line in words, a
        # turn clock counting down, a spectator timing the host out on ``events``).
        quiet = rest and not says and not self._beat_said and not self.spectators \
            and not delay
        every = REST_HEARTBEAT if quiet else self.settings.heartbeat
        self._next_heartbeat = next_beat(self.now, every)
        heard, self._events_at = self._events_at, None
        if heard is not None and not delay and not says and not self._beat_said \
                and rest == self._rest_said:
            due = next_beat(heard, every)
            if due > self.now:
                self._next_heartbeat = due
                self.beats_skipped += 1
                return
        self._beat_said = says
        self._rest_said = rest  # a change of pace is never skipped: the seats follow it
        body: dict[str, Any] = {"at": len(self.batches)}
        if delay:
            body["public"] = self.released
        seats = body
        if rest:
            seats = {**body, "rest": True}
        if waits:
            seats = {**seats, "wait": [w.to_wire() for w in waits]}
            if not delay:
                # Whom the live table waits for is the live game: with a delay spectators,
                # who see it late, don't get it.
                body = seats
        if self.spectators:
            self.sender.send(self.topics.events, "heartbeat", body, qos=0)
        # The seats' beat: a box each, as their batches come (protocol 6). A box opens in
        # microseconds where a signature took a seat ~0.1 ms to check, and the host beat
        # for every seat of every table (docs/protocol.md, *Presence*).
        keys = [None if info is None else info.key for info in self.seats]
        if any(key is not None for key in keys):
            self.sender.send_boxes(self.topics.table_stream, keys, "heartbeat",
                                   [None if key is None else seats for key in keys], qos=0)

    def _rests(self) -> bool:
        """Whether the host's presence rests on the broker now (``rest`` in the seats'
        beats: they wait longer for it): it was found to fire wills in time, and the game
        is not over."""
        return self.resting and not self.over

    def _to_everyone(self, type_: str, body: dict[str, Any], *, qos: int = 1) -> None:
        """One signed frame for the seats on ``table`` and, the same bytes, for the
        spectators on ``events``: only while a spectator is there. Nobody else reads
        ``events`` but a table listing, which hears a live host by its answer to the
        listing's query; a spectator who comes later gets what it needs from its
        ``welcome`` and its catch-up (docs/protocol.md, *Nobody watching*)."""
        if not self.spectators:
            self.sender.send(self.topics.table_stream, type_, body, qos=qos)
            return
        payload = self.sender.send(self.topics.events, type_, body, qos=qos)
        self.sender.outbox.append(Outgoing(self.topics.table_stream, payload, qos=qos))

    def _send_events(self, type_: str, body: dict[str, Any], *, seats: bool = True) -> None:
        """A signed frame for everyone: on ``events`` for the spectators (while there are
        any), and the same frame on ``table`` for the seats (``seats``), but a batch: each
        seat has its own copy of those, sealed, and never hears the spectators' one. It
        stands for the next heartbeat (see _beat) when every peer got it."""
        if seats and type_ != "events":
            self._events_at = self.now
            self._to_everyone(type_, body)
        elif self.spectators:
            self.sender.send(self.topics.events, type_, body)

    def _close_overdue_window(self) -> None:
        """A press is judged when it arrives: a window whose deadline has passed closes
        first, as if the timer had fired on time, so a Block arriving late is late."""
        race = self.race
        if race is None or race.closed is not None or self.now < race.deadline:
            return
        if not self._in_window():
            return
        arrived, self.now = self.now, race.deadline
        try:
            self._step(CloseBlockWindow(), None, None)
        finally:
            self.now = arrived

    # -- message handling -----------------------------------------------------------------

    def _drop(self, topic: str, reason: str) -> None:
        self.dropped.append(reason)
        log.info("dropped a message on %r: %s", topic, reason)

    def _receive(self, topic: str, payload: bytes) -> None:
        if topic == self.topics.announce:
            self._announce_seen(payload)
            return
        peer = self.topics.peer_of(topic)
        if peer is None:
            raise FrameError("message on a topic the host does not read")
        if not self.budgets.gate(peer, self._role(peer), self.now):
            return  # over budget: dropped before decoding (logged once per peer)
        # Only a peer's own ``out`` carries frames sealed to the host (its actions).
        opener = None if topic == self.topics.presence(peer) else self.identity
        frame = decode(payload, sender_id=peer, opener=opener)
        if frame.table != self.settings.table:
            raise FrameError(f"frame for table {frame.table!r}")
        if frame.sender_id != peer:
            raise FrameError("the sender's key does not match its topic")
        if topic == self.topics.presence(peer):
            if frame.type != "presence":
                raise FrameError(f"{frame.type!r} on a presence topic")
            online = required(frame.body, "online", bool)
            conn = key_bytes(frame.body, "conn", CONN_LEN)
            if online:
                self.presence_guard.check(frame, topic)
            # "offline" is taken in any order (the last will was signed at connect time,
            # before the "online" that followed it), but only for the seat's connection
            # now: a will of an earlier connection, replayed, says nothing (protocol 7).
            self._presence(frame.sender, online, conn, frame.seq)
            return
        self.guard.check(frame, topic)
        self._touch(frame.sender)
        if frame.type == "action":
            frame = self._signed_action(frame)
        elif frame.sealed and frame.type not in SEALED_TO_HOST:
            raise FrameError(f"a sealed {frame.type!r} (it travels signed)")
        name = _ON_OUTBOX.get(frame.type)
        if name is None:
            raise FrameError(f"unexpected message type {frame.type!r}")
        self._acting = frame.seq if frame.type == "action" else None
        try:
            getattr(self, name)(frame.sender, frame.body, frame.raw)
        finally:
            self._acting = None
        if frame.type == "join":
            joined = conn_of(frame.body)
            if joined is not None:
                self._note_conn(frame.sender, joined, frame.seq)

    def _note_conn(self, key: bytes, conn: bytes, seq: int) -> None:
        """A seat's connection, as its newest frame naming one says."""
        seat = self.seat_of(key)
        info = None if seat is None else self.seats[seat]
        if info is not None and seq > info.conn_seq and conn not in info.ended:
            info.conn, info.conn_seq = conn, seq

    def _signed_action(self, outer: Frame) -> Frame:
        """The player's signed action frame (the batch's proof), which travels sealed to
        the host: a refused action may name a card in the player's hand."""
        if not outer.sealed:
            raise FrameError("an action in the clear (actions travel sealed)")
        inner = decode(required(outer.body, "signed", bytes))
        if inner.sender != outer.sender or inner.table != outer.table or inner.type != "action":
            raise FrameError("a sealed action that is not the sender's own signed action")
        rejection = self._rejections.get(inner.sender, {}).get(inner.seq)
        if rejection is not None:
            # The player sent it again: the rejection it had was lost on its way.
            self.sender.send_sealed(self.topics.inbox(peer_id(inner.sender)), inner.sender,
                                    "rejected", rejection)
            raise FrameError("an action rejected already: its rejection sent again")
        # The inner frames have their own order: a resumed host knows them from the journal
        # (the proofs), so an old action sealed anew is still a replay.
        self.guard.check(inner, ACTION_ORDER)
        return inner

    def _role(self, peer: str) -> str:
        """Seat, spectator or stranger, by peer id (remembered until seats or spectators
        change: one lookup per frame, however many frames come)."""
        keys = tuple(info.key if info else None for info in self.seats)
        memo = self._roles
        if memo is None or memo[0] != keys or memo[1] != len(self.spectators):
            roles = {peer_id(key): budget.SPECTATOR for key in self.spectators}
            roles.update({peer_id(key): budget.SEAT for key in keys if key is not None})
            memo = self._roles = (keys, len(self.spectators), roles)
        return memo[2].get(peer, budget.STRANGER)

    def _afford(self, key: bytes, frames: float) -> bool:
        """May ``key`` have ``frames`` frames resent to it now (its work budget)?"""
        role = budget.SEAT if self.seat_of(key) is not None else budget.SPECTATOR
        return self.budgets.resend(peer_id(key), role, frames, self.now)

    def _touch(self, key: bytes) -> None:
        seat = self.seat_of(key)
        if seat is None and key in self.spectators:
            self._spectator_heard[key] = self.now
        if seat is not None:
            info = self.seats[seat]
            assert info is not None
            was_away = info.standin is not None or self._away(info)
            info.last_seen = self.now
            info.online = True
            info.offline_at = None
            info.standin = None
            if was_away:
                self._announce()

    def _presence(self, key: bytes, online: bool, conn: bytes, seq: int) -> None:
        seat = self.seat_of(key)
        if seat is None:
            return
        info = self.seats[seat]
        assert info is not None
        if online:
            if conn in info.ended:
                raise FrameError("an online of a connection whose will was taken")
            self._note_conn(key, conn, seq)
        else:
            # A will names the connection it was made for, and is signed as that connection
            # begins: one of a connection older than the newest the host knows is stale.
            if info.conn is not None and conn != info.conn and seq <= info.conn_seq:
                raise FrameError("an offline of an earlier connection (a stale will)")
            if conn not in info.ended:
                info.ended.append(conn)
        info.online = online
        if online:
            info.last_seen = self.now
            info.offline_at = None
        else:
            info.offline_at = self.now
        self._announce()

    def _heartbeat(self, key: bytes, body: dict[str, Any], raw: bytes) -> None:
        at = required(body, "at", int)
        if self.seat_of(key) is None and key not in self.spectators:
            raise FrameError("heartbeat from a peer that has not joined")
        if self.game is None:
            self._round_again(key)
            return
        if not self.over:
            if 0 <= at < len(self.batches):
                asked = self._history_asked.get(key)
                if asked is not None and self.now - asked < HISTORY_PATIENCE:
                    return  # catching up chunk by chunk: the next chunk is on its way
                sent = self._sent_at.get(at + 1)
                if sent is not None and self.now - sent < IN_FLIGHT:
                    return  # the beat crossed the batch on its way
                # The peer is behind and did not notice: send what it misses.
                self._resend(key, at + 1)
            return
        # The game is over and this peer has not said it verified: it may have missed the
        # last batches or the reveal (lost with a connection the broker dropped), and it
        # would wait for them for ever. Sent again at most every REVEAL_AGAIN seconds.
        sent = self._revealed_to.get(key)
        if self._who(key) in self.verdicts or (sent is not None and self.now - sent < REVEAL_AGAIN):
            return
        self._revealed_to[key] = self.now
        if 0 <= at < len(self.batches):
            self._resend(key, at + 1)  # the reveal follows the batches
        elif self._may_reveal(key) and self._afford(key, 1):
            self._reveal(to=self.topics.inbox(peer_id(key)))

    def _join(self, key: bytes, body: dict[str, Any], raw: bytes) -> None:
        name = player_name(body)
        if "entropy_commit" not in body and "entropy" in body:
            self.sender.send(self.topics.inbox(peer_id(key)), "refused", {
                "reason": "this table needs a newer sequence-stacks (its deal takes a "
                "commitment to your entropy, not the entropy itself)"})
            raise FrameError("a join with its entropy in the clear (an older client): "
                             "this host takes a commitment (entropy_commit)")
        commit = key_bytes(body, "entropy_commit")
        watch = required(body, "watch", bool)
        seat = self.seat_of(key)
        if not self.budgets.join(peer_id(key), self.now, seated=seat is not None):
            return
        inbox = self.topics.inbox(peer_id(key))
        at = optional(body, "at", int)
        if seat is not None and not watch:
            log.info("%s is back at seat %d", name, seat)
            info = self.seats[seat]
            if self.game is None and self.round.phase != REVEAL and info is not None:
                # A new process, new entropy: nothing revealed yet (a held seat is the
                # player's again: nobody reveals before the next reveal round lists it).
                self._commit(seat, info, commit)
            self._welcome(key, seat, at=at)
            self._announce()
            self._phase_done()  # it may have been the last commitment the phase waited for
            return
        password = self.settings.password
        if password is not None:
            sealed = optional(body, "password", bytes)
            given = b""
            if sealed is not None:
                try:
                    given = self.identity.open_from(key, sealed)
                except FrameError:
                    given = b""
            if not hmac.compare_digest(given, password.encode()):
                self.sender.send(inbox, "refused", {"reason": "wrong table password"})
                return
        if watch:
            if seat is not None:
                # One identity, one inbox: the seat's stream and a spectator's can't share it.
                self.sender.send(inbox, "refused", {
                    "reason": "this profile has a seat at the table: watch with another profile"
                })
                return
            if key not in self.spectators and \
                    len(self.spectators) >= self.budgets.limits.max_spectators:
                self.sender.send(inbox, "refused", {"reason": "too many spectators"})
                return
            self.spectators[key] = name
            self._welcome(key, None, at=at)
            return
        if self.game is not None:
            self.sender.send(inbox, "refused", {"reason": "the game has already started"})
            return
        free = next((s for s, info in enumerate(self.seats) if info is None), None)
        if free is None:
            self.sender.send(inbox, "refused", {"reason": "the table is full"})
            return
        self._seat(free, SeatInfo(name, key, b"", last_seen=self.now, commit=commit,
                                  joined=raw), None)
        log.info("%s takes seat %d", name, free)
        self._welcome(key, free)
        self._announce()
        self._seats_full()

    # -- commit, then reveal (netplay.entropy) ---------------------------------------------

    def _humans(self) -> set[Seat]:
        """The seats whose players reveal an entropy (a held seat's is the host's)."""
        return {s for s, info in enumerate(self.seats)
                if info is not None and not info.is_bot and not info.held}

    def _commit(self, seat: Seat, info: SeatInfo, commit: bytes) -> None:
        """A player's commitment, taken while nobody reveals (journaled)."""
        info.commit, info.held = commit, False
        info.entropy = b""
        self.round.waiting.discard(seat)
        self._journal({"t": "commit", "seat": seat, "commit": commit})

    def _drop_commitments(self) -> None:
        """The round is void: every player's entropy may have been seen, so all commit to
        fresh entropy before anyone reveals again (a held seat stays held)."""
        for other in self.seats:
            if other is not None and not other.is_bot and not other.held:
                other.commit, other.entropy = None, b""
        self.round.void()
        self.reveal_commits = None

    def _seats_full(self) -> None:
        """Every seat taken: collect fresh commitments where needed, then every reveal."""
        if self.game is not None or any(info is None for info in self.seats):
            return
        humans = self._humans()
        if not humans:
            self._start()
            return
        fresh = {s for s in humans if self.seats[s].commit is None}  # type: ignore[union-attr]
        if fresh:
            self.reveal_commits = None
            self.round.begin(COMMIT, fresh, self.now)
        elif all(self.seats[s].entropy for s in humans):  # type: ignore[union-attr]
            self._start()  # a resumed table whose reveals were all in
            return
        else:
            self.round.begin(REVEAL, humans, self.now)
        self._send_round()

    def _send_round(self) -> None:
        body = self._round_body()
        if self.round.phase == REVEAL and self.reveal_commits is None:
            # What the start must carry: no commitment changes once anyone can reveal.
            self.reveal_commits = body["commits"]
        self._send_events("entropy_round", body)

    def _round_body(self) -> dict[str, Any]:
        return {
            "round": self.round.number, "phase": self.round.phase,
            "commits": [info.commit if info else None for info in self.seats],
            "held": [s for s, info in enumerate(self.seats) if info is not None and info.held],
        }

    def _round_again(self, key: bytes) -> None:
        """A seat the deal's round waits for is still there (it beat): the round, or the
        seat's answer, may have been lost (a frame without a number: nothing else finds it
        missing, and the seat would lose its place when the round's time is up). The round
        goes again to that seat alone, on its own channel, at most every
        :data:`ROUND_AGAIN` seconds and not sooner than that after it went to everyone."""
        round_ = self.round
        seat = self.seat_of(key)
        if seat is None or seat not in round_.waiting or round_.phase is None \
                or round_.deadline is None:
            return
        if self.now - round_.again.get(seat, round_.began) < ROUND_AGAIN:
            return
        round_.again[seat] = self.now
        self.sender.send(self.topics.inbox(peer_id(key)), "entropy_round", self._round_body())

    def _entropy(self, key: bytes, body: dict[str, Any], raw: bytes) -> None:
        seat = self.seat_of(key)
        if seat is None:
            raise FrameError("entropy from a peer without a seat")
        info = self.seats[seat]
        assert info is not None
        round_ = self.round
        # A commit phase takes a commitment from any player (one whose rejoin committed
        # already, a held seat whose player is back): nobody reveals before it ends.
        if self.game is not None or required(body, "round", int) != round_.number \
                or (seat not in round_.waiting and round_.phase != COMMIT) \
                or round_.phase is None:
            raise FrameError("entropy for no round the host is in")
        if round_.phase == COMMIT:
            self._commit(seat, info, key_bytes(body, "commit"))
        else:
            entropy = key_bytes(body, "entropy")
            if info.commit is None or entropy_commitment(entropy) != info.commit:
                log.warning("%s (seat %d) revealed an entropy that is not the one it "
                            "committed to: the round is void", info.name, seat)
                self._unseat(seat, "the seat revealed an entropy it had not committed to")
                return
            info.entropy = entropy
            self._journal({"t": "reveal", "seat": seat, "entropy": entropy})
        round_.waiting.discard(seat)
        self._phase_done()

    def _phase_done(self) -> None:
        """Every commitment in: the reveal round; every reveal in: the deal."""
        round_ = self.round
        if round_.waiting or round_.phase is None or self.game is not None:
            return
        if round_.phase == COMMIT:
            round_.begin(REVEAL, self._humans(), self.now)
            self._send_round()
        else:
            round_.phase = round_.deadline = None
            self._start()

    def _round_timeout(self) -> None:
        late = sorted(self.round.waiting)
        what = "commit to" if self.round.phase == COMMIT else "reveal"
        away = [s for s in late if (info := self.seats[s]) is not None and self._away(info)]
        if away and len(away) == len(late) and self.round.phase == REVEAL:
            # A seat whose player is away is held: dealt without them, its entropy fixed by
            # the host's commitment like a bot's (commitment null in the start). Chosen now,
            # after the others revealed, it would be a choice made knowing their entropy:
            # the round is void, and the others commit afresh with the held seats fixed.
            self._journal({"t": "hold", "seats": away})
            self._hold(away)
            log.info("seats %s are away at the reveal: dealt without them; the others "
                     "commit to fresh entropy", away)
            self._seats_full()
            return
        for seat in late:
            self._unseat(seat, f"the seat did not {what} its entropy in time")
        if not late:
            self.round.deadline = None

    def _unseat(self, seat: Seat, why: str) -> None:
        """Free a seat that failed the deal's commit-then-reveal; the round is void: every
        other player commits to fresh entropy once the seat is taken again."""
        info = self.seats[seat]
        assert info is not None and info.key is not None
        self.seats[seat] = None
        self._journal({"t": "unseat", "seat": seat})
        self.sender.send(self.topics.inbox(peer_id(info.key)), "refused",
                         {"reason": f"you lost your seat before the deal: {why}"})
        self._send_events("unseated", {"seat": seat, "name": info.name, "why": why})
        self._drop_commitments()
        self._announce()

    def _hold(self, seats: Sequence[Seat]) -> None:
        """Hold ``seats`` (their players away at the reveal); the round is void."""
        for seat in seats:
            info = self.seats[seat]
            assert info is not None
            info.held, info.commit = True, None
            info.entropy = bot_entropy(self.secret, seat)
        self._drop_commitments()

    def facts(self) -> dict[str, Any]:
        """What every peer needs to follow and later verify the game."""
        seats = [info for info in self.seats if info is not None]
        return {
            "game": self.settings.game,
            "players": self.settings.players,
            "rules": self.settings.rules.to_wire(),
            "names": [info.name for info in seats],
            "keys": [info.key for info in seats],
            # Each player's signed join (their name's proof, kept in records); none at
            # all when one is missing (a table resumed from an older journal).
            "joins": None if any(info.key is not None and info.joined is None
                                 for info in seats) else [info.joined for info in seats],
            "entropies": [info.entropy for info in seats],
            "entropy_commits": [info.commit for info in seats],
            "commit": self.commit,
            "dealer": self.settings.dealer,
        }

    def _welcome(self, key: bytes, seat: Seat | None, *, at: int | None = None) -> None:
        """Welcome a peer; ``at`` is the last batch it says it applied (a peer that kept
        running while its host was away): it gets the batches after it, not a snapshot,
        so its history has no hole."""
        inbox = self.topics.inbox(peer_id(key))
        body: dict[str, Any] = {
            "seat": seat,
            "game": self.settings.game,
            "players": self.settings.players,
            "rules": self.settings.rules.to_wire(),
            "commit": self.commit,
            "status": self.status,
            "facts": self.facts() if self.game is not None else None,
            "batches": len(self.batches) if seat is not None else self.released,
        }
        self.sender.send(inbox, "welcome", body)
        if self.game is not None:
            if seat is None:
                # A spectator gets no snapshot: it asks for the history it lacks (from
                # batch 1, or after ``at``) chunk by chunk, so that it sees (and `watch
                # --headless` prints) every event once.
                pass
            elif at is not None and 0 < at <= len(self.batches):
                if at < len(self.batches):
                    self._resend(key, at + 1)  # a snapshot if that is too many
                elif self.over:
                    self._reveal(to=inbox)
                return
            else:
                self._snapshot(key, seat)
            if self._may_reveal(key):
                self._reveal(to=inbox)

    def _snapshot(self, key: bytes, seat: Seat | None) -> None:
        assert self.game is not None
        if not self._afford(key, SNAPSHOT_COST):
            return
        audience: Audience = SPECTATOR if seat is None else seat
        body = {
            "n": len(self.batches),
            "state": self.definition.state_to_wire(
                self.definition.view_for(self.game.state, audience)),
            "hash": self.definition.public_hash(self.game.state),
        }
        inbox = self.topics.inbox(peer_id(key))
        if seat is None:
            self.sender.send(inbox, "snapshot", body)
        else:
            self.sender.send_sealed(inbox, key, "snapshot", body)

    def _action(self, key: bytes, body: dict[str, Any], raw: bytes) -> None:
        seat = self.seat_of(key)
        if seat is None:
            raise FrameError("action from a peer without a seat")
        try:
            action = self.definition.action_from_wire(required(body, "action", dict))
        except MalformedError as exc:
            raise FrameError(f"malformed action: {exc}") from None
        if isinstance(action, CloseBlockWindow):
            raise FrameError("only the host closes a Block window")
        if action.seat != seat:
            raise FrameError(f"seat {seat} sent an action for seat {action.seat}")
        if self.game is None:
            self._reject(key, action, "the game has not started")
            return
        race = self.race
        at = required(body, "at", int)
        if isinstance(action, Block | PassBlock) and race is not None and race.closed is None \
                and at < race.opened_at:
            # Sent before this window opened: a press meant for an earlier window.
            self._reject(key, action, "that Block window has already closed")
            return
        self._step(action, raw, key)

    def _reject(self, key: bytes, action: AnyAction, reason: str) -> None:
        log.info("rejected %s: %s", action, reason)
        body = {"reason": reason, "action": action.to_wire()}
        if self._acting is not None:
            kept = self._rejections.setdefault(key, {})
            kept[self._acting] = body
            while len(kept) > KEPT_REJECTIONS:
                del kept[next(iter(kept))]
        # Sealed: a refused action may name a card in the player's hand.
        self.sender.send_sealed(self.topics.inbox(peer_id(key)), key, "rejected", body)

    def _resync(self, key: bytes, body: dict[str, Any], raw: bytes) -> None:
        start = required(body, "from", int)
        snapshot = required(body, "snapshot", bool)
        if self.game is None:
            return
        seat = self.seat_of(key)
        if seat is None and key not in self.spectators:
            raise FrameError("resync from a peer that has not joined")
        if body.get("start") is True:
            # Its start was lost: the facts first, on its own channel (a spectator had
            # them in its welcome, delay or not), then what it asked for.
            if not self._afford(key, 1):
                return
            self.sender.send(self.topics.inbox(peer_id(key)), "start", self.facts())
            if seat is None:
                self._history_asked[key] = self.now  # behind: the host waits for it at the end
        if snapshot:
            self._snapshot(key, seat)
            return
        catch_up = body.get("history") is True
        if catch_up:
            self._history_asked[key] = self.now
        self._resend(key, start, chunk=catch_up or seat is None)

    def _resend(self, key: bytes, start: int, *, chunk: bool = False) -> None:
        """Batches from ``start`` on. ``chunk``: at most :data:`MAX_RESEND` of them and never
        a snapshot (a catch-up: the peer asks for the next chunk when this one is in);
        otherwise all of them, or a snapshot when they are too many. A spectator always
        gets a chunk of ``history.CHUNK`` in bulk (:meth:`_send_history`)."""
        seat = self.seat_of(key)
        # A spectator never gets ahead of the spectator delay, resends included.
        total = len(self.batches) if seat is not None else self.released
        start = max(start, 1)
        if start > total:
            return
        if seat is None:
            self._send_history(key, start, min(total, start + history.CHUNK - 1))
            return
        end = total
        if chunk:
            end = min(total, start + MAX_RESEND - 1)
        elif total - start + 1 > MAX_RESEND and not self.over:
            self._snapshot(key, seat)
            return
        if not self._afford(key, end - start + 1):
            return
        inbox = self.topics.inbox(peer_id(key))
        for batch in self.batches[start - 1 : end]:
            if seat is None:
                self.sender.send(inbox, "events", batch.redacted_for(SPECTATOR).to_body())
            else:
                self.sender.send_sealed(inbox, key, "events", batch.redacted_for(seat).to_body())
        if self.over and end == len(self.batches) and self._may_reveal(key):
            self._reveal(to=inbox)  # it may have missed the reveal along with the batches

    def _send_history(self, key: bytes, start: int, end: int) -> None:
        """Batches ``start``..``end`` to a spectator in bulk (``history`` frames), if its
        byte budget affords them all (else nothing: it asks again)."""
        packed = self._copies.packed(self.batches, start, end)
        if not self.budgets.history_bytes(peer_id(key), sum(map(len, packed)), self.now):
            return
        inbox = self.topics.inbox(peer_id(key))
        for group in history.frames(packed):
            self.sender.send(inbox, "history", {"batches": group})
        if self.over and end == len(self.batches) and self._may_reveal(key):
            self._reveal(to=inbox)  # it may have missed the reveal along with the batches

    def _may_reveal(self, key: bytes) -> bool:
        """Whether the game's end (the reveal: outcome and secret) may go to ``key``: to a
        seat once the game is over, to a spectator once the delay released it."""
        return self.over and (self._public_over or self.seat_of(key) is not None)

    def _known_peer(self, key: bytes, what: str) -> Seat | None:
        seat = self.seat_of(key)
        if seat is None and key not in self.spectators:
            raise FrameError(f"{what} from a peer that has not joined")
        return seat

    def _desync(self, key: bytes, body: dict[str, Any], raw: bytes) -> None:
        self._known_peer(key, "desync report")
        log.warning(
            "desync reported by %s at batch %s: ours %s, theirs %s",
            peer_id(key), body.get("n"), body.get("ours"), body.get("theirs"),
        )
        # The peer follows its report with a resync asking for a snapshot: answer that one.

    def _who(self, key: bytes) -> str:
        """How :attr:`verdicts` names a peer: ``seat N`` or ``spectator NAME``."""
        seat = self.seat_of(key)
        return f"seat {seat}" if seat is not None else f"spectator {self.spectators.get(key, '?')}"

    def _verified(self, key: bytes, body: dict[str, Any], raw: bytes) -> None:
        self._known_peer(key, "verification")
        ok = required(body, "ok", bool)
        detail = required(body, "detail", str)[:300]
        who = self._who(key)
        if self.verdicts.get(who) != {"ok": ok, "detail": detail}:
            self._journal({"t": "verdict", "who": who, "ok": ok, "detail": detail})
        self.verdicts[who] = {"ok": ok, "detail": detail}

    # -- the game ------------------------------------------------------------------------

    def _start(self) -> None:
        facts = self.facts()
        if self.reveal_commits is None:
            # Nobody had to reveal (host bots and held seats, fixed by the secret), or a
            # resumed table whose reveals were all in: the seats' commitments are the
            # reveal round's (none changes once a reveal round lists it).
            self.reveal_commits = list(facts["entropy_commits"])
        # The deal depends on the seats as they are now (a driver may have set entropies).
        self._journal({"t": "start", "names": facts["names"], "keys": facts["keys"],
                       "entropies": facts["entropies"]})
        seed = deal_seed(self.secret, facts["entropies"])
        self.game = self.definition.new_game(
            self.settings.players, seed, self.settings.rules, self.settings.dealer
        )
        self._public("start", facts)
        self._publish(None, None, list(self.game.log))
        self._announce()

    def _in_window(self) -> bool:
        # Only Sequence Stacks has Block windows.
        return self.game is not None and isinstance(self.game.state, State) and (
            self.game.state.phase == Phase.BLOCK_WINDOW)

    def _step(
        self, action: AnyAction, proof: bytes | None, key: bytes | None, *,
        standin: bool = False
    ) -> bool:
        game = self.game
        assert game is not None
        race = self.race
        is_press = isinstance(action, Block | PassBlock)
        try:
            events = game.act(action)
        except IllegalActionError as exc:
            reason = str(exc)
            if is_press and race is not None:
                late = race.closed is not None
                result = "late" if late else "rejected"
                self._press(race, action, result)
                if late and isinstance(action, Block) and race.winner is not None:
                    reason = f"seat {race.winner} blocked first"
            if key is not None:
                self._reject(key, action, reason)
            return False
        if is_press and race is not None:
            result = "won" if isinstance(action, Block) else "passed"
            self._press(race, action, result)
        self._publish(action, proof, events, standin=standin)
        return True

    def _press(self, race: Race, action: AnyAction, result: str) -> None:
        kind = "block" if isinstance(action, Block) else "pass"
        race.presses.append(Press(action.seat, kind, (self.now - race.opened) * 1000.0, result))

    def _publish(
        self, action: AnyAction | None, proof: bytes | None, events: list[AnyEvent],
        *, standin: bool = False,
    ) -> None:
        game = self.game
        assert game is not None
        state = game.state
        batch = Batch(
            len(self.batches) + 1, action, proof, tuple(events),
            self.definition.public_hash(state), standin
        )
        self.batches.append(batch)
        self._note_waiting()
        self._sent_at[batch.n] = self.now
        self._sent_at.pop(batch.n - 64, None)  # only the last ones can be in flight
        self._journal(self._stamped({"t": "batch", "n": batch.n,
                       "action": None if action is None else action.to_wire(),
                       "proof": proof, "standin": standin, "hash": batch.hash}))
        # Every seat's own version of the batch, each sealed to it, in one frame on
        # ``table``: one publish (and one acknowledgement) an action, not one a seat.
        keys = [None if info is None else info.key for info in self.seats]
        if any(key is not None for key in keys):
            self.sender.send_boxes(self.topics.table_stream, keys, "events", [
                None if key is None else _batch_body(batch, seat)
                for seat, key in enumerate(keys)])
        if self.settings.spectator_delay > 0:
            self._public("events", batch.redacted_for(SPECTATOR).to_body())
        else:
            # Every seat got its copy: it stands for the next beat (as _send_events). The
            # spectators' copy only while there are any: one who comes later catches up.
            self._events_at = self.now
            if self.spectators:
                self.sender.send_later(self.topics.events, "events", functools.partial(
                    _batch_body, batch, SPECTATOR))
        self._track_window(events)
        if game.over:
            self.budgets.game_over(len(self.batches), self.now,
                                   self._copies.size(self.batches))
            self._reveal(to=self.topics.events)
            self._announce()
        self._sync_clock()

    # -- the public stream, maybe late -------------------------------------------------------

    def _public(self, type_: str, body: dict[str, Any]) -> None:
        """Publish on ``events``: at once, or ``spectator_delay`` seconds late. With a delay
        the seated players get what they need of it (start, race, reveal) on their own
        channel at once: only spectators wait."""
        delay = self.settings.spectator_delay
        if delay <= 0:
            self._send_events(type_, body)
            return
        if type_ in ("start", "race", "reveal"):
            for info in self.seats:
                if info is not None and info.key is not None:
                    self.sender.send(self.topics.inbox(peer_id(info.key)), type_, body)
        self._delayed.append((self.now + delay, type_, body))

    def _release(self) -> None:
        """Publish what the spectator delay held back and is now due."""
        delayed = self._delayed
        if not delayed or delayed[0][0] > self.now:
            return
        while delayed and delayed[0][0] <= self.now:
            _, type_, body = delayed.popleft()
            self._send_events(type_, body, seats=False)  # they had theirs at once
            if type_ == "events":
                self._released = max(self._released, int(body["n"]))
            elif type_ == "reveal":
                self._public_over = True
        if self.over and not delayed:
            self._announce()  # spectators have seen the end: no longer catching up

    def _track_window(self, events: list[AnyEvent]) -> None:
        state = self.game.state if self.game else None
        assert state is not None
        if not isinstance(state, State):
            return  # no Block windows in this game
        race = self.race
        if race is not None and race.closed is None and state.phase != Phase.BLOCK_WINDOW:
            race.closed = self.now
            for event in events:
                if isinstance(event, PileBlocked):
                    race.winner = event.seat
            self.races.append(race)
            self._journal(self._stamped({"t": "race", "race": race.to_body()}))
        if state.phase == Phase.BLOCK_WINDOW and state.window is not None and (
            race is None or race.closed is not None
        ):
            if race is not None and race.closed is not None:
                self._public("race", race.to_body())
            self.race = Race(
                state.window.pile.id, self.now, self.now + self.settings.block_window,
                len(self.batches),
            )

    def _reveal(self, to: str) -> None:
        assert self.game is not None and self.game.outcome is not None
        outcome = self.game.outcome
        body = {
            "secret": self.secret,
            "termination": int(outcome.termination),
            "winner": outcome.winner,
            "total": len(self.batches),
        }
        if to == self.topics.events:
            self._public("reveal", body)
            if self.settings.spectator_delay <= 0:
                self._public_over = True
        else:
            self.sender.send(to, "reveal", body)

    # -- bots and stand-ins --------------------------------------------------------------

    def _deciders(self) -> list[Seat]:
        """Seats whose decision the engine is waiting for now."""
        game = self.game
        if game is None or game.over:
            return []
        return self.definition.to_move(game.state)

    def _host_bot(self, seat: Seat) -> TableBot | None:
        info = self.seats[seat]
        if info is None:
            return None
        bot = info.bot or info.standin
        if bot is None and self._timed_out is not None and self._timed_out == self.clock.turn \
                and self._timed_out[1] == seat and not self._in_window():
            if self._clock_bot is None:
                self._clock_bot = self.definition.bot(self.settings.standin, None)
            bot = self._clock_bot
        return bot

    # -- the turn clock and who the table waits for ----------------------------------------

    def _sync_clock(self) -> None:
        game = self.game
        if not self.clock.on:
            return
        if game is None or game.over:
            self.clock.sync(None, False, self.now)
            return
        state = game.state
        seat: Seat = state.current
        info = self.seats[seat]
        window = self._in_window()
        human = info is not None and not info.is_bot
        turn = None if window else (int(state.turn), seat)
        running = human and not window and (info is None or info.standin is None)
        self.clock.sync(turn, running, self.now)

    def waits(self) -> list[Wait]:
        """The seated players the table waits for now, with how long (for everyone)."""
        game = self.game
        if game is None or game.over:
            return []
        self._sync_clock()
        out: list[Wait] = []
        race = self.race
        for seat in self._deciders():
            info = self.seats[seat]
            if info is None or info.is_bot:
                continue
            away = self.now - info.last_seen if self._away(info) else None
            if self._in_window():
                left = None if race is None else max(0.0, race.deadline - self.now)
                out.append(Wait(seat, away, None, left))
                continue
            dues = []
            if info.standin is not None or (
                    self._timed_out is not None and self._timed_out == self.clock.turn):
                dues.append(self.now)
            standin = self._standin_due()
            if standin is not None and away is not None:
                dues.append(standin)
            clock = self.clock.due()
            if clock is not None:
                dues.append(clock)
            bot_in = max(0.0, min(dues) - self.now) if dues else None
            out.append(Wait(seat, away, bot_in, self.clock.remaining(self.now)))
        return out

    def _schedule_bots(self) -> None:
        if self._bot_at is not None or self._thinking is not None:
            return
        if any(self._host_bot(seat) is not None for seat in self._deciders()):
            self._bot_at = self.now + self.settings.bot_delay

    def _run_bot(self) -> None:
        for seat in self._deciders():
            bot = self._host_bot(seat)
            if bot is not None:
                self._bot_act(seat, bot)
                return

    def _bot_act(self, seat: Seat, bot: TableBot) -> None:
        assert self.game is not None
        info = self.seats[seat]
        view = self.definition.view_for(self.game.state, seat)
        legal = self.definition.legal_actions(view, seat)
        if legal:
            standin = info is not None and not info.is_bot
            if self.offload and searches(bot):
                self._bot_turn = self._thinking = BotTurn(
                    seat, bot, view, legal, standin, len(self.batches))
                return
            self._step(bot.choose(view, seat, legal), None, None, standin=standin)

    def take_bot_turn(self) -> BotTurn | None:
        """The host bot's decision the driver is to make now (with :attr:`offload`), once."""
        turn, self._bot_turn = self._bot_turn, None
        return turn

    def bot_decided(self, turn: BotTurn, action: Any, now: float) -> bool:
        """The driver's answer to :meth:`take_bot_turn`. Played if the table is still
        where it was when the bot was asked (nothing was published since, and the same bot
        still plays that seat); else dropped, and the bot is asked again. ``action`` is
        ``None`` when the bot failed: the seat's first legal action is played instead."""
        self.now = now
        if turn is not self._thinking:
            return False
        self._thinking = None
        played = False
        game = self.game
        if game is not None and not game.over and len(self.batches) == turn.at \
                and turn.seat in self._deciders() and self._host_bot(turn.seat) is turn.bot:
            played = self._step(turn.legal[0] if action is None else action, None, None,
                                standin=turn.standin)
        self._schedule_bots()
        return played

    def _away(self, info: SeatInfo) -> bool:
        return not info.online or self.now > self._away_from(info)

    def _away_from(self, info: SeatInfo) -> float:
        """When a seat counts as away if nothing more is heard from it (protocol 8): with no
        game going (the deal's rounds), ``away_after`` after its last frame; in a game, a
        seat the table waits for ``away_after`` after the later of its last frame and the
        moment the waiting began (it beats every 4 s from then on), any other seat, and
        every seat once the game is over, ``idle_away_after`` after its last frame (it
        beats every 8 s)."""
        settings = self.settings
        game = self.game
        if game is None:
            return info.last_seen + settings.away_after
        if game.over:
            return info.last_seen + settings.idle_away_after
        seat = next(seat for seat, held in enumerate(self.seats) if held is info)
        if seat in self._deciders():
            since = self._waiting_since.setdefault(seat, self.now)
            return max(info.last_seen, since) + settings.away_after
        return info.last_seen + settings.idle_away_after

    def _note_waiting(self) -> None:
        """After the game moved: the seats it now waits for keep the moment it began to wait
        for them, or take this one (see :meth:`_away_from`)."""
        since = self._waiting_since
        self._waiting_since = {seat: since.get(seat, self.now) for seat in self._deciders()}

    def _standin_due(self) -> float | None:
        """When a stand-in bot takes the current player's turn, if that player stays away."""
        game = self.game
        if game is None or game.over or self._in_window():
            return None
        current: Seat = game.state.current
        info = self.seats[current]
        if info is None or info.is_bot or info.standin is not None:
            return None
        away_from = self._away_from(info)
        if not info.online and info.offline_at is not None:
            away_from = min(away_from, info.offline_at)
        return away_from + self.settings.grace

    def _run_standin(self) -> None:
        assert self.game is not None
        seat = self.game.state.current
        info = self.seats[seat]
        if info is None or info.is_bot or not self._away(info):
            return
        log.info("%s is away: a bot plays seat %d until they are back", info.name, seat)
        info.standin = self.definition.bot(self.settings.standin, None)
        self._announce()

    # -- the journal -----------------------------------------------------------------------

    def _journal(self, entry: Entry) -> None:
        self.journal.append(entry)
        if self.on_journal is not None:
            self.on_journal()

    def _stamped(self, entry: Entry) -> Entry:
        """``entry`` with the wall time it went to the players (``at``), when known."""
        if self.wall_offset is not None:
            entry["at"] = round(self.now + self.wall_offset, 3)
        return entry

    def hold_back(self, wall: float) -> None:
        """A resumed host keeps the spectator delay: what its journal says went to the
        players less than the delay before ``wall`` (the wall clock now) is held back
        again, released when it is due, in order, and the game's end after it. Journals
        without times release everything at once (as it was published before)."""
        delay = self.settings.spectator_delay
        if delay <= 0 or not self.resumed or self.game is None:
            return
        held: list[tuple[float, str, dict[str, Any]]] = []
        due_last = self.now
        first: int | None = None
        for kind, value, at in self._journaled:
            if first is None:
                if kind != "batch" or at is None or at + delay <= wall:
                    continue
                first = int(value)
            # From the first batch not due yet on, everything waits its turn, in order.
            if at is not None:
                due_last = max(due_last, self.now + min(delay, at + delay - wall))
            if kind == "batch":
                batch = self.batches[int(value) - 1]
                if batch.n == 1:
                    held.append((due_last, "start", self.facts()))
                held.append((due_last, "events", batch.redacted_for(SPECTATOR).to_body()))
            else:
                held.append((due_last, "race", value))
        if first is None:
            return
        if self.over:
            assert self.game.outcome is not None
            outcome = self.game.outcome
            held.append((due_last, "reveal", {
                "secret": self.secret, "termination": int(outcome.termination),
                "winner": outcome.winner, "total": len(self.batches)}))
            self._public_over = False
        self._delayed.extend(held)
        self._restored = first - 1
        log.info("table %s: batches %d-%d held back again for spectators (delay %g s)",
                 self.settings.table, first, len(self.batches), delay)
        self._announce()

    def _seat(self, seat: Seat, info: SeatInfo, strategy: str | None) -> None:
        self.seats[seat] = info
        self._journal({"t": "seat", "seat": seat, "name": info.name, "key": info.key,
                       "entropy": info.entropy, "commit": info.commit, "bot": strategy,
                       "join": info.joined})

    def _restore_round(self, entry: Entry) -> None:
        """A commitment, a reveal, a lost seat or held ones, as journaled
        (``netplay.entropy``)."""
        if entry["t"] == "hold":
            seats = entry["seats"]
            if not isinstance(seats, list) or not seats or any(
                    type(s) is not int or not 0 <= s < len(self.seats)
                    or (info := self.seats[s]) is None or info.is_bot for s in seats):
                raise JournalError(f"a hold of seats {seats!r}, not all held by players")
            self._hold(seats)
            return
        seat = entry["seat"]
        info = self.seats[seat]
        if info is None:
            raise JournalError(f"a {entry['t']} of seat {seat}, which nobody holds")
        if entry["t"] == "commit":
            if entry["commit"] is None:
                # An older host dealt an away seat so straight away (now: a "hold" entry).
                info.held, info.commit = True, None
                info.entropy = bot_entropy(self.secret, seat)
            else:
                info.commit, info.held, info.entropy = entry["commit"], False, b""
        elif entry["t"] == "reveal":
            if info.commit is None or entropy_commitment(entry["entropy"]) != info.commit:
                raise JournalError(f"seat {seat}'s journaled reveal breaks its commitment")
            info.entropy = entry["entropy"]
        else:
            self.seats[seat] = None
            self._drop_commitments()

    def _restore(self, entries: Sequence[Entry]) -> None:
        """Seats, game and races from a journal: every batch is replayed through the
        engine and must give the hash it was published with."""
        try:
            self._restore_entries(entries)
        except JournalError:
            raise
        except (KeyError, TypeError, ValueError, IndexError, EngineError) as exc:
            raise JournalError(f"the journal does not replay: {exc!r}") from None

    def _restore_entries(self, entries: Sequence[Entry]) -> None:
        players = self.settings.players
        started: Entry | None = None
        batches: list[Entry] = []
        for entry in entries:
            kind = entry["t"]
            if kind == "seat":
                seat = entry["seat"]
                if not 0 <= seat < players:
                    raise JournalError(f"a seat {seat} at a table of {players}")
                strategy = entry.get("bot")
                self.seats[seat] = SeatInfo(
                    entry["name"], entry["key"], entry["entropy"], last_seen=self.now,
                    bot=None if strategy is None
                    else self.definition.make_bot(strategy, os.urandom(16)),
                    commit=entry.get("commit"), joined=entry.get("join"),
                )
            elif kind in ("commit", "reveal", "unseat", "hold"):
                self._restore_round(entry)
            elif kind == "start":
                started = entry
            elif kind == "batch":
                batches.append(entry)
                self._journaled.append(("batch", entry["n"], _stamp(entry)))
            elif kind == "race":
                self.races.append(_race_from_body(entry["race"]))
                self._journaled.append(("race", entry["race"], _stamp(entry)))
            elif kind == "verdict":
                self.verdicts[entry["who"]] = {"ok": entry["ok"], "detail": entry["detail"]}
        if started is None:
            if batches:
                raise JournalError("the journal has batches but no start")
            return
        for seat, (name, key, entropy) in enumerate(
            zip(started["names"], started["keys"], started["entropies"], strict=True)
        ):
            info = self.seats[seat]
            if info is None or info.key != key:
                raise JournalError(f"seat {seat} at the start is not the seat that joined")
            info.name, info.entropy = name, entropy
        # The commitments can't have changed since the reveal round: it listed the seats'.
        self.reveal_commits = [info.commit if info else None for info in self.seats]
        seed = deal_seed(self.secret, [info.entropy for info in self.seats if info])
        game = self.definition.new_game(players, seed, self.settings.rules, self.settings.dealer)
        self.game = game
        for n, entry in enumerate(batches, start=1):
            if entry["n"] != n:
                raise JournalError(f"batch {entry['n']} where batch {n} belongs")
            wire = entry["action"]
            action = None if wire is None else self.definition.action_from_wire(wire)
            if (action is None) != (n == 1):
                raise JournalError(f"batch {n}: only the deal has no action")
            events = list(game.log) if action is None else game.act(action)
            digest = self.definition.public_hash(game.state)
            if digest != entry["hash"]:
                raise JournalError(f"batch {n} replays to another hash than it was "
                                   "published with")
            self.batches.append(Batch(n, action, entry["proof"], tuple(events), digest,
                                      bool(entry["standin"])))
            if entry["proof"] is not None:
                with contextlib.suppress(FrameError):
                    self.guard.check(decode(entry["proof"]), ACTION_ORDER)
        state = game.state
        if self._in_window() and state.window is not None:
            # The window's clock died with the old process: it opens again, whole.
            self.race = Race(state.window.pile.id, self.now,
                             self.now + self.settings.block_window, len(self.batches))
        log.info("table %s resumed at batch %d", self.settings.table, len(self.batches))

    # -- announcements and the record -----------------------------------------------------

    def _announce(self) -> None:
        seats: list[dict[str, Any] | None] = []
        for info in self.seats:
            if info is None:
                seats.append(None)
            else:
                seats.append(
                    {
                        "name": info.name,
                        "key": info.key,
                        "bot": info.is_bot,
                        "present": info.is_bot or not self._away(info),
                        "standin": info.standin is not None,
                    }
                )
        body = {
            "name": self.settings.title or self.settings.table,
            "game": GAME_NAME,
            "variant": self.settings.game,
            "protocol": TABLE_PROTOCOL,
            "host": self.identity.key,
            "conn": self.conn,
            "boot": self.boot,
            "players": self.settings.players,
            "seats": seats,
            "status": "closed" if self.closed else self.status,
            "commit": self.commit,
            "password": self.settings.password is not None,
            "block_window": self.settings.block_window,
            "turn_clock": self.settings.turn_clock,
            "spectator_delay": self.settings.spectator_delay,
            "rules": self.settings.rules.to_wire(),
        }
        if self.catching_up and not self.closed:
            body["catching_up"] = True  # over for the players; spectators not there yet
        self._announced_conn = self.conn
        self.watch.sent(self.sender.send(self.topics.announce, "announce", body, retain=True))

    def _announce_seen(self, payload: bytes) -> None:
        """Anything but our own announcement on our announce topic is put right at once;
        the players hear when someone else tried to speak for the table."""
        intrusion = self.watch.seen(payload)
        if intrusion is None:
            return
        self._restore_announcement()
        if not intrusion.warn:
            return
        self.watch.intrusions += 1
        self.watch.unwarned += 1
        if self.watch.may_warn(self.now):
            log.warning("someone else wrote on the announcement of table %s: %s; restored",
                        self.settings.table, intrusion.what)
            self._send_events("impostor", {
                "what": intrusion.what, "key": intrusion.key, "count": self.watch.unwarned,
            })
            self.watch.unwarned = 0

    def _restore_announcement(self) -> None:
        current = self.watch.current
        if current is not None and self.watch.may_restore(self.now):
            self.sender.outbox.append(Outgoing(self.topics.announce, current, retain=True))

    def close_table(self) -> None:
        """Take the table off the list with a signed ``closed`` announcement (retained: it
        stays on the broker as the table's last word; an empty payload would be unsigned)."""
        self.closed = True
        self._announce()

    def _answer_listing(self, payload: bytes) -> None:
        """A lister asks which tables are live: answer with the current announcement."""
        reply = query_reply_topic(payload)
        current = self.watch.current
        if reply is None or current is None or self.closed:
            return
        if self._answers.take(self.now):
            self.sender.outbox.append(Outgoing(reply, current))

    def record(self) -> dict[str, Any]:
        """Everything needed to re-check the game offline (see ``netplay.record``)."""
        facts = self.facts()
        outcome = self.game.outcome if self.game else None
        return {
            "format": "sequence-stacks-record",
            "version": 1,
            "table": self.settings.table,
            "game": self.settings.game,
            "host": self.identity.key,
            "players": facts["players"],
            "rules": facts["rules"],
            "names": facts["names"],
            "keys": facts["keys"],
            "joins": facts["joins"],
            "entropies": facts["entropies"],
            "entropy_commits": facts["entropy_commits"],
            "reveal_commits": self.reveal_commits,
            "dealer": facts["dealer"],
            "commit": self.commit,
            "secret": self.secret if self.over else None,
            "batches": [b.to_body() for b in self.batches],
            "races": [r.to_body() for r in self.races],
            "outcome": None
            if outcome is None
            else {"termination": int(outcome.termination), "winner": outcome.winner},
            "verdicts": dict(self.verdicts),
        }

