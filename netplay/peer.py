"""What the asyncio peers share: the loop that runs one session over one transport.

Each peer (``netplay.host_peer.Host``; ``netplay.player_peer.Player``, ``Spectator`` and
``BotPeer``) is a thin driver around a session state machine (``netplay.host`` /
``netplay.player``): it moves frames between the session and a transport, runs the
session's timers, and hands notices to the user. No protocol rule lives here.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
from types import TracebackType
from typing import Protocol, Self

from engine.wire import prepare_codecs
from netplay.aio import Alarm, Alarms, cancel_and_wait
from netplay.memory import AsyncMemoryBroker
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
"""Messages already received that a peer handles in one turn of its loop."""
FLUSH_WAIT = 2.0
"""Seconds a closing peer waits for its last frames to be acknowledged by the broker."""
SLOW_BROKER_WAIT = 6.0
"""Seconds more it waits while still connected: a broker that is there but slow to
acknowledge (a NATS cluster's MQTT stalls 4 s at a time storing a message) would otherwise
lose a peer's last words, its verdict on the deal among them."""

Broker = str | BrokerAddress | AsyncMemoryBroker
"""Where to meet: a URL, a parsed address, or an in-memory broker (tests)."""


class _Session(Protocol):
    def receive(self, topic: str, payload: bytes, now: float) -> None: ...
    def tick(self, now: float) -> None: ...
    def next_deadline(self) -> float: ...
    def data_to_send(self) -> list[Outgoing]: ...
    def connected(self, now: float) -> None: ...


def make_transport(
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


class Peer:
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
