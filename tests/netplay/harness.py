"""A synchronous test table: one HostSession and its PlayerSessions on a MemoryBroker.

Everything runs on a fake clock (``Table.clock``) and in one thread: frames a session
queues are published on the broker, deliveries are queued and handed to the receiving
session one at a time, in order. A test can

- drop or hold deliveries (``Table.filters``, ``Table.drop`` for frames of some kinds;
  ``Peer.deaf`` drops all of one session's),
- inject raw frames on any topic (``Table.inject``) or hand them to the host alone
  (``Table.to_host``); ``forge`` builds frames with every field under control,
- pause a player (``Peer.paused``: no ticks, no actions) or stop its bot
  (``Peer.auto = False``) and drive it by hand (``session.act``, ``Table.host_move``),
- step greedy bots for the seated players (``Table.step``, ``Table.run``), and move the
  fake clock (``Table.advance``: everyone unpaused ticks).
- run a host of its own making (``host_class``: a ``HostSession`` subclass, say a
  cheating one).

Identities, entropies and the host secret are derived from ``seed``, so a table with the
same seed, settings and decisions plays the same game.
"""

from __future__ import annotations

import hashlib
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from engine.actions import Action, PassBlock
from engine.cards import HIDDEN, KIND, CardId, Kind
from engine.config import RulesConfig
from engine.game import Game
from engine.games import TableBot
from engine.state import Phase, Seat, State
from netplay.codec import Frame, Sequencer, decode, pack, unpack
from netplay.host import HostSession, HostSettings
from netplay.identity import Identity, peer_id
from netplay.memory import MemoryBroker
from netplay.player import PlayerSession
from netplay.playing.notices import Notice, Rejected
from netplay.topics import Topics
from netplay.verify import deal_seed

TABLE = "t1"
SHORT = RulesConfig(win_chips=3, win_min_each_colour=1)
"""Rules for quick games (a win at 3 chips, one of each colour)."""

Session = HostSession | PlayerSession
Filter = Callable[[Session, str, bytes], bool]
"""``(receiver, topic, payload) -> True`` drops the delivery."""


def derive(seed: int, label: str, size: int = 32) -> bytes:
    """Deterministic bytes for a test: ``size`` bytes named by ``(seed, label)``."""
    out = b""
    counter = 0
    while len(out) < size:
        out += hashlib.sha256(f"{seed}/{label}/{counter}".encode()).digest()
        counter += 1
    return out[:size]


def identity_for(seed: int, label: str) -> Identity:
    return Identity.from_seed(derive(seed, f"identity/{label}"))


def forge(
    identity: Identity,
    type_: str,
    body: dict[str, Any],
    *,
    table: str = TABLE,
    seq: int | None = None,
    version: int = 1,
    sender: bytes | None = None,
) -> bytes:
    """A frame signed by ``identity`` with every field under the test's control."""
    if seq is None:
        seq = Sequencer().next()
    inner = pack([version, type_, table, identity.key if sender is None else sender, seq, body])
    return pack([inner, identity.sign(inner)])


@dataclass
class Delivery:
    receiver: Session
    topic: str
    payload: bytes


@dataclass
class Peer:
    """Harness bookkeeping for one player or spectator session."""

    session: PlayerSession
    bot: TableBot
    auto: bool = True
    """Plays its legal actions with its bot when the table steps."""
    paused: bool = False
    """Not ticked, does not act (a frozen process); still receives unless ``deaf``."""
    deaf: bool = False
    """Receives nothing (deliveries to it are dropped)."""
    notices: list[Notice] = field(default_factory=list)
    acted_at: tuple[int, int] | None = None
    """``(applied, len(notices))`` when the bot last acted: it acts again only after news."""


