"""The asyncio peers: ``Host``, ``Player``, ``Spectator`` and ``BotPeer``.

Each is a thin driver around a session state machine (``netplay.host`` /
``netplay.player``): it moves frames between the session and a transport, runs the
session's timers, and hands notices to the user. No protocol rule lives here.

    async with Host(settings, broker="mqtt://127.0.0.1:1883") as host:
        await host.finished()

    async with Player(identity, "table", "Ana", broker=url) as me:
        async for notice in me.notices():
            ...
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import time
import weakref
from collections import deque
from collections.abc import AsyncIterator
from pathlib import Path
from types import TracebackType
from typing import Any, ClassVar, Protocol, Self

from engine.actions import Action
from engine.games import AnyAction, TableBot, searches
from engine.state import State
from engine.wire import prepare_codecs
from netplay.aio import Alarm, Alarms, cancel_and_wait
from netplay.host import BotTurn, HostSession, HostSettings
from netplay.hosts import matches, split_pin
from netplay.identity import Identity
from netplay.journal import Entry, JournalError, JournalFile
from netplay.known import KnownHosts
from netplay.listing import QUERY as LISTING_QUERY
from netplay.memory import AsyncMemoryBroker
from netplay.player import PlayerSession
from netplay.playing.notices import (
    Applied,
    GameEnded,
    GameStarted,
    Joined,
    Notice,
    Rejected,
    Verified,
)
from netplay.probe import PROBE_KEEPALIVE, Probe, go_silent, probe_deadline
from netplay.record import write_new_record, write_record
from netplay.syncs import SYNCS
from netplay.transport import (
    KEEPALIVE,
    PRESENCE_KEEPALIVE,
    PRESENCE_PING,
    BrokerAddress,
    MemoryTransport,
    MqttTransport,
    Transport,
    Will,
)
from netplay.wire import Outgoing

log = logging.getLogger("netplay.peers")

READY_BATCH = 64
FLUSH_WAIT = 2.0
"""Seconds a closing peer waits for its last frames to be acknowledged by the broker."""
SLOW_BROKER_WAIT = 6.0
"""Seconds more it waits while still connected: a broker that is there but slow to
acknowledge (a NATS cluster's MQTT stalls 4 s at a time storing a message) would otherwise
lose a peer's last words, its verdict on the deal among them."""
"""Messages already received that a peer handles in one turn of its loop."""

Broker = str | BrokerAddress | AsyncMemoryBroker
"""Where to meet: a URL, a parsed address, or an in-memory broker (tests)."""


class _Session(Protocol):
    def receive(self, topic: str, payload: bytes, now: float) -> None: ...
    def tick(self, now: float) -> None: ...
    def next_deadline(self) -> float: ...
    def data_to_send(self) -> list[Outgoing]: ...
    def connected(self, now: float) -> None: ...


def _transport(
    broker: Broker, subscriptions: list[str], *, name: str, will: Will,
    username: str | None, password: str | None = None, keepalive: int = KEEPALIVE,
) -> MqttTransport | MemoryTransport:
    """A transport to ``broker``. The table password doubles as the broker login (the
    embedded broker of a table with a password checks it), unless the URL has one."""
    if isinstance(broker, AsyncMemoryBroker):
        return MemoryTransport(broker, subscriptions, will=will)
    address = broker if isinstance(broker, BrokerAddress) else BrokerAddress.parse(broker)
    return MqttTransport(
        address, subscriptions, client_name=name, will=will, username=username,
        password=password, keepalive=keepalive,
        ping_every=PRESENCE_PING if keepalive == PRESENCE_KEEPALIVE else None,
    )


class _Peer:
    """Runs one session over one transport until closed."""

    session: _Session
    transport: Transport

    def __init__(self) -> None:
        self._task: asyncio.Task[None] | None = None
        self._waiter: asyncio.Future[None] | None = None
        self._due = True
        """The loop has a turn to run before it waits (something came or was queued)."""
        self._alarm: Alarm | None = None
        """What wakes the loop at its next deadline (on the event loop's one timer for
        all its peers, ``netplay.aio.Alarms``), while it drives: kept from one wait to the
        next while the deadline stays (most waits end on a message, not on it)."""
        self._stopped = asyncio.Event()
        self._parked_for = -math.inf
        """The deadline the parked driver waits for (its timer's), kept up to date by a
        turn taken at a read (:meth:`_read_done`)."""
        self._turning = False
        self._taken_here = False
        """A turn taken at a read left the rest of it to the driver (see _read_done)."""
        self._inline_error: BaseException | None = None
        """What a turn taken at a read raised: the driver raises it (and stops), as it
        would have, had it taken the turn itself."""

    @property
    def loop_time(self) -> float:
        return asyncio.get_running_loop().time()

    async def __aenter__(self) -> Self:
        prepare_codecs()  # not during the game: each costs its first action a millisecond
        await self.transport.start()
        self._task = asyncio.create_task(self._drive(), name=type(self).__name__)
        return self

    async def __aexit__(
        self, t: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.close()

    async def close(self) -> None:
        # The driver stops first: a message handled while the last words go out could
        # otherwise publish after them (a host re-announcing a table it just took down).
        task, self._task = self._task, None
        if task is not None:
            error = await cancel_and_wait(task)
            if error is not None:  # the loop had died on it: still say goodbye and let go
                log.error("%s had stopped on an error", type(self).__name__, exc_info=error)
        self._before_close()
        self._flush()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._published(), FLUSH_WAIT)
            try:
                await asyncio.wait_for(self.transport.flushed(), FLUSH_WAIT)
            except TimeoutError:
                if not self.transport.connected.is_set():
                    raise  # no broker to tell: don't keep the user waiting
                await asyncio.wait_for(self.transport.flushed(), SLOW_BROKER_WAIT)
        await self.transport.stop()
        self._stopped.set()

    @property
    def failure(self) -> BaseException | None:
        """What stopped the peer's loop when it stopped on its own (a bug), else None."""
        task = self._task
        if task is None or not task.done() or task.cancelled():
            return None
        return task.exception()

    def _before_close(self) -> None:
        """Last words (presence offline, cleared announcement)."""

    def _flush(self) -> None:
        for out in self.session.data_to_send():
            self.transport.publish(out)

    def poke(self) -> None:
        """Run the loop now (after the user queued something)."""
        self._flush()
        self._wake()

    def _wake(self) -> None:
        """Have the loop run a turn now (a message came, the user or a bot acted)."""
        self._due = True
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    def _arrived(self) -> None:
        """A message came: inside a read of the socket, the turn waits for the read's end
        (:meth:`_read_done`); otherwise the loop runs one."""
        if self.transport.reading:
            self._due = True
        else:
            self._wake()

    def _read_done(self) -> None:
        """A read of the socket is done: when it brought messages and the driver is parked
        waiting for them, their turn is taken here and now, as the driver would take it,
        instead of waking it for a turn of the event loop later (a task step, a future and
        a loop iteration per read, most of a peer's reads bringing one frame)."""
        if not self._due:
            return
        waiter = self._waiter
        if waiter is None or waiter.done() or self._turning or not self._turn_here():
            self._wake()
            return
        self._due = False
        loop = asyncio.get_running_loop()
        session = self.session
        now = loop.time()
        self._turning = True
        try:
            arrived = self.transport.ready(READY_BATCH)
            self._take(arrived, now)
            deadline = min(session.next_deadline(), self._deadline())
        except Exception as exc:  # a bug: the driver stops on it, as it would have
            self._inline_error = exc
            self._wake()
            return
        finally:
            self._turning = False
        now = loop.time()
        if len(arrived) == READY_BATCH or not self._turn_here() or not (
                now < deadline and now < self._parked_for):
            # More may wait, frames are held back (for the journal), or a deadline is due:
            # the driver goes on with this turn (it waits for the frames, reads the rest,
            # runs the timers) as it would after taking the messages itself.
            self._taken_here = True
            self._wake()
            return
        self._parked_for = deadline
        alarm = self._alarm
        if alarm is not None and deadline != alarm.when:
            alarm.set(deadline)

    def _take(self, arrived: list[tuple[str, bytes]], now: float) -> None:
        """A turn's messages: each to the session, then what they call for sent."""
        session = self.session
        for topic, payload in arrived:
            session.receive(topic, payload, now)
        self._after_input()
        self._flush()

    def _connected(self) -> None:
        """The transport (re)connected: the session says so on the new connection."""
        self.session.connected(self.loop_time)
        self.poke()

    def _turn_here(self) -> bool:
        """Whether a turn may be taken at a read (see :meth:`_read_done`): not while
        frames wait to be published (a host's journal), which the driver waits for."""
        return True

    async def _drive(self) -> None:
        # One future per wait, woken by an arrival, a poke or the next deadline: no task
        # per message and no asyncio.wait (under load the loop's own cost per message
        # was a large part of a peer's).
        loop = asyncio.get_running_loop()
        transport = self.transport
        transport.on_arrival = self._arrived
        transport.on_read_done = self._read_done
        session = self.session
        alarm = self._alarm = Alarms.of(loop).alarm(self._ring)
        # The next deadline when the turn that just ended worked it out (it skipped the
        # timers), and the deadline this turn was waited for (-inf: not known).
        known: float | None = None
        waited_for = -math.inf
        try:
            while True:
                if self._due:
                    await asyncio.sleep(0)  # the others' turn first, as after any wait
                    waited_for = -math.inf if known is None else known
                else:
                    deadline = known if known is not None else min(
                        session.next_deadline(), self._deadline())
                    self._parked_for = deadline
                    if deadline != alarm.when:
                        alarm.set(deadline)
                    waiter = self._waiter = loop.create_future()
                    try:
                        await waiter
                    finally:
                        self._waiter = None
                    waited_for = self._parked_for  # moved by the turns taken at reads
                    error, self._inline_error = self._inline_error, None
                    if error is not None:
                        raise error
                known = None
                self._due = False
                now = loop.time()
                arrived = transport.ready(READY_BATCH)
                taken, self._taken_here = self._taken_here, False
                if arrived or taken:
                    # What else has arrived is handled in the same turn: under a flood the
                    # loop's own cost per message (waits, ticks) is the larger part.
                    # (``taken``: a turn was taken at a read, and the rest is this one's.)
                    if arrived:
                        self._take(arrived, now)  # answers first, before timers and bots
                    await self._published()
                    if len(arrived) == READY_BATCH:
                        self._due = True  # more may wait: take them next turn
                    # A turn for a message (most turns: a batch, a beat) runs the session's
                    # timers only when one is due: ``next_deadline`` is when ``tick`` next
                    # has something to do (the wait needs it anyway), and a deadline that
                    # passed before this turn (which ``next_deadline`` may no longer name,
                    # e.g. a bare name's settling second) makes it tick as before.
                    deadline = min(session.next_deadline(), self._deadline())
                    now = loop.time()
                    if now < deadline and now < waited_for:
                        known = deadline
                        continue
                session.tick(now)
                self._after_input()
                self._flush()
        finally:
            transport.on_arrival = None
            transport.on_read_done = None
            alarm.set(float("inf"))
            self._alarm = None

    def _ring(self) -> None:
        """The next deadline came: the loop runs a turn."""
        self._wake()

    async def _published(self) -> None:
        """Hook for subclasses: wait until what :meth:`_flush` held back is published."""

    def _after_input(self) -> None:
        """Hook for subclasses: look at the session after each input or tick."""

    def _deadline(self) -> float:
        """Hook for subclasses: when the peer itself next needs to run."""
        return float("inf")


INLINE_SYNC = 0.002
"""Seconds a journal's syncs take on average, at most, to be made on the loop's thread
(when the process hosts one table, see :meth:`Host._sync_inline`).

Handing a sync to a worker thread and back costs more than a fast disk's ``fdatasync``:
the thread waits for the GIL to start (the loop holds it while it seals and signs), again
to return, and the loop is woken through its self-pipe to publish. Traced on a 2-core
machine (bench net), from the start of a batch's sync to its frames going out: 0.82 ms in
the thread, 0.60 ms on the loop's thread. A slower disk (a spinning one, an SD card) is
synced in a thread, where it holds up only the frames that wait for it."""
SYNC_AVERAGING = 0.2
"""Weight of the newest sync in the running average of a journal's sync time."""


class Host(_Peer):
    """The table's authority, with its own bots.

    With a ``journal`` it writes each journal entry as soon as the session makes it and
    publishes no frame made after an entry before that entry is durable (see
    ``netplay.journal``), so the table can be brought back with :meth:`resume` after a
    crash. A fast disk is synced on the loop's thread just before the frames go out, when
    this is the process's only table (see :data:`INLINE_SYNC`); otherwise in the
    process's syncing threads (``netplay.syncs``), started as soon as the entry is
    written, while the session seals and signs the frames and the loop goes on. Entries
    written while a sync runs go to disk together in the next one.
    """

    _live: ClassVar[weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, int]] = (
        weakref.WeakKeyDictionary())
    """Hosts running now (entered and not closed), per event loop."""

    @classmethod
    def live(cls) -> int:
        """Hosts running now on this thread's event loop."""
        return cls._live.get(asyncio.get_running_loop(), 0)

    def __init__(
        self,
        settings: HostSettings,
        *,
        broker: Broker,
        identity: Identity | None = None,
        record_path: Path | None = None,
        secret: bytes | None = None,
        journal: JournalFile | None = None,
        session: HostSession | None = None,
        probe: bool = True,
    ) -> None:
        super().__init__()
        self.host = session or HostSession(
            identity or Identity.generate(), settings, 0.0, secret=secret
        )
        self.identity = self.host.identity
        self.settings = self.host.settings
        self.record_path = record_path
        self.journal = journal
        self.session = self.host
        topics = self.host.topics
        self.transport = transport = _transport(
            broker, [topics.all_outboxes, topics.all_presence, topics.announce, LISTING_QUERY],
            name=f"host-{self.settings.table}", will=self.host.last_will,
            username=self.identity.peer_id, password=self.settings.password,
            keepalive=PRESENCE_KEEPALIVE,
        )
        transport.on_connect = self._connected
        self.probe = probe and isinstance(transport, MqttTransport)
        """Whether the host finds out if its broker fires a silent client's will
        (``netplay.probe``); not on a broker known not to (the embedded one)."""
        self._probing: asyncio.Task[None] | None = None
        self.host.offload = True
        self._thinking: asyncio.Task[None] | None = None
        self._held: deque[tuple[int, Outgoing]] = deque()
        """Frames waiting for the journal: (bytes of it that must be durable, frame)."""
        self._syncing = False
        """The journal's sync is in a syncing thread (``netplay.syncs``)."""
        self._sync_idle: asyncio.Future[None] | None = None
        """Set when the sync in a thread is done (a closing host waits for it)."""
        self._close_after_sync: JournalFile | None = None
        """A journal given up while the thread synced it: closed once it is done."""
        self.sync_average = 0.0
        """Seconds a journal sync took, a running average (inline or in the thread)."""
        self._counted: asyncio.AbstractEventLoop | None = None
        """The loop this host counts as running on (see :meth:`live`)."""
        self._all_out = asyncio.Event()
        self._all_out.set()
        self.host.on_journal = self._write_journal
        self._over = asyncio.Event()
        self._recorded = False
        self._ended_at: float | None = None
        """When this host first saw its game over (wall clock): the record's ``ended_at``,
        by which the ratings order a history."""
        self._finished = False
        """The journal says the table finished (its game over and out to spectators)."""
        self.record_note: str | None = None
        """Said once when the record had to take another name than the one asked for."""

    @classmethod
    def resume(
        cls, journal: JournalFile, entries: list[Entry], *, broker: Broker,
    ) -> Host:
        """The table of ``journal`` (opened with ``JournalFile.reopen``), replayed and
        checked; ``JournalError`` if it can't be."""
        session = HostSession.resume(entries, 0.0)
        record: Path | None = None
        claimed = False
        for entry in entries:
            if entry["t"] == "journal" and entry.get("record"):
                record = Path(entry["record"])
            elif entry["t"] == "record":
                record, claimed = Path(entry["path"]), True
        host = cls(session.settings, broker=broker, record_path=record, journal=journal,
                   session=session)
        host._recorded = claimed  # the record file there is this table's own
        return host

    async def __aenter__(self) -> Self:
        self.host.now = self.loop_time
        self.host.wall_offset = time.time() - self.host.now
        if self.host.resumed:
            self.host.hold_back(time.time())
            # The journal was replayed on another clock (0.0): count every seat as seen
            # now, so that a player gets the whole grace period to come back before a
            # stand-in plays their turn, as after any other drop.
            for info in self.host.seats:
                if info is not None:
                    info.last_seen = self.host.now
        entered = await super().__aenter__()
        loop = asyncio.get_running_loop()
        Host._live[loop] = Host._live.get(loop, 0) + 1
        self._counted = loop
        if self.probe:
            self._probing = asyncio.create_task(self._probe_broker(), name="broker-probe")
        return entered

    async def _probe_broker(self) -> None:
        """Find out, once and in the background, whether the broker fires the will of a
        client that went silent (``netplay.probe``); the session is told when the probe
        went silent, and trusts the broker if the will comes in time."""
        transport = self.transport
        assert isinstance(transport, MqttTransport)
        await transport.connected.wait()
        sender = self.host.sender
        probe = Probe.new(self.host.topics.outbox(self.identity.peer_id), PROBE_KEEPALIVE,
                          wrap=lambda nonce: sender.frame("probe", {"nonce": nonce}))
        loop = asyncio.get_running_loop()
        silent: asyncio.Future[float] = loop.create_future()
        address = transport.address
        holding = asyncio.create_task(go_silent(
            probe, address.host, address.port, tls=address.tls, username=transport.username,
            password=transport.password, connected=silent))
        either: list[asyncio.Future[Any]] = [holding, silent]
        try:
            await asyncio.wait(either, return_when=asyncio.FIRST_COMPLETED)
            if silent.done():
                self.host.probe_started(probe, silent.result() + probe_deadline(probe.keepalive))
                self._wake()
            await holding
        finally:
            holding.cancel()

    async def close(self) -> None:
        probing, self._probing = self._probing, None
        if probing is not None:
            await cancel_and_wait(probing)
        thinking, self._thinking = self._thinking, None
        if thinking is not None:
            thinking.cancel()
        loop, self._counted = self._counted, None
        if loop is not None:
            Host._live[loop] -= 1
        await super().close()
        while self._syncing:  # a syncing thread still has the file: let it finish
            idle = self._sync_idle = asyncio.get_running_loop().create_future()
            await idle
        if self.journal is not None:
            self.journal.close()

    def _flush(self) -> None:
        self._write_journal()
        journal = self.journal
        publish = self.transport.publish
        if journal is None or not (journal.unsynced or self._held):
            for out in self.host.frames_to_send():  # each out before the next is made
                publish(out)
            return
        if not self._syncing and not self._held and self._sync_inline():
            # The frames that go first (the acting player's batch) are made already; the
            # disk is synced, they go out, and only then are the others made.
            first = self.host.urgent_to_send()
            self._sync_here()  # durable now, or the journal given up (the game goes on)
            for out in first:
                publish(out)
            for out in self.host.frames_to_send():
                publish(out)
            return
        self._hold(self.session.data_to_send())
        if not self._syncing and self._sync_inline():
            self._sync_here()
        else:
            self._start_sync()

    def _hold(self, frames: list[Outgoing]) -> None:
        """Keep ``frames`` until what the journal holds now is durable."""
        journal = self.journal
        need = journal.written if journal is not None else 0
        self._held.extend((need, out) for out in frames)
        if self._held:
            self._all_out.clear()

    async def _published(self) -> None:
        if self._held:
            await self._all_out.wait()

    def _turn_here(self) -> bool:
        return not self._held

    def _write_journal(self) -> None:
        """Write the session's new entries now; a slow journal starts syncing them at
        once, in a syncing thread (no waiting), a fast one at :meth:`_flush`."""
        journal = self.journal
        entries = self.host.journal_to_write()
        if not entries or journal is None:
            return
        try:
            journal.write(entries)
        except OSError as exc:
            self._journal_failed(exc)
            return
        if not self._sync_inline():
            self._start_sync()

    def _sync_inline(self) -> bool:
        """Whether to sync the journal on the loop's thread: when it is fast, and this is
        the process's only table (with several, a sync there would hold up all of them;
        measured with 100 tables a process, bench load's p99 was no better inline)."""
        if self.sync_average > INLINE_SYNC:
            return False
        try:
            return Host.live() <= 1
        except RuntimeError:  # driven from outside a loop
            return True

    def _timed_sync(self) -> int:
        """The journal's sync (on either thread), timed into :attr:`sync_average`."""
        journal = self.journal
        if journal is None:
            raise JournalError("the journal was closed")
        started = time.perf_counter()
        try:
            return journal.sync_written()
        finally:
            took = time.perf_counter() - started
            self.sync_average += (took - self.sync_average) * SYNC_AVERAGING

    def _sync_here(self) -> None:
        """Sync the journal now, on this thread, and publish what waited for it."""
        journal = self.journal
        if journal is None:
            return
        try:
            journal.mark_synced(self._timed_sync())
        except (OSError, JournalError) as exc:
            self._journal_failed(exc)
        self._release()

    def _start_sync(self) -> None:
        journal = self.journal
        if journal is None or self._syncing or not journal.unsynced:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # driven from outside a loop: sync here and now
            self._sync_here()
            return
        self._syncing = True
        SYNCS.submit(loop, self._timed_sync, self._synced)

    def _synced(self, outcome: int | Exception) -> None:
        """A syncing thread is done with the journal: what it covered is durable, and
        the frames that waited for it go out."""
        self._syncing = False
        closing, self._close_after_sync = self._close_after_sync, None
        if closing is not None:
            closing.close()
        idle, self._sync_idle = self._sync_idle, None
        if idle is not None and not idle.done():
            idle.set_result(None)
        if isinstance(outcome, Exception):
            self._journal_failed(outcome)
        elif self.journal is not None:
            self.journal.mark_synced(outcome)
        self._release()
        self._start_sync()  # what was written meanwhile: one sync for all of it

    def _release(self) -> None:
        """Publish, in order, the held frames whose journal entries are durable."""
        journal = self.journal
        held = self._held
        durable = journal.synced if journal is not None else None
        while held and (durable is None or held[0][0] <= durable):
            self.transport.publish(held.popleft()[1])
        if not held:
            self._all_out.set()

    def _journal_failed(self, exc: BaseException) -> None:
        # Stopping the game would lose it for everyone; going on only loses resume.
        journal, self.journal = self.journal, None
        if journal is None:
            return
        log.error("can't write the table's journal %s (%s): the game goes on, but it can no "
                  "longer be resumed after a crash", journal.path, exc)
        if self._syncing:  # a syncing thread still has it: close it after
            self._close_after_sync = journal
        else:
            journal.close()
        self._release()

    def _after_input(self) -> None:
        if self.host.over:
            self._over.set()
        turn = self.host.take_bot_turn()
        if turn is not None:
            self._thinking = asyncio.create_task(self._think(turn), name="host-bot")

    async def _think(self, turn: BotTurn) -> None:
        """One of the host's bots decides in a worker thread, so the loop keeps answering
        every peer meanwhile (a search bot thinks for up to its budget; the interpreter
        hands the thread's lock back to the loop every few milliseconds)."""
        action: AnyAction | None
        try:
            action = await asyncio.to_thread(turn.bot.choose, turn.view, turn.seat, turn.legal)
        except Exception:  # a bug in a bot must not stop the table
            log.exception("the bot of seat %d failed: it plays its first legal action",
                          turn.seat)
            action = None
        self.host.bot_decided(turn, action, self.loop_time)
        self._after_input()
        self._flush()
        self._wake()

    def _before_close(self) -> None:
        if self.host.over:
            # The game is over: what the spectator delay still holds goes out now, before
            # the close, so that spectators see the end even of a table closed early.
            self.host.release_all()
            self._mark_finished()
        # Take the table off the list with a signed "closed" (an empty payload is unsigned:
        # peers take it for nothing).
        self.host.close_table()

    async def finished(self, *, verify_wait: float = 5.0) -> None:
        """Wait for the game's end and every human's verification, for spectators still
        catching up on the history or (without a spectator delay) still to verify, and
        for the last Block race to be told (it settles ``race_settle`` after its window
        closed, when that window ended the game: after the end) -- at most
        ``verify_wait`` seconds (``HostSession.end_settled``)."""
        await self._over.wait()
        deadline = self.loop_time + verify_wait
        while self.loop_time < deadline and not self.host.end_settled(self.loop_time):
            await asyncio.sleep(0.05)
        self._flush()  # the verdicts that came in
        self.write_record()

    def tail_left(self) -> float:
        """Seconds the spectators are still behind the end of the game (0: they have had
        it all, or the game is not over)."""
        return self.host.tail_left(self.loop_time) if self.host.catching_up else 0.0

    def release_now(self) -> None:
        """Give spectators what the delay still holds back, at once (closing now)."""
        self.host.now = self.loop_time
        self.host.release_all()
        self._flush()
        self._wake()

    async def caught_up(self, *, verify_wait: float = 5.0) -> None:
        """After :meth:`finished`: wait until the spectator delay has released the whole
        game and its outcome to spectators, then (at most ``verify_wait`` seconds) for the
        verdicts of the spectators watching, and write the record again with them. Only
        then is the journal marked finished: a host killed before resumes the tail."""
        await self._over.wait()
        while self.host.catching_up:
            if self._task is None or self._task.done():
                return  # the loop stopped (closed, or on a bug): nothing is released now
            await asyncio.sleep(min(0.05, max(0.01, self.tail_left())))
        deadline = self.loop_time + verify_wait
        while self.loop_time < deadline and self.host.spectators_unverified(self.loop_time):
            await asyncio.sleep(0.05)
        self._flush()
        self.write_record()

    def write_record(self) -> None:
        """Write the game record; the first time under a name no file has (never over
        another game's record), then over its own. A finished game's journal is marked
        so once spectators have had its end too: it is no longer offered for resume."""
        path = self.record_path
        if self.host.over and self._ended_at is None:
            self._ended_at = time.time()
        if path is not None:
            record = self.host.record()
            if self._ended_at is not None:
                record["ended_at"] = self._ended_at
            if self._recorded:
                write_record(path, record)
            else:
                written = write_new_record(path, record)
                if written != path:
                    self.record_note = f"{path} exists: the record is {written} instead"
                    log.warning("%s", self.record_note)
                    self.record_path = path = written
                self._recorded = True
                self._journal_entry({"t": "record", "path": str(path)})
        if self.host.over and not self.host.catching_up:
            self._mark_finished()

    def _mark_finished(self) -> None:
        if not self._finished:
            self._finished = True
            self._journal_entry({"t": "finished", "at": time.time()})

    def _journal_entry(self, entry: Entry) -> None:
        if self.journal is not None:
            try:
                self.journal.append([entry])
            except OSError as exc:
                log.error("can't write the table's journal %s: %s", self.journal.path, exc)
            self._release()  # the sync covered whatever was held too


