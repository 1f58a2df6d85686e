"""Transports: how a peer's frames reach the broker and come back.

``MqttTransport`` is the real one (aiomqtt): a new client per connection attempt (a
reused client skips the wait for CONNACK after a drop, see PLATFORM.md), capped
exponential backoff, resubscription after every connect, and an outbox that re-queues
what failed to go out (at-least-once; receivers drop duplicates by sequence number).
``MemoryTransport`` does the same job inside one process for fast tests.

A frame the broker would refuse is never sent, nor sent again: MQTT 3.1.1 gives a broker
no way to refuse one PUBLISH but to drop the connection, so a frame re-queued after every
reconnect would take the link down again and again (#22: a host answering a listing on a
topic that held a newline, 600 disconnects a minute on Mosquitto). Every topic is checked
(``netplay.names.publish_topic_problem``) before the frame is handed to paho, and a frame
in flight when the link dropped, soon after it went out, on :data:`POISON_DROPS`
connections in a row, is dropped as the likely cause; both are said once, as a warning.
Receivers recover a lost frame by its number (docs/protocol.md).

How a frame reaches paho's socket and how paho's reads are taken is in
:mod:`netplay.mqtt_packets`, the client aiomqtt makes per attempt in
:mod:`netplay.mqtt_client`; both work on internals of paho-mqtt and aiomqtt, listed with
the versions they were tested with in :mod:`netplay.upstream`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
import ssl
import time
import uuid
from collections import deque
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar
from urllib.parse import unquote, urlsplit

import aiomqtt
import paho.mqtt.client as mqtt
from aiomqtt.exceptions import MqttConnectError
from paho.mqtt.reasoncodes import ReasonCode

from netplay.aio import cancel_and_wait
from netplay.memory import AsyncMemoryBroker
from netplay.mqtt_client import Client
from netplay.mqtt_packets import (
    NoFilters,
    ReadAhead,
    Sent,
    fast_puback,
    fast_publish,
    fast_reader,
    fast_sender,
    read_socket,
)
from netplay.names import publish_topic_problem
from netplay.wire import Outgoing

log = logging.getLogger("netplay.transport")

_T = TypeVar("_T")

SUBSCRIBE_QOS = 0
"""The QoS peers subscribe with. Every peer connects with a clean session, so the broker
forgets what it had in flight to a peer whose connection drops, whatever the QoS: a QoS 1
subscription would promise nothing more (a lost frame is found by its number and sent
again, see docs/protocol.md) and costs a PUBACK from the subscriber for every frame, and
the broker's bookkeeping of it (measured: action -> own view p50 2.86 -> 2.49 ms on
Mosquitto with QoS 0 subscriptions, the same run alternating games). NATS backs every QoS 1
subscription with a JetStream consumer besides. Frames are still *published* at QoS 1:
the broker's PUBACK tells the publisher which frames to send again after a reconnect."""
BACKOFF_FIRST = 0.1
BACKOFF_CAP = 5.0
SUBSCRIBE_TRIES = 4
"""Times a subscription the broker refused (SUBACK 0x80) is asked for on one connection
before the transport reconnects: NATS refuses one while its JetStream cluster is busy
creating the consumer behind it, and asked again a moment later it accepts."""
SUBSCRIBE_REFUSALS = 3
"""Connections in a row on which a subscription was refused before the transport reports a
refusal (``refusal``, ``refused``) as for a refused login; it keeps trying all the same."""
POISON_WINDOW = 2.0
"""Seconds after a frame went out within which a dropped link counts against the frame
(a broker drops a link for a PUBLISH it refuses as soon as it reads it: milliseconds)."""
POISON_DROPS = 3
"""Dropped links in a row, each soon after the frame went out unacknowledged, after which
the frame is taken for their cause and dropped instead of being sent once more."""
REFUSED_TOPICS_SAID = 64
"""Topics whose refused frames are each said once (a warning); past that many, refusals
are counted (``refused_frames``) and not logged: a rogue may make a host try many topics."""

