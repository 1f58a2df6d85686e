"""The host's session: a pure state machine (frames in, frames out, timers by ``tick``).

It runs the authoritative engine, numbers and publishes the batches, and keeps everything
a game record needs. Each other concern is a small collaborator it owns, in
``netplay.hosting`` (docs/architecture.md, *The host's collaborators*): the lobby, the
deal's rounds, the Block race, the turns (bots, stand-ins, the clock), presence and the
heartbeat, repair, the spectators' stream, the journal and the listing. The asyncio
driver (``netplay.peers``) only moves bytes and calls ``tick``.
"""

from __future__ import annotations

import dataclasses
import functools
import logging
import os
from collections.abc import Callable, Iterator, Sequence
from typing import Any, Generic, Protocol, TypeVar, cast

from engine.actions import Block, CloseBlockWindow, PassBlock
from engine.errors import IllegalActionError, MalformedError
from engine.games import AnyAction, AnyEvent, TableGame
from engine.state import SPECTATOR, Audience, Seat
from netplay.batch import Batch
from netplay.budget import HostBudgets
from netplay.clock import TurnClock, Wait
from netplay.codec import Frame, ReplayGuard, decode
from netplay.entropy import DealRound
from netplay.errors import FrameError
from netplay.hosting.beats import REST_HEARTBEAT, Heartbeats
from netplay.hosting.deal import DealRounds
from netplay.hosting.journal import HostJournal
from netplay.hosting.listing import Listing
from netplay.hosting.lobby import Lobby
from netplay.hosting.presence import SPECTATOR_HEARD, Presence
from netplay.hosting.race import BlockRace, Race, in_window
from netplay.hosting.record import game_record
from netplay.hosting.repair import HISTORY_PATIENCE, IN_FLIGHT, Repair
from netplay.hosting.restore import ACTION_ORDER, read_table
from netplay.hosting.restore import restore as restore_table
from netplay.hosting.seats import SeatInfo, Seating
from netplay.hosting.settings import HostSettings, check_block_window
from netplay.hosting.state import TableState
from netplay.hosting.stream import SpectatorStream
from netplay.hosting.turns import BotTurn, Turns
from netplay.hosting.verdicts import Verdict, Verdicts
from netplay.hosts import AnnounceWatch
from netplay.identity import Identity, peer_id
from netplay.journal import Entry
from netplay.listing import QUERY
from netplay.messages import conn_of, required
from netplay.probe import Probe
from netplay.topics import Topics
from netplay.verify import commitment, deal_seed
from netplay.wire import Outgoing, Sender

__all__ = ["ACTION_ORDER", "IN_FLIGHT", "REST_HEARTBEAT", "BotTurn", "HostSession",
           "HostSettings", "SeatInfo"]

log = logging.getLogger("netplay.host")

SEALED_TO_HOST = frozenset({"action", "heartbeat", "resync", "verified"})
"""What a peer may send the host sealed (an action must be): what only the host reads, and
a peer sends often, goes sealed, a box costing either end a fraction of a signature."""


def _batch_body(batch: Batch, audience: Audience) -> dict[str, Any]:
    return batch.redacted_for(audience).to_body()


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


T = TypeVar("T")


class _Via(Generic[T]):
    """An attribute of one of the session's collaborators, read (and with ``settable``,
    set) through the session under the name its users know it by."""

    def __init__(self, owner: str, name: str, doc: str = "", *, settable: bool = False):
        self.owner, self.name, self.settable, self.__doc__ = owner, name, settable, doc

    def __get__(self, session: object, kind: type | None = None) -> T:
        if session is None:  # read on the class: the descriptor itself
            return cast(T, self)
        return cast(T, getattr(getattr(session, self.owner), self.name))

    def __set__(self, session: object, value: T) -> None:
        if not self.settable:
            raise AttributeError(f"{self.name} is read through the session, not set")
        setattr(getattr(session, self.owner), self.name, value)