class Player(_Peer):
    """A seated player (or, with ``watch``, a spectator). Read :meth:`notices`; call :meth:`act`."""

    def __init__(
        self,
        identity: Identity,
        table: str,
        name: str,
        *,
        broker: Broker,
        password: str | None = None,
        watch: bool = False,
        pin: str | None = None,
        chat: bool = True,
        known: KnownHosts | None = None,
    ) -> None:
        super().__init__()
        self.identity = identity
        self.known = known
        """The profile's remembered hosts (``netplay.known``): the host that welcomes this
        peer is remembered until the game ends, and a remembered one followed as if pinned."""
        remembered = None
        table_name, pinned = split_pin(table)
        pin = pin or pinned
        if known is not None:
            remembered = known.get(table_name)
            if remembered is not None and pin is not None and not matches(remembered, pin):
                known.forget(table_name)  # the user pinned another host: that one it is
                remembered = None
        self.player = PlayerSession(identity, table, name, 0.0, watch=watch, password=password,
                                    pin=pin, remembered=remembered)
        self.broker_url = _plain_url(broker)
        """The broker's URL without credentials (``None``: an in-process broker), for the
        known hosts."""
        self.player.reads_chat = chat
        self.session = self.player
        self.transport = transport = _transport(
            broker, self.player.subscriptions(), name=f"{'watch' if watch else 'player'}-{name}",
            will=self.player.last_will, username=identity.peer_id, password=password,
            keepalive=KEEPALIVE,
        )
        transport.on_connect = self._connected
        self._notices: asyncio.Queue[Notice | None] = asyncio.Queue()
        self.ended = asyncio.Event()
        self.verified = asyncio.Event()

    async def __aenter__(self) -> Self:
        peer = await super().__aenter__()
        self.player.start(self.loop_time)
        self.poke()
        return peer

    @property
    def view(self) -> State | None:
        return self.player.view

    @property
    def seat(self) -> int | None:
        return self.player.seat

    def act(self, action: AnyAction) -> None:
        self.player.act(action)
        self.poke()

    def chat(self, text: str) -> None:
        self.player.chat(text)
        self.poke()

    def follow(self, key: bytes) -> None:
        """Follow one of the host keys that claim the table, and it only (the user's answer
        to :class:`~netplay.playing.notices.HostsDisagree`)."""
        self.player.follow(key)
        self.poke()

    def _before_close(self) -> None:
        self.player.leave()

    def _after_input(self) -> None:
        for notice in self.player.take_notices():
            if isinstance(notice, GameEnded):
                self.ended.set()
            elif isinstance(notice, Verified):
                self.verified.set()
            self._remember(notice)
            self._notices.put_nowait(notice)
            self._on_notice(notice)

    def _remember(self, notice: Notice) -> None:
        """Keep the profile's known host of this table: from the welcome (or a new game's
        start) until this peer's verdict on the game."""
        known, host = self.known, self.player.host_key
        if known is None:
            return
        if isinstance(notice, Joined | GameStarted) and host is not None:
            known.remember(self.player.table, host, broker=self.broker_url,
                           seated=self.player.seat is not None)
        elif isinstance(notice, Verified):
            known.forget(self.player.table)

    def _on_notice(self, notice: Notice) -> None:
        """Hook for subclasses."""

    async def notices(self) -> AsyncIterator[Notice]:
        """What happens at the table, in order, until the peer closes."""
        while True:
            notice = await self._notices.get()
            if notice is None:
                return
            yield notice

    async def close(self) -> None:
        await super().close()
        self._notices.put_nowait(None)


