"""How long a held table's host takes from a player's action to that player's own view
of what it did: measured at the host, in the server's process, for the metrics
(`sshserver.metrics`).

The time runs from the host's session taking the action's frame off its connection
(``HostSession.receive``: the frame is read, the turn that handles it begins) to the host
handing the first frame for that seat's own inbox to its transport after the action was
played (the batch with the seat's sealed view, or the refusal of an illegal action;
the acting seat's copy goes out first, after the journal's entry is on disk). So it
covers decoding and checking the frame, the rules, the journal's sync and the sealing,
not the broker's two hops or the player's own machine: those a player's ``stacks bench``
measures. Actions of the host's own bots and stand-ins (no frame, no inbox) are not
counted; a player's server-seated bot is a peer like any other and is.

It watches the host from outside (its session's ``receive`` and ``step`` and its
transport's ``publish``, wrapped on the instances), so the protocol's code carries no
metric.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from netplay.identity import peer_id
from netplay.wire import Outgoing

if TYPE_CHECKING:
    from netplay.host_peer import Host

MAX_WAITING = 64
"""Answers at most waited for (one or two in practice: each goes out at the end of the
turn that made it, or once the journal is on disk); one that never leaves (the table
closed) is forgotten rather than kept."""


def watch_host(host: Host, observe: Callable[[float], None]) -> None:
    """Call ``observe(seconds)`` for each action of a seated peer at ``host``, once the
    frame that answers it to its seat leaves (see the module's words)."""
    session = host.host
    topics = session.topics
    outbox = session.sender.outbox
    received = [0.0]
    by_frame: dict[int, tuple[float, Outgoing]] = {}
    """The answer's frame (made already), by its id: the batch's, on ``table``."""
    by_topic: dict[str, float] = {}
    """The answer's topic, for a frame made only when it is sent (a refusal, sealed)."""
    receive = session.receive
    step = session.step
    transport = host.transport
    publish = transport.publish

    def timed_receive(topic: str, payload: bytes, now: float) -> None:
        received[0] = time.perf_counter()
        try:
            receive(topic, payload, now)
        finally:
            received[0] = 0.0

    def timed_step(action: Any, proof: bytes | None, key: bytes | None, *,
                   standin: bool = False) -> bool:
        started = received[0]
        if key is None or standin or not started:
            return step(action, proof, key, standin=standin)
        before = len(outbox)
        try:
            return step(action, proof, key, standin=standin)
        finally:
            _note(started, topics.inbox(peer_id(key)), before)

    def _note(started: float, inbox: str, before: int) -> None:
        """The first frame the step queued for the seat: its batch, or its refusal."""
        for item in itertools.islice(outbox, before, None):
            if item.topic not in (topics.table_stream, inbox):
                continue
            if isinstance(item, Outgoing):
                by_frame[id(item)] = (started, item)
            else:
                by_topic.setdefault(item.topic, started)
            break
        while len(by_frame) > MAX_WAITING:
            del by_frame[next(iter(by_frame))]
        while len(by_topic) > MAX_WAITING:
            del by_topic[next(iter(by_topic))]

    def timed_publish(out: Outgoing) -> None:
        noted = by_frame.pop(id(out), None)
        started = noted[0] if noted is not None else by_topic.pop(out.topic, None)
        publish(out)
        if started is not None:
            observe(time.perf_counter() - started)

    session.receive = timed_receive  # type: ignore[method-assign]
    session.step = timed_step  # type: ignore[method-assign]
    transport.publish = timed_publish  # type: ignore[method-assign]