class Table:
    """A host and ``players - len(bots)`` seated players (plus spectators on demand)."""

    def __init__(
        self,
        players: int = 2,
        *,
        bots: tuple[str, ...] = (),
        seed: int = 1,
        rules: Any = None,
        password: str | None = None,
        join_password: str | None = None,
        start: float = 1000.0,
        join: bool = True,
        host_class: type[HostSession] = HostSession,
        **settings: Any,
    ) -> None:
        self.seed = seed
        self.clock = start
        self.broker = MemoryBroker()
        self.topics = Topics(TABLE)
        self.queue: deque[Delivery] = deque()
        self.filters: list[Filter] = []
        self.filtered: list[Delivery] = []
        self.peers: list[Peer] = []
        self.identities: dict[str, Identity] = {}
        """Every peer's identity by peer id, for reading what was sealed to it."""
        self.settings = HostSettings(
            TABLE, players, bots=bots, rules=rules or RulesConfig(), password=password,
            **settings,
        )
        self.host_identity = identity_for(seed, "host")
        self.host = host_class(
            self.host_identity, self.settings, self.clock, secret=derive(seed, "secret")
        )
        # The host's bots take their entropy from the secret (netplay.entropy).
        for pattern in (self.topics.all_outboxes, self.topics.all_presence,
                        self.topics.announce):
            self.broker.subscribe(self.host, pattern, self._deliverer(self.host))
        self.flush()
        if join:
            for index in range(players - len(bots)):
                self.add_player(f"p{index}", password=join_password)
            self.pump()

    # -- building ------------------------------------------------------------------------

    def _deliverer(self, receiver: Session) -> Callable[[str, bytes], None]:
        def deliver(topic: str, payload: bytes) -> None:
            self.queue.append(Delivery(receiver, topic, payload))

        return deliver

    def add_player(
        self,
        name: str,
        *,
        identity: Identity | None = None,
        watch: bool = False,
        password: str | None = None,
        start: bool = True,
        settle: float = 0.0,
        plain: bool = False,
    ) -> PlayerSession:
        """A new session (seated or, with ``watch``, a spectator), subscribed and started.
        It joins at the table's first announcement (``settle=0``): the harness's host is the
        only one unless a test brings another (then it gives ``settle``, on the fake clock)."""
        label = f"{name}/{len(self.peers)}"
        session = PlayerSession(
            identity or identity_for(self.seed, name), TABLE, name, self.clock,
            watch=watch, password=password, settle=settle,
        )
        session.entropy = derive(self.seed, f"entropy/{label}")
        session.plain = plain
        self.identities[session.peer_id] = session.identity
        bot = self.settings.definition.bot("medium", derive(self.seed, f"bot/{label}"))
        self.peers.append(Peer(session, bot, auto=not watch))
        for pattern in session.subscriptions():
            self.broker.subscribe(session, pattern, self._deliverer(session))
        if start:
            session.start(self.clock)
        self.flush()
        return session

    def remove(self, session: PlayerSession) -> None:
        """The session's process is gone: no more deliveries, ticks or actions."""
        self.broker.unsubscribe_all(session)
        self.peers = [p for p in self.peers if p.session is not session]
        self.queue = deque(d for d in self.queue if d.receiver is not session)

    # -- queries ---------------------------------------------------------------------------

    @property
    def players(self) -> list[PlayerSession]:
        return [p.session for p in self.peers]

    def peer(self, session: PlayerSession) -> Peer:
        for peer in self.peers:
            if peer.session is session:
                return peer
        raise KeyError(session.name)

    def at_seat(self, seat: Seat) -> PlayerSession:
        for peer in self.peers:
            if peer.session.seat == seat and not peer.session.watch:
                return peer.session
        raise KeyError(seat)

    @property
    def state(self) -> State:
        game = self.host.game
        assert game is not None, "the game has not started"
        return game.state

    def host_hash(self) -> str:
        return self.settings.definition.public_hash(self.state)

    def read(self, topic: str, payload: bytes) -> Frame:
        """A frame of the broker's log as its addressee reads it: a sealed one opened by
        the host (on a peer's ``out``) or by the peer (on its ``in``)."""
        frame = observe(payload)
        if not frame.sealed or frame.type == "boxes":
            return frame  # a batch for every seat: its header (see ``seat_batches``)
        peer = self.topics.peer_of(topic)
        reader = self.host_identity if topic.endswith("/out") or peer is None \
            else self.identities[peer]
        return decode(payload, opener=reader)

    def sent(self, topic: str, kind: str | None = None, *, since: int = 0) -> list[Frame]:
        """The frames published on ``topic`` (of type ``kind``), as :meth:`read` reads
        them, from entry ``since`` of the log on."""
        frames = [self.read(t, p) for t, p in self.broker.log[since:] if t == topic and p]
        return [f for f in frames if kind is None or f.type == kind]

    def notices(self, session: PlayerSession) -> list[Notice]:
        self._collect()
        return self.peer(session).notices

    def notices_of(self, session: PlayerSession, kind: type[Any]) -> list[Any]:
        return [n for n in self.notices(session) if isinstance(n, kind)]

    # -- moving frames -------------------------------------------------------------------------

    def flush(self) -> None:
        for out in self.host.data_to_send():
            self.broker.publish(out.topic, out.payload, out.retain)
        for peer in list(self.peers):
            for out in peer.session.data_to_send():
                self.broker.publish(out.topic, out.payload, out.retain)

    def _collect(self) -> None:
        for peer in self.peers:
            peer.notices.extend(peer.session.take_notices())

    def deliver_one(self) -> bool:
        self.flush()
        if not self.queue:
            return False
        delivery = self.queue.popleft()
        receiver = delivery.receiver
        deaf = isinstance(receiver, PlayerSession) and self.peer(receiver).deaf
        if deaf or any(f(receiver, delivery.topic, delivery.payload) for f in self.filters):
            self.filtered.append(delivery)
        else:
            receiver.receive(delivery.topic, delivery.payload, self.clock)
        self.flush()
        return True

    def pump(self, limit: int = 200_000) -> None:
        """Deliver until nothing is in flight."""
        for _ in range(limit):
            if not self.deliver_one():
                self._collect()
                return
        raise AssertionError("the table never went quiet")

    def inject(self, topic: str, payload: bytes, *, retain: bool = False) -> None:
        """Publish raw bytes on the broker as if some peer had, and deliver everything."""
        self.broker.publish(topic, payload, retain)
        self.pump()

    def to_host(self, payload: bytes, topic: str) -> None:
        """Hand raw bytes to the host alone, as received on ``topic``."""
        self.host.receive(topic, payload, self.clock)
        self.pump()

    def out_topic(self, peer: PlayerSession | Identity) -> str:
        """The ``peer/<id>/out`` topic of a session or identity."""
        return self.topics.outbox(peer.peer_id)

    def drop(self, *kinds: str, to: Session | None = None, topic: str | None = None,
             count: int | None = None) -> list[tuple[str, str]]:
        """From now on, drop the frames of ``kinds`` delivered to ``to`` (anyone) on
        ``topic`` (any), the first ``count`` of them (all). Returns the list the dropped
        ones go into, as (topic, kind), for the test to check that something was lost."""
        dropped: list[tuple[str, str]] = []

        def match(receiver: Session, at: str, payload: bytes) -> bool:
            if (count is not None and len(dropped) >= count) \
                    or (to is not None and receiver is not to) \
                    or (topic is not None and at != topic):
                return False
            kind = self.read(at, payload).type
            if kind not in kinds:
                return False
            dropped.append((at, kind))
            return True

        self.filters.append(match)
        return dropped

    def send_action(self, session: PlayerSession, action: Action) -> None:
        session.act(action)
        self.pump()

    # -- time and bots --------------------------------------------------------------------------

    def tick(self) -> None:
        self.host.tick(self.clock)
        for peer in list(self.peers):
            if not peer.paused:
                peer.session.tick(self.clock)
        self.pump()

    def host_move(self) -> bool:
        """The seat the host waits for acts as its greedy bot would on the host's own view
        of it (so even a player whose view is behind can be driven); in a Block window every
        eligible seat passes. Returns whether anything was sent."""
        state = self.state
        if state.outcome is not None:
            return False
        if state.phase == Phase.BLOCK_WINDOW:
            assert state.window is not None
            seats = [s for s in state.window.eligible if s not in state.window.passed]
            for seat in seats:
                self.at_seat(seat).act(PassBlock(seat))
            self.pump()
            return bool(seats)
        seat = state.current
        definition = self.settings.definition
        view = definition.view_for(state, seat)
        self.at_seat(seat).act(self.peer(self.at_seat(seat)).bot.choose(
            view, seat, definition.legal_actions(view, seat)))
        self.pump()
        return True

    def advance(self, seconds: float) -> None:
        self.clock += seconds
        self.tick()

    def step(self) -> bool:
        """Each automatic, unpaused seated player with news and a legal action acts once.

        Returns whether anyone acted. Actions are all sent before any is delivered, so
        two players deciding in the same Block window press in the same instant.
        """
        self._collect()
        acted = False
        for peer in self.peers:
            session = peer.session
            view = session.view
            if not peer.auto or peer.paused or session.seat is None or view is None:
                continue
            if view.outcome is not None:
                continue
            mark = (session.applied, sum(1 for n in peer.notices if not isinstance(n, Rejected)))
            if peer.acted_at == mark:
                continue
            legal = self.settings.definition.legal_actions(view, session.seat)
            if not legal:
                continue
            peer.acted_at = mark
            session.act(peer.bot.choose(view, session.seat, legal))
            acted = True
        self.flush()
        return acted

    def run(
        self,
        until: Callable[[], bool] | None = None,
        *,
        dt: float = 0.05,
        max_seconds: float = 3000.0,
    ) -> None:
        """Play (bots, ticks, deliveries) until ``until()`` or the game is over and settled."""
        done = until or self.settled
        stop = self.clock + max_seconds
        while True:
            self.pump()
            if done():
                return
            if self.step():
                continue
            self.host.tick(self.clock)  # host bots scheduled for now
            self.pump()
            if done():
                return
            if self.step():
                continue
            if self.clock > stop:
                raise AssertionError(f"table still running after {max_seconds} fake seconds")
            self.advance(dt)

    def settled(self) -> bool:
        """The game is over and every seated, listening player has its verdict."""
        if not self.host.over:
            return False
        return all(
            p.session.verdict is not None
            for p in self.peers
            if not p.paused and not p.deaf and not p.session.watch
        )

    def run_to_end(self, **kwargs: Any) -> None:
        self.run(**kwargs)
        # Let late race messages and heartbeats go out.
        self.advance(1.0)

    # -- checks -----------------------------------------------------------------------------

    def assert_in_step(self, sessions: list[PlayerSession] | None = None) -> None:
        """Every session applied every batch and agrees with the host's public hash."""
        expected = self.host_hash()
        for session in sessions or self.players:
            assert session.view is not None, session.name
            assert session.applied == len(self.host.batches), (
                session.name, session.applied, len(self.host.batches))
            assert self.settings.definition.public_hash(session.view) == expected, session.name
            if session.seat is not None:
                assert session.view.hands[session.seat] == self.state.hands[session.seat]