#: CONNACK refusals (MQTT 3.1.1 codes and the MQTT 5 reason codes paho maps them to).
_REFUSALS: dict[int, str] = {
    1: "it does not speak MQTT 3.1.1",
    132: "it does not speak MQTT 3.1.1",
    2: "it refused the client id",
    133: "it refused the client id",
    3: "it is up but not taking clients now (server unavailable)",
    136: "it is up but not taking clients now (server unavailable)",
    4: "bad user name or password",
    134: "bad user name or password",
    5: "not authorised to connect",
    135: "not authorised to connect",
}
_LOGIN_REFUSALS = {4, 5, 134, 135}

KEEPALIVE = 10
"""Seconds of MQTT keepalive a peer connects with unless told otherwise (a spectator)."""
PRESENCE_KEEPALIVE = 2
"""Seconds of keepalive of a host: on a broker that enforces it (the host finds out,
``netplay.probe``) a frozen host's last will comes soon enough to stand for its 2 s
heartbeats. Mosquitto 2.0 drops a client more than 1.5 x its keepalive silent (in whole
seconds) on a check it runs every 6 s: with 2 s that is at most ~10 s after the freeze;
3 s would be up to 12 s (measured: 6 s, 6 s and 12 s from the CONNECT for 2, 3 and 5 s).
A host that sends nothing for a while sends a PINGREQ (:data:`PRESENCE_PING`), which the
broker answers and no peer of the table handles; a host at a playing table sends a batch
every few seconds, and seldom needs to. Seated players keep :data:`KEEPALIVE`: pinging
every second or two to be found by their will within ``away_after`` cost them more than
the heartbeats it would spare (docs/deploy.md, issue #28)."""
PRESENCE_PING = 1
"""Seconds without sending anything after which a peer of :data:`PRESENCE_KEEPALIVE`
pings. Mosquitto 2.0 compares whole seconds: with a 2 s keepalive it drops a client whose
last packet is more than 3 whole seconds old, which can be 3.0 s of real silence. Pinging
after 2 s (paho's own rule), on the housekeeping's 1 s round, a loaded process was late
and lost its link hundreds of times a run (measured: 524 drops in one `stacks bench load`
of 600 tables, each a will and a reconnect). After 1 s the ping goes within 2 s plus the
loop's lag."""

Will = Outgoing | Callable[[], Outgoing] | None
"""A transport's last will: none, one frame, or what makes one for each connection."""


def refusal_code(exc: BaseException) -> int | None:
    """The CONNACK return code of a refused connection, or ``None`` for other errors."""
    if not isinstance(exc, MqttConnectError):
        return None
    rc = exc.rc
    if rc is None:
        return None
    return rc if isinstance(rc, int) else int(rc.value)


def refusal_words(code: int, address: BrokerAddress) -> str:
    """What a refused CONNACK means, and what to do about it, in words."""
    what = _REFUSALS.get(code, f"refusal code {code}")
    text = f"the MQTT broker at {address.url} refused the connection: {what}"
    if code in _LOGIN_REFUSALS:
        if address.username:
            text += ". Check the user name and password in the broker address."
        else:
            text += (". This broker wants a login: give it in the address, "
                     "mqtt://USER:PASSWORD@HOST:PORT.")
    return text


class SubscriptionRefused(aiomqtt.MqttError):
    """The broker answered a SUBSCRIBE with the failure code (0x80) every time it was asked:
    a peer that went on would hear nothing on that topic, so it reconnects instead."""

    def __init__(self, topic: str, address: BrokerAddress) -> None:
        super().__init__(f"the MQTT broker at {address.url} refused the subscription to "
                         f"{topic!r} (not authorised to read it, or it could not set it up)")
        self.topic = topic


def _granted(codes: Sequence[object]) -> bool:
    """Whether a SUBACK granted every filter (MQTT 3.1.1: 0-2 granted, 0x80 failure)."""
    for code in codes:
        value = code.value if isinstance(code, ReasonCode) else code
        if not isinstance(value, int) or value >= 0x80:
            return False
    return True


class _Info(Protocol):
    """What the transport asks of a frame handed to the broker: paho's
    ``MQTTMessageInfo``, or a :class:`Sent`."""

    def is_published(self) -> bool: ...


