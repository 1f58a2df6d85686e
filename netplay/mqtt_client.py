"""aiomqtt's client as the transport uses it: paho's housekeeping for every client of a
loop on one timer (:class:`Housekeeping`), and the broker's socket watched by the loop
only while it is open (:class:`Client`).
"""

from __future__ import annotations

import asyncio

import aiomqtt
import paho.mqtt.client as mqtt

HOUSEKEEPING_EVERY = 1.0
"""Seconds between two rounds of paho's housekeeping (``loop_misc``: the keepalive's
PINGREQ, and giving up on a broker that stopped answering them), as aiomqtt does it."""


class Housekeeping:
    """paho's housekeeping for every client of one event loop, on one timer.

    aiomqtt gives each client a task that wakes every second to call ``loop_misc``: a
    process running the peers of a hundred tables (a host and its seats each) woke a few
    hundred times a second for it, each wake a task step, a sleep and a timer in the
    loop's heap: ~3% of the peers' CPU in a cProfile of ``stacks bench load``, and 8%
    less CPU per action without them, measured (issue #28, docs/deploy.md). Here one
    timer a second calls ``loop_misc`` for all of them, in the same order of events: a
    client's first round when it connects, then every :data:`HOUSEKEEPING_EVERY`, until
    ``loop_misc`` fails (the link is gone) or its client disconnects."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.clients: dict[mqtt.Client, asyncio.Future[None]] = {}
        self._timer: asyncio.TimerHandle | None = None

    @classmethod
    async def keep(cls, paho: mqtt.Client) -> None:
        """Until ``paho``'s ``loop_misc`` fails (or this is cancelled: its client
        disconnects), as aiomqtt's own ``_misc_loop`` would run."""
        if paho.loop_misc() != mqtt.MQTT_ERR_SUCCESS:
            return
        loop = asyncio.get_running_loop()
        keeper = KEEPERS.get(loop)
        if keeper is None:
            keeper = KEEPERS[loop] = cls(loop)
        done = keeper.clients[paho] = loop.create_future()
        if keeper._timer is None:
            keeper._timer = loop.call_later(HOUSEKEEPING_EVERY, keeper._round)
        try:
            await done
        finally:
            keeper._forget(paho)

    def _forget(self, paho: mqtt.Client) -> None:
        self.clients.pop(paho, None)
        if not self.clients:
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None
            if KEEPERS.get(self.loop) is self:
                del KEEPERS[self.loop]

    def _round(self) -> None:
        self._timer = None
        for paho, done in list(self.clients.items()):
            if done.done():
                continue
            try:
                ok = paho.loop_misc() == mqtt.MQTT_ERR_SUCCESS
            except Exception as exc:  # that client's task ends on it, as before
                done.set_exception(exc)
                continue
            if not ok:
                done.set_result(None)
        if any(not done.done() for done in self.clients.values()):
            self._timer = self.loop.call_later(HOUSEKEEPING_EVERY, self._round)


KEEPERS: dict[asyncio.AbstractEventLoop, Housekeeping] = {}
"""The housekeeping of each event loop that has connected clients."""


class Client(aiomqtt.Client):
    """aiomqtt's client, its per-client housekeeping task replaced by :class:`Housekeeping`
    (should aiomqtt rename its ``_misc_loop``, its own runs instead: the same work, dearer)."""

    async def _misc_loop(self) -> None:
        await Housekeeping.keep(self._client)