# -- reading the wire ---------------------------------------------------------------------------


def observe(payload: bytes) -> Frame:
    """A frame as any subscriber of its topic sees it: a signed one decoded and its
    signature checked; of a sealed one only its header (type ``sealed``, body
    ``{"box": ...}``, ``sealed`` set), which nothing vouches for but its box."""
    outer = unpack(payload)
    if isinstance(outer, list) and len(outer) == 1:
        _, type_, table, sender, seq, body = unpack(outer[0])
        assert type_ in ("sealed", "boxes"), f"an unsigned {type_!r} frame"
        return Frame(type_, table, sender, seq, body, payload, sealed=True)
    return decode(payload)


def frames(log: list[tuple[str, bytes]], topic_suffix: str = "") -> Iterator[tuple[str, Frame]]:
    """Every frame of a broker log (optionally on topics ending ``topic_suffix``), as
    :func:`observe` reads it."""
    for topic, payload in log:
        if not topic.endswith(topic_suffix):
            continue
        yield topic, observe(payload)


def seat_heartbeats(table: Table) -> list[Frame]:
    """The host's heartbeats to the seats (on ``table``, a box each since protocol 6), as
    the first seated player opens them."""
    seat = next(p for p in table.players if p.seat is not None and not p.watch)
    inside = [decode(f.raw, opener=seat.identity, seat=seat.seat)
              for _, f in frames(table.broker.log, "/table") if f.type == "boxes"]
    return [f for f in inside if f.type == "heartbeat"]