class _Timer(Protocol):
    def next_deadline(self, now: float) -> float | None: ...
    def tick(self, now: float) -> None: ...


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
        self.now = now
        self.state = TableState()
        self.game: TableGame | None = None
        self.batches: list[Batch] = []
        self.dropped: list[str] = []
        self.budgets = HostBudgets()
        self.resumed = restore is not None
        self.seating = Seating(settings.players)
        self.journal = HostJournal()
        self.lobby = Lobby(self)
        self.presence = Presence(self)
        self.deal = DealRounds(self)
        self.block_race = BlockRace(self, settings.block_window, settings.race_settle)
        self.turns = Turns(self, settings)
        self.repair = Repair(self)
        self.stream = SpectatorStream(self, settings.spectator_delay)
        self.beats = Heartbeats(self, now, before_beat=self.stream.release)
        self.listing = Listing(self, identity.key, now)
        self.peer_verdicts = Verdicts()
        self._acting: int | None = None
        """The seq of the signed action being handled (its rejection is kept by it)."""
        self._timers: tuple[_Timer, ...] = (
            self.beats, self.block_race, self.listing, self.deal, self.turns, self.stream)
        """Every collaborator that keeps time, in the order :meth:`tick` runs them."""
        if restore is None:
            self.journal.append({"t": "table", "host_seed": bytes(identity.signing_key),
                                 "secret": self.secret, "settings": settings.to_wire()})
            self.lobby.seat_host_bots()
        else:
            restore_table(self, restore)
        self.announce()
        self.deal.seats_full()  # every seat a bot of the host, or a resumed full table

    @classmethod
    def resume(cls, entries: Sequence[Entry], now: float) -> HostSession:
        """The table a journal describes, replayed through the engine and checked batch
        by batch; ``JournalError`` if the journal does not hold a table or does not
        replay to the hashes it recorded."""
        identity, settings, secret = read_table(entries)
        return cls(identity, settings, now, secret=secret, restore=entries)

    # -- what the driver and the table's users read ----------------------------------------

    @property
    def seats(self) -> list[SeatInfo | None]:
        return self.seating.seats

    @property
    def spectators(self) -> dict[bytes, str]:
        return self.seating.spectators

    @property
    def batch_count(self) -> int:
        return len(self.batches)

    @property
    def released(self) -> int:
        """Batches released to spectators (see ``SpectatorStream.released``)."""
        return self.stream.released

    @property
    def status(self) -> str:
        return self.state.status

    @property
    def over(self) -> bool:
        return self.state.over

    @property
    def closed(self) -> bool:
        return self.state.closed

    @property
    def verdicts(self) -> dict[str, dict[str, Any]]:
        """Each peer's verdict on the deal, by ``seat N`` or ``spectator NAME``."""
        return self.peer_verdicts.by_label()

    @property
    def catching_up(self) -> bool:
        """Spectators are still to get the game's end (see ``SpectatorStream``): the table
        stays up until it is out (announced as ``catching_up``)."""
        return self.stream.catching_up

    def tail_left(self, now: float) -> float:
        """Seconds until spectators have had everything held back (0: nothing is)."""
        return self.stream.line.tail_left(now)

    def release_all(self) -> None:
        self.stream.release_all()

    def seat_of(self, key: bytes) -> Seat | None:
        return self.seating.seat_of(key)

    def all_seats_verified(self) -> bool:
        """Every seated player (not the host's bots) has reported its verification."""
        return self.peer_verdicts.all_seated(seat for seat, _ in self.seating.players())

    def spectators_unverified(self, now: float) -> int:
        """Spectators watching now (heard lately) that have not reported their check of
        the deal: at the end, once everything is out, the host waits a moment for them."""
        return self.peer_verdicts.spectators_silent(
            self.seating.spectators, self.presence.spectator_heard, SPECTATOR_HEARD, now)

    def spectators_catching_up(self, now: float) -> int:
        """Spectators that asked for a chunk of history lately and have not verified: the
        host stays a moment longer for them before it closes the table."""
        return self.peer_verdicts.spectators_silent(
            self.seating.spectators, self.repair.history_asked, HISTORY_PATIENCE, now)

    def end_settled(self, now: float) -> bool:
        """Whether a host whose game is over has nothing more to wait for before it may
        close: every seated player's verdict, the spectators still catching up on the
        history, the last Block race told, and the verdicts of the spectators watching
        now (but not, with a spectator delay, while the tail is held back from them:
        :meth:`spectators_unverified` is waited for once it is out)."""
        return (self.all_seats_verified()
                and not self.spectators_catching_up(now)
                and self.block_race.current is None
                and (self.catching_up or not self.spectators_unverified(now)))

    def waits(self) -> list[Wait]:
        """The seated players the table waits for now, with how long (for everyone)."""
        return self.turns.waits()

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

    def journal_to_write(self) -> list[Entry]:
        """What the driver writes to the journal (and fsyncs) before :meth:`data_to_send`
        goes out: the frames may depend on it."""
        return self.journal.drain()

    # -- the collaborators' state, by the names the table's users have read it by ---------

    race = _Via[Race | None]("block_race", "current", "The Block race under way (until told).")
    races = _Via[list[Race]]("block_race", "past", "The Block races of the game so far.")
    round = _Via[DealRound]("deal", "round", "The deal's round under way.")
    reveal_commits = _Via[list[bytes | None] | None]("deal", "reveal_commits")
    clock = _Via[TurnClock]("turns", "clock", "The turn clock.")
    watch = _Via[AnnounceWatch]("listing", "watch", "The watch on the announcement.")
    boot = _Via[bytes]("listing", "boot", "This incarnation of the host.")
    conn = _Via[bytes]("listing", "conn", "This connection's nonce.")
    resting = _Via[bool]("beats", "resting", "Whether presence rests on the broker.")
    probe_until = _Via[float | None]("beats", "probe_until")
    beats_skipped = _Via[int]("beats", "skipped", "Heartbeats a frame to everyone stood for.")
    on_journal = _Via[Callable[[], None] | None]("journal", "on_entry", settable=True)
    wall_offset = _Via[float | None]("journal", "wall_offset", settable=True)
    offload = _Via[bool]("turns", "offload", "A driver makes the search bots' decisions.",
                         settable=True)

    # -- what the driver tells -------------------------------------------------------------

    def take_bot_turn(self) -> BotTurn | None:
        return self.turns.take_bot_turn()

    def bot_decided(self, turn: BotTurn, action: Any, now: float) -> bool:
        """The driver's answer to :meth:`take_bot_turn` (see ``Turns.bot_decided``)."""
        self.now = now
        return self.turns.bot_decided(turn, action)

    def last_will(self) -> Outgoing:
        return self.listing.last_will()

    def connected(self, now: float) -> None:
        """The host (re)connected: it announces the new connection (once each)."""
        self.now = now
        self.listing.connected()

    def probe_started(self, probe: Probe, until: float) -> None:
        """The driver's broker probe went silent: its will (``probe.will`` on
        ``probe.topic``) must come by ``until`` for presence to rest on the broker."""
        self.beats.probe_started(probe, until)

    def set_block_window(self, seconds: float) -> None:
        """Make the table's Block window ``seconds`` long (a seat that plays in plain mode,
        read by a screen reader, needs time to hear the question): journaled and announced
        again; the game's races use it. Only before the deal, and more than 0 and at most
        60 seconds: ``ValueError`` in words otherwise."""
        if self.state.started:
            raise ValueError("the game has begun: its Block window can't change now")
        if self.state.closed:
            raise ValueError("the table is closed")
        check_block_window(seconds)
        seconds = float(seconds)
        if seconds == self.settings.block_window:
            return
        self.settings = dataclasses.replace(self.settings, block_window=seconds)
        self.block_race.window = seconds
        self.journal.append({"t": "window", "seconds": seconds})
        log.info("table %s: the Block window is now %g s", self.settings.table, seconds)
        self.announce()

    def close_table(self) -> None:
        """Take the table off the list with a signed ``closed`` announcement (retained: it
        stays on the broker as the table's last word; an empty payload would be unsigned)."""
        self.state.close()
        self.announce()

    # -- time ------------------------------------------------------------------------------

    def next_deadline(self) -> float:
        """When :meth:`tick` next has something to do: the earliest of the collaborators'."""
        due = (timer.next_deadline(self.now) for timer in self._timers)
        return min(t for t in due if t is not None)

    def tick(self, now: float) -> None:
        """Run what is due, collaborator by collaborator."""
        self.now = now
        for timer in self._timers:
            timer.tick(now)

    # -- input -----------------------------------------------------------------------------

    def receive(self, topic: str, payload: bytes, now: float) -> None:
        """Handle one message from the broker. Never raises: bad input is dropped and logged."""
        self.now = now
        if topic == QUERY:
            self.listing.answer(payload)
            return
        if self.beats.probe_answers(topic, payload):
            return
        self.block_race.close_overdue()
        try:
            self._receive(topic, payload)
        except FrameError as exc:
            self._drop(topic, exc.reason)
        except Exception:  # a bug must cost one message, never the table
            log.exception("internal error handling a message on %r", topic)
            self._drop(topic, "internal error (logged)")
        self.turns.schedule()

    def _drop(self, topic: str, reason: str) -> None:
        self.dropped.append(reason)
        log.info("dropped a message on %r: %s", topic, reason)

    def _receive(self, topic: str, payload: bytes) -> None:
        if topic == self.topics.announce:
            self.listing.seen(payload)
            return
        peer = self.topics.peer_of(topic)
        if peer is None:
            raise FrameError("message on a topic the host does not read")
        if not self.budgets.gate(peer, self.seating.role(peer), self.now):
            return  # over budget: dropped before decoding (logged once per peer)
        # Only a peer's own ``out`` carries frames sealed to the host (its actions).
        on_presence = topic == self.topics.presence(peer)
        frame = decode(payload, sender_id=peer, opener=None if on_presence else self.identity)
        if frame.table != self.settings.table:
            raise FrameError(f"frame for table {frame.table!r}")
        if frame.sender_id != peer:
            raise FrameError("the sender's key does not match its topic")
        if on_presence:
            self.presence.frame(frame, topic)
            return
        self.guard.check(frame, topic)
        self.presence.heard_from(frame.sender)
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
                self.presence.note_conn(frame.sender, joined, frame.seq)

    def _signed_action(self, outer: Frame) -> Frame:
        """The player's signed action frame (the batch's proof), which travels sealed to
        the host: a refused action may name a card in the player's hand."""
        if not outer.sealed:
            raise FrameError("an action in the clear (actions travel sealed)")
        inner = decode(required(outer.body, "signed", bytes))
        if inner.sender != outer.sender or inner.table != outer.table or inner.type != "action":
            raise FrameError("a sealed action that is not the sender's own signed action")
        rejection = self.repair.rejection(inner.sender, inner.seq)
        if rejection is not None:
            # The player sent it again: the rejection it had was lost on its way.
            self.sender.send_sealed(self.topics.inbox(peer_id(inner.sender)), inner.sender,
                                    "rejected", rejection)
            raise FrameError("an action rejected already: its rejection sent again")
        # The inner frames have their own order: a resumed host knows them from the journal
        # (the proofs), so an old action sealed anew is still a replay.
        self.guard.check(inner, ACTION_ORDER)
        return inner

    def _known_peer(self, key: bytes, what: str) -> Seat | None:
        seat = self.seating.seat_of(key)
        if seat is None and key not in self.seating.spectators:
            raise FrameError(f"{what} from a peer that has not joined")
        return seat

    # -- the frames a peer sends (see _ON_OUTBOX) ------------------------------------------

    def _join(self, key: bytes, body: dict[str, Any], raw: bytes) -> None:
        self.lobby.join(key, body, raw)

    def _entropy(self, key: bytes, body: dict[str, Any], raw: bytes) -> None:
        self.deal.entropy(key, body)

    def _heartbeat(self, key: bytes, body: dict[str, Any], raw: bytes) -> None:
        at = required(body, "at", int)
        self._known_peer(key, "heartbeat")
        if not self.state.started:
            self.deal.again(key)
        else:
            self.repair.heartbeat(key, at)

    def _resync(self, key: bytes, body: dict[str, Any], raw: bytes) -> None:
        self.repair.resync(key, body)

    def _desync(self, key: bytes, body: dict[str, Any], raw: bytes) -> None:
        self._known_peer(key, "desync report")
        log.warning(
            "desync reported by %s at batch %s: ours %s, theirs %s",
            peer_id(key), body.get("n"), body.get("ours"), body.get("theirs"),
        )
        # The peer follows its report with a resync asking for a snapshot: answer that one.

    def _verified(self, key: bytes, body: dict[str, Any], raw: bytes) -> None:
        self._known_peer(key, "verification")
        ok = required(body, "ok", bool)
        detail = required(body, "detail", str)[:300]
        who = self.seating.ref_of(key)
        if self.peer_verdicts.take(who, Verdict(ok, detail)):
            self.journal.append({"t": "verdict", "who": who.label, "ok": ok, "detail": detail})

    def _action(self, key: bytes, body: dict[str, Any], raw: bytes) -> None:
        seat = self.seating.seat_of(key)
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
        if not self.state.started:
            self._reject(key, action, "the game has not started")
            return
        at = required(body, "at", int)
        if isinstance(action, Block | PassBlock) and self.block_race.stale(at):
            # Sent before this window opened: a press meant for an earlier window.
            self._reject(key, action, "that Block window has already closed")
            return
        self.step(action, raw, key)

    def _reject(self, key: bytes, action: AnyAction, reason: str) -> None:
        self.repair.reject(key, action, reason, self._acting)

    # -- the game --------------------------------------------------------------------------

    def deal_facts(self) -> dict[str, Any]:
        """What every peer needs to follow and later verify the game (``start``'s body)."""
        return self.deal.facts(self.settings, self.commit)

    def record(self) -> dict[str, Any]:
        """Everything needed to re-check the game offline (see ``netplay.record``)."""
        return game_record(self)

    def start_game(self) -> None:
        """Deal: every seat's entropy is in (or fixed by the host's secret)."""
        facts = self.deal_facts()
        if self.deal.reveal_commits is None:
            # Nobody had to reveal (host bots and held seats, fixed by the secret), or a
            # resumed table whose reveals were all in: the seats' commitments are the
            # reveal round's (none changes once a reveal round lists it).
            self.deal.reveal_commits = list(facts["entropy_commits"])
        # The deal depends on the seats as they are now (a driver may have set entropies).
        self.journal.append({"t": "start", "names": facts["names"], "keys": facts["keys"],
                             "entropies": facts["entropies"]})
        seed = deal_seed(self.secret, facts["entropies"])
        self.game = self.definition.new_game(
            self.settings.players, seed, self.settings.rules, self.settings.dealer
        )
        self.state.started_game()
        self.stream.publish("start", facts)
        self._publish(None, None, list(self.game.log))
        self.announce()

    def deciders(self) -> list[Seat]:
        """Seats whose decision the engine is waiting for now."""
        game = self.game
        if game is None or self.state.over:
            return []
        return self.definition.to_move(game.state)

    def in_window(self) -> bool:
        """A Block window is open in the game (only Sequence Stacks has them)."""
        return in_window(self.game)

    def step(
        self, action: AnyAction, proof: bytes | None, key: bytes | None, *,
        standin: bool = False
    ) -> bool:
        """Play ``action`` (signed by ``proof``, sent by ``key``: ``None`` for the host's
        own); whether it was legal (if not, ``key`` is told why)."""
        game = self.game
        assert game is not None
        is_press = isinstance(action, Block | PassBlock)
        try:
            events = game.act(action)
        except IllegalActionError as exc:
            reason = str(exc)
            if is_press:
                reason = self.block_race.refused(action, reason, self.now)
            if key is not None:
                self._reject(key, action, reason)
            return False
        if is_press:
            won = "won" if isinstance(action, Block) else "passed"
            self.block_race.press(action, won, self.now)
        self._publish(action, proof, events, standin=standin)
        return True

    def _publish(
        self, action: AnyAction | None, proof: bytes | None, events: list[AnyEvent],
        *, standin: bool = False,
    ) -> None:
        game = self.game
        assert game is not None
        batch = Batch(len(self.batches) + 1, action, proof, tuple(events),
                      self.definition.public_hash(game.state), standin)
        self.batches.append(batch)
        if game.over:
            self.state.ended()
        self.presence.note_waiting()
        self.repair.published(batch, self.now)
        self.journal.append_with_wall_time({
            "t": "batch", "n": batch.n, "action": None if action is None else action.to_wire(),
            "proof": proof, "standin": standin, "hash": batch.hash}, self.now)
        # Every seat's own version of the batch, each sealed to it, in one frame on
        # ``table``: one publish (and one acknowledgement) an action, not one a seat.
        keys = self.seating.player_keys()
        if any(key is not None for key in keys):
            self.sender.send_boxes(self.topics.table_stream, keys, "events", [
                None if key is None else _batch_body(batch, seat)
                for seat, key in enumerate(keys)])
        if self.stream.delayed:
            self.stream.publish("events", batch.redacted_for(SPECTATOR).to_body())
        else:
            # Every seat got its copy: it stands for the next beat (as a frame to everyone
            # does). The spectators' copy only while there are any: one who comes later
            # catches up.
            self.beats.everyone_heard(self.now)
            if self.seating.spectators:
                self.sender.send_later(self.topics.events, "events", functools.partial(
                    _batch_body, batch, SPECTATOR))
        self.block_race.track(events)
        if game.over:
            self.budgets.game_over(len(self.batches), self.now, self.repair.public_size())
            self.reveal(to=self.topics.events)
            self.announce()
        self.turns.sync_clock()

    def reveal_body(self) -> dict[str, Any]:
        assert self.game is not None and self.game.outcome is not None
        outcome = self.game.outcome
        return {"secret": self.secret, "termination": int(outcome.termination),
                "winner": outcome.winner, "total": len(self.batches)}

    def reveal(self, to: str) -> None:
        """The game's end (its outcome and the host's secret) to ``to``: the public stream
        (late, with a spectator delay) or one peer's inbox."""
        body = self.reveal_body()
        if to == self.topics.events:
            self.stream.publish("reveal", body)
            if not self.stream.delayed:
                self.state.ended_publicly()
        else:
            self.sender.send(to, "reveal", body)

    def may_reveal(self, key: bytes) -> bool:
        """Whether the game's end (the reveal: outcome and secret) may go to ``key``: to a
        seat once the game is over, to a spectator once the delay released it."""
        return self.state.over and (self.state.public_over or self.seat_of(key) is not None)

    # -- what goes to everyone -------------------------------------------------------------

    def announce(self) -> None:
        self.listing.announce()

    def hold_back(self, wall: float) -> None:
        """A resumed host holds back again what spectators were not due yet
        (``SpectatorStream.hold_back``)."""
        self.stream.hold_back(wall)