def _plain_url(broker: Broker) -> str | None:
    """``broker``'s ``mqtt://host:port`` (no user name or password), if it has one."""
    if isinstance(broker, BrokerAddress):
        return broker.url
    if isinstance(broker, str):
        try:
            return BrokerAddress.parse(broker).url
        except ValueError:
            return None
    return None


class Spectator(Player):
    """Watches the public stream; sees no hand, not even its owner's other seat."""

    def __init__(self, identity: Identity, table: str, name: str, *, broker: Broker,
                 known: KnownHosts | None = None) -> None:
        super().__init__(identity, table, name, broker=broker, watch=True, known=known)


class BotPeer(Player):
    """A bot that joins a table as a peer of its own and plays to the end."""

    def __init__(
        self,
        identity: Identity,
        table: str,
        *,
        broker: Broker,
        strategy: str = "greedy",
        name: str | None = None,
        password: str | None = None,
        think: float = 0.0,
        known: KnownHosts | None = None,
        pin: str | None = None,
    ) -> None:
        super().__init__(
            identity, table, name or f"{strategy}-bot", broker=broker, password=password,
            chat=False, known=known, pin=pin,
        )
        self.strategy = strategy
        self._bots: dict[str, TableBot] = {}
        self.think = think
        self._in_flight: float | None = None
        self._decide_at: float | None = None
        self._thinking: asyncio.Task[None] | None = None
        self._legal_in: tuple[Any, list[Any]] | None = None

    @property
    def bot(self) -> TableBot:
        """The bot for the table's game: the named strategy, or the game's own default
        when the name is another game's (``greedy`` at a classic Sequence table)."""
        definition = self.player.definition
        bot = self._bots.get(definition.name)
        if bot is None:
            # Seeded from the OS, not from the (public) key: nobody can predict its choices.
            bot = definition.bot(self.strategy)
            self._bots[definition.name] = bot
        return bot

    def _on_notice(self, notice: Notice) -> None:
        if isinstance(notice, Applied | Rejected):
            self._in_flight = None

    def _deadline(self) -> float:
        times = [float("inf")]
        if self._decide_at is not None:
            times.append(self._decide_at)
        if self._in_flight is not None:
            times.append(self._in_flight + 2.0)
        return min(times)

    def _after_input(self) -> None:
        super()._after_input()
        view, seat = self.player.view, self.player.seat
        if view is None or seat is None or view.outcome is not None:
            return
        now = self.loop_time
        if self._in_flight is not None and now - self._in_flight < 2.0:
            return  # wait for the answer to the last action (resend after 2 s)
        if self.player.follower.ahead:
            return  # catching up: decide on the latest view only
        if self._thinking is not None:
            return  # deciding already
        legal = self._legal(view, seat)
        if not legal:
            self._decide_at = None
            return
        if self._decide_at is None:
            self._decide_at = now + self._think_time()
        if now < self._decide_at:
            return
        self._decide_at = None
        self._in_flight = now
        if not searches(self.bot):  # decided in well under a millisecond
            self._play(self.bot.choose(view, seat, legal))
            return
        # The bot thinks on a copy of the view, in a worker thread: the loop goes on
        # receiving (and the session updating its view) meanwhile.
        self._thinking = asyncio.create_task(
            self._think(view.copy(), seat, legal, self.player.applied), name="bot-think")

    def _legal(self, view: Any, seat: int) -> list[Any]:
        """The seat's legal actions in ``view``, worked out once per view (the session
        replaces its view with every batch; this runs after every message, heartbeats
        included)."""
        known = self._legal_in
        if known is not None and known[0] is view:
            return known[1]
        legal = self.player.definition.legal_actions(view, seat)
        self._legal_in = (view, legal)
        return legal

    async def _think(self, view: Any, seat: int, legal: list[Any], applied: int) -> None:
        try:
            action = await asyncio.to_thread(self.bot.choose, view, seat, legal)
        finally:
            self._thinking = None
        if self.player.applied != applied or self.player.view is None:
            self._in_flight = None  # the table moved on meanwhile: decide again
        else:
            self._play(action)
        self.poke()

    def _play(self, action: Any) -> None:
        self._acted(action)
        self.player.act(action)

    async def close(self) -> None:
        thinking, self._thinking = self._thinking, None
        if thinking is not None:
            thinking.cancel()
        await super().close()

    def _think_time(self) -> float:
        """Seconds to wait before the next decision: ``think``; a subclass may vary it."""
        return self.think

    def _acted(self, action: Action) -> None:
        """Hook for subclasses: an action is about to be sent."""