class Transport(Protocol):
    """What a peer driver needs from a connection to the broker."""

    connected: asyncio.Event

    async def start(self) -> None: ...

    async def stop(self) -> None: ...

    def publish(self, out: Outgoing) -> None:
        """Queue a frame; it goes out in order, again after a reconnect if need be."""

    async def receive(self) -> tuple[str, bytes]: ...

    def ready(self, limit: int) -> list[tuple[str, bytes]]:
        """Up to ``limit`` messages already received, without waiting."""

    on_arrival: Callable[[], None] | None
    """Called (on the loop's thread) each time a message is received: a driver that takes
    them with :meth:`ready` waits on this, not on a task per message."""

    @property
    def reading(self) -> bool:
        """Inside a read of the broker's socket, which may bring more messages: each
        arrival is then followed, once the read is done, by a call of
        :attr:`on_read_done`."""

    on_read_done: Callable[[], None] | None
    """Called (on the loop's thread) after each read of the socket that set
    :attr:`reading`, whatever it brought (a driver may take its turn there and then)."""

    async def flushed(self) -> None:
        """Wait until every queued frame was handed to the broker."""


@dataclass(frozen=True, slots=True)
class BrokerAddress:
    """Where the broker is: parsed from ``mqtt://[user[:password]@]host[:port]`` or mqtts."""

    host: str
    port: int
    tls: bool = False
    username: str | None = None
    password: str | None = None

    @classmethod
    def parse(cls, url: str) -> BrokerAddress:
        text = url if "://" in url else f"mqtt://{url}"
        try:
            parts = urlsplit(text)
            port = parts.port
        except ValueError as exc:
            raise ValueError(f"broker address {url!r}: {exc}") from None
        if parts.scheme not in ("mqtt", "mqtts"):
            raise ValueError(f"broker address {url!r}: use mqtt:// or mqtts://")
        if not parts.hostname:
            raise ValueError(f"broker address {url!r} names no host")
        if parts.path not in ("", "/") or parts.query or parts.fragment:
            raise ValueError(f"broker address {url!r}: nothing may follow host:port")
        tls = parts.scheme == "mqtts"
        return cls(
            host=parts.hostname,
            port=port or (8883 if tls else 1883),
            tls=tls,
            username=unquote(parts.username) if parts.username else None,
            password=unquote(parts.password) if parts.password else None,
        )

    @property
    def url(self) -> str:
        """The address without credentials, for messages."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{'mqtts' if self.tls else 'mqtt'}://{host}:{self.port}"


class _Outbox:
    """Frames waiting to go out, oldest first; failed ones go back to the front."""

    def __init__(self) -> None:
        self.queue: deque[Outgoing] = deque()

    def put(self, out: Outgoing) -> None:
        self.queue.append(out)

    def take_all(self) -> list[Outgoing]:
        items = list(self.queue)
        self.queue.clear()
        return items

    def take_first(self) -> Outgoing:
        return self.queue.popleft()

    def put_back(self, items: Sequence[Outgoing]) -> None:
        self.queue.extendleft(reversed(items))


class Arrivals:
    """Messages received and not taken yet, oldest first; each arrival is told to the
    listener (a peer's driver), and :meth:`get` waits for one."""

    def __init__(self) -> None:
        self.items: deque[tuple[str, bytes]] = deque()
        self.listener: Callable[[], None] | None = None
        self._getter: asyncio.Future[None] | None = None

    def put(self, item: tuple[str, bytes]) -> None:
        self.items.append(item)
        getter = self._getter
        if getter is not None and not getter.done():
            getter.set_result(None)
        listener = self.listener
        if listener is not None:
            listener()

    async def get(self) -> tuple[str, bytes]:
        while not self.items:
            getter = self._getter = asyncio.get_running_loop().create_future()
            try:
                await getter
            finally:
                self._getter = None
        return self.items.popleft()

    def take(self, limit: int) -> list[tuple[str, bytes]]:
        items = self.items
        if len(items) <= limit:
            out = list(items)
            items.clear()
            return out
        return [items.popleft() for _ in range(limit)]


class _Receiving:
    """What both transports do with what they receive: it waits in :class:`Arrivals`."""

    _incoming: Arrivals
    reading = False
    on_read_done: Callable[[], None] | None = None

    @property
    def on_arrival(self) -> Callable[[], None] | None:
        return self._incoming.listener

    @on_arrival.setter
    def on_arrival(self, listener: Callable[[], None] | None) -> None:
        self._incoming.listener = listener

    async def receive(self) -> tuple[str, bytes]:
        return await self._incoming.get()

    def ready(self, limit: int) -> list[tuple[str, bytes]]:
        """Up to ``limit`` messages already received, without waiting."""
        return self._incoming.take(limit)


class MqttTransport(_Receiving):
    """One peer's connection to an MQTT broker, kept alive until :meth:`stop`."""

    def __init__(
        self,
        address: BrokerAddress,
        subscriptions: Sequence[str],
        *,
        client_name: str,
        will: Will = None,
        username: str | None = None,
        password: str | None = None,
        keepalive: int = KEEPALIVE,
        ping_every: int | None = None,
        connect_timeout: float = 5.0,
    ) -> None:
        self.address = address
        self.subscriptions = list(subscriptions)
        self.client_name = client_name
        self.will = will
        """The last will, or what makes a fresh one for each connection attempt (a peer's
        will names its connection, so an old one can't be replayed: docs/protocol.md)."""
        self.on_connect: Callable[[], None] | None = None
        """Called at every connect, once subscribed, before the retained frames are
        published again (a peer says it is online on the new connection)."""
        self.username = address.username or username
        self.password = address.password or password
        self.keepalive = keepalive
        self.ping_every = ping_every
        """Seconds of silence after which the client pings (``None``: the keepalive, as
        paho does; see :data:`PRESENCE_PING`)."""
        self.connect_timeout = connect_timeout
        self.connected = asyncio.Event()
        self.failures = 0
        self.last_error: str | None = None
        self.frames_in = 0
        """Frames received (for the benchmarks)."""
        self.refused_frames = 0
        """Frames dropped unsent (a topic no broker takes, or refused by paho) or dropped
        after they took the link down :data:`POISON_DROPS` times in a row."""
        self._said: set[str] = set()
        """Topics whose refused frames were said already (at most REFUSED_TOPICS_SAID)."""
        self._strikes: dict[Outgoing, int] = {}
        """Per frame re-queued after a dropped link that came soon after it went out: how
        many such drops in a row."""
        self.refusal: str | None = None
        """Set when the broker answered CONNACK with a refusal: it is there, and says no."""
        self.refused = asyncio.Event()
        self._implicit_username = address.username is None and username is not None
        self._incoming = Arrivals()
        self._outbox = _Outbox()
        self._retained: dict[str, Outgoing] = {}
        """The last retained frame published per topic, published again at every
        reconnect: a broker restarted without persistence has forgotten them, and a
        newcomer needs them (the table's announcement, presence)."""
        self.connects = 0
        self._task: asyncio.Task[None] | None = None
        self._live: aiomqtt.Client | None = None
        """The client while connected: frames go straight to it."""
        self._unacked: deque[tuple[_Info, Outgoing, float]] = deque()
        """Frames handed to the broker and not acknowledged yet, with when they went."""
        self._progress = asyncio.Event()
        """Set whenever frames go out or are acknowledged (:meth:`_moved`)."""
        self._writing = False
        """Inside a publish or a read, which writes what it queued itself when done."""
        self._writer_fd: int | None = None
        """The socket whose writer is registered with the loop, while one is."""
        self._add_writer: Callable[[], None] = lambda: None
        self._fast_send: Callable[[Outgoing], Sent | None] = lambda out: None
        """Publishes a frame paho's way around, while connected (:func:`fast_sender`)."""

    async def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name=f"mqtt-{self.client_name}")

    async def wait_connected(self, timeout: float) -> bool:
        try:
            await asyncio.wait_for(self.connected.wait(), timeout)
        except TimeoutError:
            return False
        return True

    async def stop(self) -> None:
        task, self._task = self._task, None
        if task is not None:
            await cancel_and_wait(task)

    def publish(self, out: Outgoing) -> None:
        problem = publish_topic_problem(out.topic)
        if problem is not None:
            self._refuse(out, problem)
            return
        if out.retain:
            self._retained[out.topic] = out
        live = self._live
        if live is None or self._outbox.queue:
            self._outbox.put(out)  # not connected, or older frames still wait: keep order
            return
        self._send(live, out)

    def _send(self, client: aiomqtt.Client, out: Outgoing) -> bool:
        """Hand ``out`` to the client library and onto the socket now, from the caller.

        Straight to paho rather than through aiomqtt's awaited ``publish``: that costs a
        task, an await per frame and a loop iteration before the bytes leave, and on a
        host they would leave only after its own bots had acted. Frames not yet
        acknowledged are kept, to be sent again after a reconnect.
        """
        paho = client._client
        sent = self._fast_send(out)
        if sent is not None:
            self._handed(sent, out)
            return True
        self._writing = True  # paho asks for the writer while queueing: we write just after
        try:
            info = paho.publish(out.topic, out.payload, out.qos, out.retain)
        except ValueError as exc:  # paho's own checks (topic, payload size): never sendable
            self._refuse(out, f"the MQTT client refused it ({exc})")
            return False
        finally:
            self._writing = False
        if info.rc != mqtt.MQTT_ERR_SUCCESS:
            self._outbox.put_back([out])
            return False
        self._handed(info, out)
        self._write_now(paho)
        return True

    def _handed(self, info: _Info, out: Outgoing) -> None:
        """``out`` is with the client library: kept until the broker has it."""
        unacked = self._unacked
        unacked.append((info, out, time.monotonic()))
        while unacked and unacked[0][0].is_published():
            unacked.popleft()
        self._moved()

    def _write_now(self, paho: mqtt.Client) -> None:
        """Write what paho holds for the socket, here and now; register the loop's writer
        only for what the socket would not take (a full send buffer)."""
        with contextlib.suppress(OSError):  # a broken link: the reader notices, we reconnect
            paho.loop_write()
        if paho.want_write() and self._writer_fd is None:
            self._add_writer()
        self._moved()

    async def flushed(self) -> None:
        await self._until(lambda: not self._outbox.queue and self._all_acknowledged())

    def _all_acknowledged(self) -> bool:
        return all(info.is_published() for info, _, _ in self._unacked)

    def _moved(self) -> None:
        """Frames went out or were acknowledged (a read, a write): whoever waits for
        that (:meth:`_until`) looks again."""
        self._progress.set()

    async def _until(self, done: Callable[[], bool]) -> None:
        """Wait until ``done()``, looked at again each time frames move."""
        while not done():
            self._progress.clear()
            await self._progress.wait()

    def _client(self) -> aiomqtt.Client:
        client = self._new_client()
        # A host publishes a burst per batch (one frame per seat): that is not a backlog.
        client.pending_calls_threshold = 1000
        return client

    def _new_client(self) -> aiomqtt.Client:
        will = None
        last = self.will() if callable(self.will) else self.will
        if last is not None:
            will = aiomqtt.Will(last.topic, last.payload, qos=last.qos, retain=last.retain)
        tls = ssl.create_default_context() if self.address.tls else None
        return Client(
            self.address.host,
            self.address.port,
            username=self.username,
            password=self.password,
            identifier=f"{self.client_name}-{uuid.uuid4().hex[:8]}",
            protocol=aiomqtt.ProtocolVersion.V311,
            will=will,
            clean_session=True,
            keepalive=self.keepalive,
            timeout=self.connect_timeout,
            max_inflight_messages=200,
            tls_context=tls,
            # Small frames both ways: without this, Nagle meets delayed ACKs (~40 ms stalls).
            socket_options=[(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)],
        )

    async def _run(self) -> None:
        delay = BACKOFF_FIRST
        refused_subscriptions = 0
        while True:
            try:
                async with self._client() as client:
                    self._hook(client)
                    for topic in self.subscriptions:
                        await self._subscribe(client, topic)
                    self.connects += 1
                    if self.on_connect is not None:
                        self.on_connect()
                    if self.connects > 1:
                        self._republish_retained()
                    self.connected.set()
                    refused_subscriptions = 0
                    self.refusal = None
                    self.refused.clear()
                    delay = BACKOFF_FIRST
                    log.info("%s connected to %s", self.client_name, self.address.url)
                    await self._pump(client)
            except aiomqtt.MqttError as exc:
                self.failures += 1
                code = refusal_code(exc)
                if code is not None and self._anonymous_retry(code):
                    continue
                if isinstance(exc, SubscriptionRefused):
                    refused_subscriptions += 1
                    if refused_subscriptions >= SUBSCRIBE_REFUSALS:
                        # Refused on connection after connection: an ACL, not a busy broker.
                        self.refusal = str(exc) + ". Check the broker's access rules."
                        self.refused.set()
                if code is not None:
                    self.refusal = refusal_words(code, self.address)
                    self.last_error = self.refusal
                    self.refused.set()
                    log.warning("%s: %s", self.client_name, self.refusal)
                else:
                    self.last_error = str(exc)
                if self.connected.is_set():
                    log.warning("%s lost the broker: %s", self.client_name, exc)
                elif isinstance(exc, SubscriptionRefused):
                    log.warning("%s: %s; connecting again", self.client_name, exc)
                else:
                    log.info("%s can't reach %s: %s", self.client_name, self.address.url, exc)
            self.connected.clear()
            await asyncio.sleep(delay)
            delay = min(delay * 2, BACKOFF_CAP)

    async def _subscribe(self, client: aiomqtt.Client, topic: str) -> None:
        """Subscribe to ``topic`` (at :data:`SUBSCRIBE_QOS`), asking again while the
        broker refuses it.

        A refused subscription still gets a SUBACK, so without this check a peer would
        count itself connected and never hear that topic: a host deaf to its players, a
        player that never sees the host's answer (seen on a three-node NATS cluster)."""
        delay = BACKOFF_FIRST
        for attempt in range(1, SUBSCRIBE_TRIES + 1):
            codes = await self._unless_dropped(client, client.subscribe(topic, qos=SUBSCRIBE_QOS))
            if _granted(codes):
                return
            log.info("%s: the broker refused the subscription to %s (try %d of %d)",
                     self.client_name, topic, attempt, SUBSCRIBE_TRIES)
            if attempt < SUBSCRIBE_TRIES:
                await asyncio.sleep(delay)
                delay *= 2
        raise SubscriptionRefused(topic, self.address)

    @staticmethod
    async def _unless_dropped(client: aiomqtt.Client, work: Coroutine[Any, Any, _T]) -> _T:
        """``work``'s result, or the link's error as soon as the link drops: aiomqtt
        waits for a SUBACK until its timeout even when the connection is gone (and then
        leaves the disconnection's exception unretrieved, which asyncio logs)."""
        task = asyncio.create_task(work)
        dropped: asyncio.Future[Any] = client._disconnected
        either: list[asyncio.Future[Any]] = [task, dropped]
        await asyncio.wait(either, return_when=asyncio.FIRST_COMPLETED)
        if task.done():
            return task.result()
        await cancel_and_wait(task)
        exc = None if dropped.cancelled() else dropped.exception()
        if isinstance(exc, aiomqtt.MqttError):
            raise exc
        raise aiomqtt.MqttError(f"the broker closed the link{f': {exc}' if exc else ''}")

    def _anonymous_retry(self, code: int) -> bool:
        """After a login refusal of the peer id sent as user name (no password), try once
        without a user name: a stock RabbitMQ refuses a user name without a password but
        takes an anonymous client as its default user."""
        if code not in _LOGIN_REFUSALS or not self._implicit_username or self.password:
            return False
        log.info("%s: the broker refused the peer id as user name; connecting without one",
                 self.client_name)
        self._implicit_username = False
        self.username = None
        return True

    def _republish_retained(self) -> None:
        # Ahead of what waits in the outbox: a newer retained frame of the same topic
        # waiting there still goes out after it, and wins.
        waiting = {o.topic for o in self._outbox.queue if o.retain}
        again = [o for topic, o in self._retained.items() if topic not in waiting]
        if again:
            self._outbox.put_back(again)
            log.info("%s published %d retained frame(s) again", self.client_name, len(again))

    def _hook(self, client: aiomqtt.Client) -> None:
        """Take paho's callbacks for messages and socket reads and writes, before
        subscribing (the broker sends retained messages right after the SUBACK).

        Writes happen on the loop's thread, straight after what queued them: a frame we
        publish, the PUBACKs of what a read brought in. The loop's writer is registered
        only while the socket would not take everything (each registration and removal is
        an epoll call and a loop iteration, twice per frame otherwise)."""
        incoming = self._incoming
        loop = asyncio.get_running_loop()
        paho = client._client
        self._writer_fd = None
        self._writing = False

        def failed(exc: BaseException) -> None:
            if not client._disconnected.done():
                client._disconnected.set_exception(exc)

        def deliver(topic: str, payload: bytes) -> None:
            self.frames_in += 1
            incoming.put((topic, payload))

        def on_message(_client: object, _userdata: object, message: mqtt.MQTTMessage) -> None:
            # Straight into our queue from paho's callback: one hop less than aiomqtt's
            # own queue and message iterator. (QoS 0 frames come by fast_publish.)
            try:
                topic = message.topic
            except UnicodeDecodeError:  # raised out of paho's read, it would end the link
                log.info("dropped a message whose topic is not UTF-8")
                return
            deliver(topic, bytes(message.payload))

        def writable() -> None:
            try:
                paho.loop_write()
            except Exception as exc:  # a broken pipe: the link is gone
                failed(exc)
            self._moved()

        def add_writer() -> None:
            sock = paho.socket()
            if sock is None:
                return
            self._writer_fd = sock.fileno()
            # paho lets the writer go (``unregister_write``) once its queue is written and
            # when it closes the socket, if it knows of it: else the loop would call
            # ``writable`` at every turn, and keep the writer of a closed socket.
            paho._registered_write = True
            loop.add_writer(self._writer_fd, writable)

        def register_write(_paho: mqtt.Client, _userdata: object, _sock: object) -> None:
            if not self._writing:  # queued from elsewhere (a ping): let the loop write it
                add_writer()

        def unregister_write(_paho: mqtt.Client, _userdata: object, _sock: object) -> None:
            fd, self._writer_fd = self._writer_fd, None
            if fd is not None:
                loop.remove_writer(fd)

        take: Callable[[], int] | None = None

        def readable() -> None:
            # aiomqtt's reader, and the acknowledgements the read queued written at once.
            self._writing = self.reading = True
            try:
                read_socket(paho, take)
            except Exception as exc:  # a broken link: the client is disconnected
                failed(exc)
            else:
                self._writing = False
                if paho.want_write():
                    self._write_now(paho)
            finally:
                self._writing = self.reading = False
                self._moved()  # acknowledgements came, or frames went out
                done = self.on_read_done
                if done is not None:
                    done()  # what the read brought is taken (by the peer's driver)

        aiomqtt_closed = paho.on_socket_close

        def closed(_paho: mqtt.Client, userdata: object, sock: Any) -> None:
            # Whatever paho knows: the loop must not watch a closed socket (the next one
            # gets its number, and watching that would fail).
            unregister_write(_paho, userdata, sock)
            if aiomqtt_closed is not None:
                aiomqtt_closed(_paho, userdata, sock)

        self._add_writer = add_writer
        if self.ping_every is not None:
            # The CONNECT said ``keepalive``; paho's housekeeping pings (and gives up on a
            # silent broker) on its own copy of it, sooner (PRESENCE_PING).
            paho._keepalive = min(self.ping_every, self.keepalive)
        paho._on_message_filtered = NoFilters()
        paho.on_message = on_message
        paho._handle_publish = fast_publish(paho, deliver)  # type: ignore[method-assign,assignment]
        fast: dict[int, Sent] = {}
        paho._handle_pubackcomp = fast_puback(paho, fast)  # type: ignore[method-assign,assignment]
        if isinstance(paho._sock, socket.socket) and not isinstance(paho._sock, ssl.SSLSocket):
            paho._sock = ReadAhead(paho._sock)
            take = fast_reader(paho, paho._sock, deliver, fast)

        def want_writer() -> None:
            if self._writer_fd is None:
                add_writer()

        self._fast_send = fast_sender(paho, want_writer, fast)
        paho.on_publish = None  # we never await aiomqtt's publish: no callback per frame
        paho.on_socket_register_write = register_write
        paho.on_socket_unregister_write = unregister_write
        paho.on_socket_close = closed
        sock = paho.socket()
        if sock is not None:
            loop.add_reader(sock.fileno(), readable)  # in place of aiomqtt's
            # A writer aiomqtt registered while connecting (from its thread, so possibly
            # after it was unregistered) is not ours to keep.
            loop.remove_writer(sock.fileno())
            paho._registered_write = paho.want_write()
            if paho._registered_write:
                add_writer()

    async def _pump(self, client: aiomqtt.Client) -> None:
        try:
            await self._send_waiting(client)
            self._live = client
            # Messages come by the callbacks of _hook, none through aiomqtt's iterator: it
            # is only waited on, for the MqttError it ends with when the link drops.
            async for _ in client.messages:
                pass
        finally:
            self._live = None
            self._requeue_unacked()

    async def _send_waiting(self, client: aiomqtt.Client) -> None:
        """Send what waits in the outbox, in order. A frame suspected of having taken the
        last link down (it was in flight, just sent, when it dropped) goes out alone: once
        every frame before it is acknowledged, and acknowledged itself before the next one
        goes, so that should the link drop again, the frame that did it is known (a broker
        may drop the acknowledgements of the frames just before the one it refuses)."""
        outbox = self._outbox
        while outbox.queue:
            if not self._strikes:
                for out in outbox.take_all():
                    self._send(client, out)
                return
            out = outbox.take_first()
            if out not in self._strikes:
                if not self._send(client, out):
                    return  # the link is gone (the frame is back in the outbox)
                continue
            await self._unless_dropped(client, self._acknowledged())
            if not self._send(client, out):
                return
            await self._unless_dropped(client, self._acknowledged())
            del self._strikes[out]  # acknowledged: innocent

    async def _acknowledged(self) -> None:
        """Wait until the broker acknowledged every frame handed to it (rare: only after a
        link dropped just after a frame went out)."""
        await self._until(self._all_acknowledged)

    def _requeue_unacked(self) -> None:
        """Frames the broker had not acknowledged go out again after the reconnect, but for
        one that was in flight, just sent, when each of the last :data:`POISON_DROPS` links
        dropped: the broker refuses it, and sent again it would drop the next link too.

        Only the oldest such frame goes at each drop: the broker reads frames in order and
        drops the link at the first it refuses, having acknowledged those before it, so
        the frames sent after it, caught in flight as often, are innocent. Should the one
        dropped be innocent too (its acknowledgement lost with the link), the next is
        dropped at the next drop."""
        now = time.monotonic()
        strikes: dict[Outgoing, int] = {}
        again = []
        culprit = None
        for info, out, sent in self._unacked:
            if info.is_published():
                continue
            if now - sent <= POISON_WINDOW:
                count = strikes[out] = self._strikes.get(out, 0) + 1
                if culprit is None and count >= POISON_DROPS:
                    culprit = out
                    self._refuse(out, f"the broker dropped the link just after it went out, "
                                      f"{count} times in a row")
                    continue
            again.append(out)
        # A frame not caught in this drop starts again from nothing.
        self._strikes = {out: n for out, n in strikes.items() if out is not culprit}
        self._unacked.clear()
        if again:
            self._outbox.put_back(again)

    def _refuse(self, out: Outgoing, why: str) -> None:
        """Drop ``out`` for good, and say so once per topic (a warning)."""
        self.refused_frames += 1
        if out.retain and self._retained.get(out.topic) is out:
            del self._retained[out.topic]  # not to be published again at the next connect
        if out.topic in self._said or len(self._said) >= REFUSED_TOPICS_SAID:
            return
        self._said.add(out.topic)
        log.warning("%s dropped a frame it can't publish on %r: %s (said once per topic)",
                    self.client_name, out.topic[:200], why)


class MemoryTransport(_Receiving):
    """A transport on an :class:`AsyncMemoryBroker` in the same process."""

    def __init__(
        self, broker: AsyncMemoryBroker, subscriptions: Sequence[str],
        *, will: Will = None,
    ) -> None:
        self.broker = broker
        self.subscriptions = list(subscriptions)
        self.will = will
        """Made at the connect as :class:`MqttTransport` makes it (a will takes its place
        in its peer's sequence); nothing in one process vanishes, so it is never sent."""
        self.on_connect: Callable[[], None] | None = None
        self.connected = asyncio.Event()
        self._incoming = Arrivals()

    async def start(self) -> None:
        if callable(self.will):
            self.will()
        put = self._incoming.put
        for pattern in self.subscriptions:
            self.broker.subscribe(self, pattern, lambda t, p: put((t, p)))
        self.connected.set()
        if self.on_connect is not None:
            self.on_connect()

    async def stop(self) -> None:
        self.broker.unsubscribe_all(self)
        self.connected.clear()

    def publish(self, out: Outgoing) -> None:
        self.broker.publish(out.topic, out.payload, out.retain)

    async def flushed(self) -> None:
        return None

