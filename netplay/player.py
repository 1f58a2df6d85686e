"""A player's or spectator's session: a pure state machine, like the host's.

It joins a table, keeps its own view in step with the host's batches, sends signed
actions, and checks the fair deal when the host reveals its secret. Each concern is a
small collaborator of its own (``netplay.playing``) that the session owns and wires:
the join (:class:`Joining`), the followed host (:class:`HostFollowing`), its own
heartbeats (:class:`OwnBeats`), the batch follower (:class:`Follower`), the actions
awaiting an answer (:class:`PendingActions`), the deal check (:class:`DealCheck`), the
end-of-game check (:class:`Verification`), the host's liveness (:class:`HostLiveness`),
chat (:class:`ChatFilter`), its own presence (:class:`OwnPresence`) and whom the table
waits for (:class:`TableWaits`). What happens is reported as notices
(``netplay.playing.notices``).
"""

from __future__ import annotations

import logging
from typing import Any, Protocol

from engine.games import AnyAction, GameDef
from engine.state import SPECTATOR, Audience, Seat, State
from netplay.batch import Batch
from netplay.clock import Wait
from netplay.codec import ReplayGuard, decode
from netplay.errors import FrameError
from netplay.hosts import HostTrust, split_pin
from netplay.identity import Identity
from netplay.messages import (
    MAX_CHAT,
    clean_text,
    optional,
    required,
)
from netplay.playing.beats import HEARTBEAT, OwnBeats
from netplay.playing.chat import ChatFilter
from netplay.playing.deal_check import DealCheck
from netplay.playing.follower import Follower
from netplay.playing.following import HostFollowing, epoch_of
from netplay.playing.joining import SETTLE, Joining
from netplay.playing.liveness import HostLiveness
from netplay.playing.notices import (
    GameStarted,
    Impostor,
    Joined,
    Notice,
    RaceResult,
    Refused,
    Rejected,
    Unseated,
)
from netplay.playing.pending_actions import PendingActions
from netplay.playing.presence import OwnPresence
from netplay.playing.verification import Verification
from netplay.playing.waits import TableWaits
from netplay.topics import Topics
from netplay.verify import GameFacts, Verdict
from netplay.wire import Outgoing, Sender

log = logging.getLogger("netplay.player")

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