def opened(
    identity: Identity, frame: Frame, seat: int | None = None
) -> tuple[str, dict[str, Any]]:
    """A frame's ``(type, body)``, its box opened by ``identity`` when it is sealed (in a
    ``boxes`` frame, the box of ``seat``)."""
    if frame.type == "sealed":
        inside = decode(frame.raw, opener=identity)
        return inside.type, inside.body
    if frame.type == "boxes":
        inside = decode(frame.raw, opener=identity, seat=seat)
        return inside.type, inside.body
    return frame.type, frame.body


def seat_batches(table: Table, seat: int, *, since: int = 0) -> list[Frame]:
    """The batches seat ``seat`` was sent on ``table`` (its box of each ``boxes`` frame,
    opened), from entry ``since`` of the broker's log on."""
    info = table.host.seats[seat]
    assert info is not None and info.key is not None
    reader = table.identities[peer_id(info.key)]
    return [decode(p, opener=reader, seat=seat) for t, p in table.broker.log[since:]
            if t == table.topics.table_stream and p and observe(p).type == "boxes"]


def forge_sealed(
    identity: Identity, recipient: bytes, type_: str, body: dict[str, Any], *,
    table: str = TABLE, seq: int | None = None, box_table: str | None = None,
    box_seq: int | None = None,
) -> bytes:
    """A frame sealed by ``identity`` for ``recipient`` with every field under the test's
    control (the header's table and seq may differ from those in the box)."""
    if seq is None:
        seq = Sequencer().next()
    box = identity.seal_for(recipient, pack([
        table if box_table is None else box_table, seq if box_seq is None else box_seq,
        type_, body]))
    return pack([pack([1, "sealed", table, identity.key, seq, {"box": box}])])


def replay_states(table: Table) -> list[State]:
    """The host's state after each batch (index ``n`` is after batch ``n``), replayed."""
    facts = table.host.deal_facts()
    game = Game.new(
        facts["players"], deal_seed(table.host.secret, facts["entropies"]),
        table.settings.rules,
    )
    states = [game.state.copy(), game.state.copy()]
    for batch in table.host.batches[1:]:
        assert batch.action is not None
        game.act(batch.action)
        states.append(game.state.copy())
    return states


def blocks_in_hand(state: State, seat: Seat) -> list[CardId]:
    return [c for c in state.hands[seat] if c != HIDDEN and KIND[c] is Kind.BLOCK]
