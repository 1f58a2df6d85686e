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

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from netplay.identity import peer_id

if TYPE_CHECKING:
    from netplay.host_peer import Host
    from netplay.wire import Outgoing

MAX_WAITING = 64
"""Actions at most waiting for their seat's frame (one per seat in practice: a seat acts
once per answer); an answer that never comes is forgotten rather than kept."""


def watch_host(host: Host, observe: Callable[[float], None]) -> None:
    """Call ``observe(seconds)`` for each action of a seated peer at ``host``, once the
    frame that answers it to its seat leaves (see the module's words)."""
    session = host.host
    topics = session.topics
    received = [0.0]
    waiting: dict[str, float] = {}
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
        if key is not None and not standin and received[0]:
            inbox = topics.inbox(peer_id(key))
            waiting.setdefault(inbox, received[0])
            while len(waiting) > MAX_WAITING:
                del waiting[next(iter(waiting))]
        return step(action, proof, key, standin=standin)

    def timed_publish(out: Outgoing) -> None:
        started = waiting.pop(out.topic, None)
        publish(out)
        if started is not None:
            observe(time.perf_counter() - started)

    session.receive = timed_receive  # type: ignore[method-assign]
    session.step = timed_step  # type: ignore[method-assign]
    transport.publish = timed_publish  # type: ignore[method-assign]