class Timer(Protocol):
    """A collaborator that keeps a timer: when it is next due, and its turn then."""

    def next_deadline(self, now: float) -> float | None: ...
    def tick(self, now: float) -> None: ...


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
        self.reads_chat = True
        """Whether the peer subscribes to chat (a bot shows it nobody: a chat flood then
        costs it nothing)."""
        self.identity = identity
        self.topics = Topics(table)
        self.table = table
        self.name = name
        self.watch = watch
        self.password = password
        self.sender = Sender(identity, table)
        self.guard = ReplayGuard()
        self.now = now
        self.joined = False
        self.seat: Seat | None = None
        self.bot_level: str | None = None
        """A bot peer's level: its join says so (signed), and its games are rated as the
        level's (one identity per level, whatever key its table gave it)."""
        self.plain = False
        """This seat is played in plain mode (read by a screen reader): its join says so
        (``plain``), and the host may give the table a longer Block window."""
        self.games: frozenset[str] | None = None
        """The games this peer can play (``None``: every game of the engine); at a table
        of another game it reports :class:`Refused` and does not join."""
        self.notices: list[Notice] = []
        self.dropped: list[str] = []
        self._round_before_welcome: dict[str, Any] | None = None
        """An entropy round heard before our welcome (see ``_entropy_round``)."""
        # -- the collaborators, each found by what it does:
        self.presence = OwnPresence(self.sender, self.topics.presence(identity.peer_id))
        self.table_waits = TableWaits(now)
        self.chat_filter = ChatFilter()
        self.joining = Joining(self, settle=settle, send_join=self._send_join)
        self.actions = PendingActions(table, self._resend_action)
        self.follower = Follower(
            table, self, to_host=self.to_host, report=self._send_signed, tell=self._tell,
            actions=self.actions, on_progress=lambda now: self.beats.progressed(now),
            on_kept=lambda now: self.verification.retry(now))
        self.beats = OwnBeats(self, self.follower, now, send=self._beat,
                              every=heartbeat, idle_every=idle_heartbeat)
        self.deal = DealCheck(table, self._send_signed)
        self.verification = Verification(self.follower, self.deal, to_host=self.to_host,
                                         tell=self._tell)
        self.liveness = HostLiveness(table, self._tell)
        self.following = HostFollowing(
            table, HostTrust(pin or pinned, remembered=remembered), self,
            follower=self.follower, liveness=self.liveness, joining=self.joining,
            tell=self._tell)
        self._timers: tuple[Timer, ...] = (self.joining, self.beats, self.follower,
                                           self.actions, self.verification, self.liveness)
        """Every collaborator that keeps a timer, in the order :meth:`tick` asks them."""

    # -- what the collaborators hold, by the names the driver and the interfaces use -------
    # (each documented where it is held)

    @property
    def waits(self) -> tuple[float, list[Wait]]:
        return self.table_waits.said

    @property
    def conn(self) -> bytes:
        return self.presence.conn

    @property
    def trust(self) -> HostTrust:
        return self.following.trust

    @property
    def host_key(self) -> bytes | None:
        return self.following.host_key

    @property
    def announce(self) -> dict[str, Any] | None:
        return self.following.announce

    @property
    def host_over(self) -> bool:
        return self.following.host_over

    @property
    def definition(self) -> GameDef[Any, Any, Any, Any]:
        return self.follower.definition

    @property
    def view(self) -> State | None:
        return self.follower.view

    @property
    def applied(self) -> int:
        return self.follower.applied

    @property
    def known(self) -> int:
        return self.follower.known

    @property
    def received(self) -> dict[int, Batch]:
        return self.follower.received

    @property
    def facts(self) -> GameFacts | None:
        return self.follower.facts

    @property
    def names(self) -> tuple[str, ...]:
        return self.follower.names

    @property
    def joins(self) -> list[bytes | None] | None:
        """The players' signed joins, as the host's facts give them (a seat's record
        keeps them: its names' proof)."""
        return self.follower.joins

    @property
    def entropy(self) -> bytes:
        return self.deal.entropy

    @entropy.setter
    def entropy(self, value: bytes) -> None:
        self.deal.entropy = value

    @property
    def secret(self) -> bytes | None:
        return self.verification.secret

    @property
    def verdict(self) -> Verdict | None:
        return self.verification.verdict

    @property
    def host_heard(self) -> float | None:
        return self.liveness.heard_at

    @property
    def host_offline_at(self) -> float | None:
        return self.liveness.offline_at

    @property
    def host_offline(self) -> bool:
        return self.liveness.offline

    @property
    def resting(self) -> bool:
        return self.liveness.resting

    @property
    def closed(self) -> bool:
        return self.liveness.closed

    @property
    def host_silent_limit(self) -> float:
        return self.liveness.silent_limit

    def host_silent_for(self, now: float) -> float | None:
        return self.liveness.silent_for(now)

    def host_late_for(self, now: float) -> float | None:
        return self.liveness.late_for(now)

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
        connection attempt (:meth:`OwnPresence.last_will`)."""
        return self.presence.last_will()

    def start(self, now: float) -> None:
        self.now = now
        self.connected(now)
        if self.announce is not None and self.joining.may_join(now):
            self._send_join()

    def connected(self, now: float) -> None:
        """The peer (re)connected: it is online on this connection (said once each)."""
        self.now = now
        self.presence.connected()

    def leave(self) -> None:
        self.presence.leave()

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
        return self.table_waits.now_waiting(now, self.view, self.applied)

    @property
    def spectator_delay(self) -> float:
        return self.following.spectator_delay

    def next_deadline(self) -> float:
        """When :meth:`tick` next has something to do: never a time it would let pass
        without doing it (the driver would wake again at once, and again)."""
        times = (part.next_deadline(self.now) for part in self._timers)
        return min((t for t in times if t is not None), default=float("inf"))

    def tick(self, now: float) -> None:
        self.now = now
        for part in self._timers:
            part.tick(now)

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
        self.actions.sent(signed, self.now)
        self.beats.acted(self.now)

    def _resend_action(self, signed: bytes) -> bool:
        """An unanswered action's signed frame goes again, sealed anew (``False``: no host
        to send it to)."""
        if self.host_key is None:
            return False
        self.sender.send_sealed(self.topics.outbox(self.peer_id), self.host_key, "action",
                                {"signed": signed})
        return True

    def chat(self, text: str) -> None:
        text = clean_text(text, MAX_CHAT)
        if text:
            self.sender.send(self.topics.chat, "chat", {"text": text, "name": self.name}, qos=0)

    def to_host(self, type_: str, body: dict[str, Any], *, qos: int = 1) -> None:
        """A frame for the host alone on our ``out``: sealed to it once we know its key
        (its box vouches for us, at a fraction of a signature's cost on both ends), else
        signed."""
        topic = self.topics.outbox(self.peer_id)
        if self.host_key is None:
            self.sender.send(topic, type_, body, qos=qos)
        else:
            self.sender.send_sealed(topic, self.host_key, type_, body, qos=qos)

    def _send_signed(self, type_: str, body: dict[str, Any]) -> None:
        """A frame on our ``out``, signed and unsealed (the deal's rounds, a desync's
        report)."""
        self.sender.send(self.topics.outbox(self.peer_id), type_, body)

    def _beat(self, body: dict[str, Any]) -> None:
        self.to_host("heartbeat", body, qos=0)

    def _tell(self, notice: Notice) -> None:
        self.notices.append(notice)

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
        self.follower.note_start(now)

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
                self.following.will(frame.sender, frame.seq, frame.body, self.now)
                return
            if frame.type != "announce":
                raise FrameError("not an announcement")
            self.following.announced(frame.sender, frame.seq, frame.body, self.now)
            return
        if self.host_key is None or frame.sender != self.host_key:
            raise FrameError("a frame not from this table's host")
        if epoch_of(frame.body) < self.following.epoch:
            raise FrameError(f"a frame of the host's epoch {epoch_of(frame.body)}, older than "
                             f"{self.following.epoch} (a server that lost the table)")
        if boxes and frame.type == "heartbeat" and not frame.sealed:
            # Since protocol 6 the host beats to its seats in a box each.
            raise FrameError("a signed heartbeat on the seats' stream (an older host's)")
        self.guard.check(frame, topic)
        self.liveness.heard(self.now)
        body = frame.body
        kind = frame.type
        if inbox:
            self.beats.answered(self.now)
            if kind in ("events", "snapshot") and self.seat is not None and not frame.sealed:
                raise FrameError(f"an unsealed {kind!r} for a seated player")
            name = _ON_INBOX.get(kind)
        elif topic == self._stream:
            if frame.sealed:
                if kind == "events":
                    self.beats.answered(self.now)  # our own copy of a batch: the host hears us
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
        line = self.chat_filter.line(frame, self.now, facts=self.facts, names=self.names,
                                     announce=self.announce, host_key=self.host_key)
        if line is not None:
            self._tell(line)

    def follow(self, key: bytes) -> None:
        """Follow one of the host keys that claimed this table, and it only (the user chose
        it after ``HostsDisagree``). Only before being welcomed: a seat belongs to its
        host."""
        self.following.follow(key, self.now)

    # -- joining ---------------------------------------------------------------------------

    def _send_join(self) -> None:
        assert self.host_key is not None
        password = None
        if self.password is not None:
            password = self.identity.seal_for(self.host_key, self.password.encode())
        commitment = self.deal.join_commitment(dealt=self.facts is not None)
        self.sender.send(
            self.topics.outbox(self.peer_id), "join",
            {"name": self.name, "entropy_commit": commitment,
             "password": password, "watch": self.watch, "at": self.applied,
             "conn": self.conn, **({"bot": self.bot_level} if self.bot_level else {}),
             **({"plain": True} if self.plain and not self.watch else {})},
        )
        self.joining.sent(self.now)

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
        self.joining.welcomed()
        self.liveness.welcomed(self.now)  # it beats to us from now on
        self.actions.welcomed(self.now)  # what the host before it never answered
        facts = optional(body, "facts", dict)
        had_facts = self.facts is not None
        if facts is not None:
            self._take_facts(facts)
        self._tell(Joined(seat))
        early, self._round_before_welcome = self._round_before_welcome, None
        if early is not None and seat is not None:
            self._entropy_round(early)
        if facts is not None and not had_facts:
            # Welcomed into a game already dealt: it has started, for this peer too.
            self._tell(GameStarted(self.names))
        follower = self.follower
        batches = body.get("batches")
        if type(batches) is int and batches >= 0:
            follower.known = max(follower.known, batches)
        if facts is not None and self.watch:
            # A spectator follows the game from its first batch, however late it comes.
            follower.known = max(follower.known, 1)
            follower.catch_up(self.now)

    def _refused(self, body: dict[str, Any]) -> None:
        reason = clean_text(required(body, "reason", str), 200)
        self._tell(Refused(reason))
        self.joining.refused()

    # -- the deal --------------------------------------------------------------------------

    def _take_facts(self, body: dict[str, Any]) -> None:
        """The game's facts: the follower's view begins from them, and the deal check
        holds them to what this seat revealed and heard."""
        self.deal.check_start(self.follower.take_facts(body), self.seat)

    def _start(self, body: dict[str, Any]) -> None:
        if self.facts is None:
            self._take_facts(body)
            self._tell(GameStarted(self.names))
            self.follower.drain(self.now)

    def _entropy_round(self, body: dict[str, Any]) -> None:
        """Commit to fresh entropy, or reveal the committed one (:class:`DealCheck`)."""
        if not self.joined and not self.watch:
            # MQTT orders messages per topic only: the round (events topic) may overtake
            # our welcome (inbox topic), as it does on NATS. Answer it once welcomed.
            self._round_before_welcome = body
            return
        if self.facts is not None:
            return
        self.deal.round(body, self.seat)

    def _unseated(self, body: dict[str, Any]) -> None:
        seat = required(body, "seat", int)
        name = clean_text(required(body, "name", str), 24)
        why = clean_text(required(body, "why", str), 200)
        self._tell(Unseated(seat, name, why))
        self.deal.seat_lost()

    # -- batches and the host's beats ----------------------------------------------------------

    def _events(self, body: dict[str, Any]) -> None:
        self.follower.batch_body(body, self.now)

    def _history_frame(self, body: dict[str, Any]) -> None:
        self.follower.history_body(body, self.now)

    def _public_events(self, body: dict[str, Any]) -> None:
        self.follower.public_body(body, self.now)

    def _snapshot(self, body: dict[str, Any]) -> None:
        self.follower.snapshot(body, self.now)

    def _host_heartbeat(self, body: dict[str, Any]) -> None:
        at = required(body, "at", int)
        players = self.facts.players if self.facts is not None else 6
        self.table_waits.heard(body.get("wait"), players, at, self.now)
        self.liveness.resting = self.seat is not None and body.get("rest") is True
        self.follower.host_at(at, body.get("public"), self.now)

    # -- what else the host says -------------------------------------------------------------

    def _impostor(self, body: dict[str, Any]) -> None:
        what = clean_text(required(body, "what", str), 200)
        key = optional(body, "key", bytes)
        self._tell(Impostor(what, key if key is not None and len(key) == 32 else None))

    def _rejected(self, body: dict[str, Any]) -> None:
        self.actions.rejected()
        self._tell(Rejected(clean_text(required(body, "reason", str), 300)))

    def _public_race(self, body: dict[str, Any]) -> None:
        if self.seat is not None and self.spectator_delay > 0:
            return  # a seat had it on its own channel already (the public one is late)
        self._race(body)

    def _race(self, body: dict[str, Any]) -> None:
        self._tell(RaceResult.from_body(body))

    # -- the end ------------------------------------------------------------------------------

    def _reveal(self, body: dict[str, Any]) -> None:
        self.verification.reveal(body, self.now)

    def record(self, ended_at: float) -> dict[str, Any] | None:
        """This seat's record of the finished game (``netplay.record.SEAT_FORMAT``), or
        ``None`` (:meth:`Verification.record`)."""
        return self.verification.record(self.seat, self.host_key, ended_at)
