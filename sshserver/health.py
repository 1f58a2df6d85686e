"""``stacks serve --metrics-port``: the metrics (`sshserver.metrics`) and the health
check, on one small HTTP server (aiohttp), loopback unless ``--metrics-bind`` says
otherwise.

- ``GET /metrics``: Prometheus's text format (or OpenMetrics, as the scraper asks).
- ``GET /healthz``: whether the server's database and broker answer, as JSON:
  ``{"database": "ok", "broker": "ok"}`` with HTTP 200; when one does not, HTTP 503 and
  its reason in words in place of ``ok``, and ``"failing"`` names them. The database
  answers a ``SELECT 1``; the broker of the held tables answers an MQTT CONNECT with a
  CONNACK (any: a refused login still shows a broker there; for ``mqtts://``, the TLS
  handshake). A server that has not started its own broker yet (no ``--broker``, no
  table opened) reports ``"not started"``, which is not a failure. Each check gives up
  after `CHECK_TIMEOUT` seconds.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import ssl
from collections.abc import Callable
from typing import TYPE_CHECKING

from aiohttp import web
from prometheus_client.aiohttp import make_aiohttp_handler

from broker.embedded import probe_mqtt
from netplay.transport import BrokerAddress
from sshserver.settings import ServeError

if TYPE_CHECKING:
    from ratings.archive import Archive
    from sshserver.metrics import ServerMetrics

CHECK_TIMEOUT = 3.0
OK = "ok"
NOT_STARTED = "not started"


async def database_health(archive: Archive) -> str:
    """``ok``, or why the database does not answer."""
    from sqlalchemy import text

    try:
        async with asyncio.timeout(CHECK_TIMEOUT):
            store = await archive.store_handle()
            async with store.engine.connect() as conn:
                await conn.execute(text("SELECT 1"))
    except TimeoutError:
        return f"no answer in {CHECK_TIMEOUT:g} s"
    except Exception as exc:  # whatever the driver raises, said in words
        cause = getattr(exc, "orig", None) or exc  # the driver's words, not SQLAlchemy's
        return _first_line(f"the database does not answer: {cause}")
    return OK


async def broker_health(url: str | None) -> str:
    """``ok``, ``not started``, or why the broker at ``url`` does not answer."""
    if url is None:
        return NOT_STARTED
    if url == "memory":
        return OK
    try:
        address = BrokerAddress.parse(url)
    except ValueError as exc:
        return str(exc)
    where = f"{address.url} does not answer"
    if not address.tls:
        answered = await probe_mqtt(address.host, address.port, timeout=CHECK_TIMEOUT)
        return OK if answered else f"{where} MQTT"
    try:
        async with asyncio.timeout(CHECK_TIMEOUT):
            _, writer = await asyncio.open_connection(
                address.host, address.port, ssl=ssl.create_default_context())
            writer.close()
            with contextlib.suppress(Exception):
                await writer.wait_closed()
    except (OSError, TimeoutError, ssl.SSLError) as exc:
        return f"{where} ({exc or type(exc).__name__})"
    return OK


def _first_line(text: str) -> str:
    return text.strip().splitlines()[0] if text.strip() else ""


class OpsServer:
    """The HTTP server of ``/metrics`` and ``/healthz``."""

    def __init__(self, metrics: ServerMetrics, archive: Archive,
                 broker: Callable[[], str | None], *, bind: str, port: int) -> None:
        self.metrics = metrics
        self.archive = archive
        self.broker = broker
        self.bind = bind
        self.port = port
        self._runner: web.AppRunner | None = None

    async def health(self) -> tuple[int, dict[str, object]]:
        """The health check's HTTP status and body."""
        database, broker = await asyncio.gather(database_health(self.archive),
                                                broker_health(self.broker()))
        body: dict[str, object] = {"database": database, "broker": broker}
        failing = [name for name, said in (("database", database), ("broker", broker))
                   if said not in (OK, NOT_STARTED)]
        if failing:
            body["failing"] = failing
        return (503 if failing else 200), body

    async def _healthz(self, request: web.Request) -> web.Response:
        status, body = await self.health()
        return web.Response(status=status, text=json.dumps(body) + "\n",
                            content_type="application/json")

    async def start(self) -> None:
        app = web.Application()
        app.router.add_get("/metrics", make_aiohttp_handler(self.metrics.registry))
        app.router.add_get("/healthz", self._healthz)
        runner = web.AppRunner(app, handle_signals=False, access_log=None,
                               shutdown_timeout=1.0)
        await runner.setup()
        site = web.TCPSite(runner, self.bind or None, self.port)
        try:
            await site.start()
        except OSError as exc:
            await runner.cleanup()
            raise ServeError(f"metrics: can't listen on {self.bind}:{self.port}: "
                             f"{exc.strerror or exc}") from exc
        self._runner = runner
        for address in runner.addresses:
            self.port = int(address[1])
            break

    @property
    def url(self) -> str:
        host = self.bind if self.bind not in ("", "0.0.0.0", "::") else "127.0.0.1"
        host = f"[{host}]" if ":" in host else host
        return f"http://{host}:{self.port}"

    async def stop(self) -> None:
        runner, self._runner = self._runner, None
        if runner is not None:
            await runner.cleanup()
