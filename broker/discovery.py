"""Finding brokers on the LAN with mDNS / DNS-SD (python-zeroconf).

A host or ``stacks broker`` advertises its MQTT listener as a ``_sstacks-mqtt._tcp``
service; ``find_brokers`` browses for them. Which tables a broker carries is read from the
brokers themselves (their retained announcements, ``netplay.lobby``), so the mDNS record
only says where to connect.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
from dataclasses import dataclass
from types import TracebackType
from typing import Self

from zeroconf import IPVersion, ServiceStateChange, Zeroconf
from zeroconf.asyncio import AsyncServiceBrowser, AsyncServiceInfo, AsyncZeroconf

from broker.address import lan_address

SERVICE_TYPE = "_sstacks-mqtt._tcp.local."
LOOPBACK = ("127.0.0.1",)
INTERFACES_ENV = "STACKS_MDNS_INTERFACES"
"""Comma-separated IPv4 addresses to confine mDNS to (the tests set ``127.0.0.1``)."""
GOODBYE_WITHIN = 1.0
"""Seconds an advertiser's stop waits for its goodbyes (zeroconf sends three, 125 ms apart)."""


def confined_interfaces() -> tuple[str, ...] | None:
    """The interfaces ``STACKS_MDNS_INTERFACES`` confines mDNS to, if it is set."""
    text = os.environ.get(INTERFACES_ENV, "").strip()
    return tuple(a.strip() for a in text.split(",") if a.strip()) or None


@dataclass(frozen=True, slots=True)
class FoundBroker:
    name: str
    host: str
    port: int

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"mqtt://{host}:{self.port}"


def _service_label(name: str) -> str:
    cleaned = "".join(ch if ch.isalnum() or ch in "-_ " else "-" for ch in name).strip()
    return (cleaned or "sequence-stacks")[:60]


class Advertiser:
    """Advertises an MQTT listener on ``addresses`` (IPv4) while it runs.

    ``addresses=("127.0.0.1",)`` keeps the announcement on the loopback interface (tests,
    a broker bound to loopback); the default is this machine's LAN address.
    """

    def __init__(
        self, port: int, *, name: str, addresses: tuple[str, ...] | None = None,
    ) -> None:
        self.port = port
        self.name = _service_label(name)
        if addresses is None:
            lan = lan_address()
            addresses = confined_interfaces() or ((lan,) if lan else LOOPBACK)
        self.addresses = addresses
        self._zc: AsyncZeroconf | None = None
        self._info: AsyncServiceInfo | None = None
        self._announcing: asyncio.Future[object] | None = None

    async def start(self) -> None:
        interfaces = list(self.addresses)
        self._zc = AsyncZeroconf(interfaces=interfaces, ip_version=IPVersion.V4Only)
        self._info = AsyncServiceInfo(
            SERVICE_TYPE,
            f"{self.name}.{SERVICE_TYPE}",
            port=self.port,
            addresses=[socket.inet_aton(a) for a in self.addresses],
            properties={"protocol": "mqtt", "app": "sequence-stacks", "v": "1"},
            server=f"{socket.gethostname().split('.')[0] or 'stacks'}.local.",
        )
        # zeroconf returns the announcements still to send as a future of their own;
        # they go on in the background, and stop() ends them before saying goodbye.
        self._announcing = asyncio.ensure_future(
            await self._zc.async_register_service(self._info, allow_name_change=True))

    async def stop(self) -> None:
        """Withdraw the announcement: the goodbyes are sent (within a second) before this
        returns, so nothing is left for the event loop's end to cut off."""
        zc, info, announcing = self._zc, self._info, self._announcing
        self._zc = self._info = self._announcing = None
        if announcing is not None and not announcing.done():
            announcing.cancel()
            await asyncio.wait({announcing})
        if zc is not None:
            if info is not None:
                with contextlib.suppress(Exception):
                    goodbyes = await zc.async_unregister_service(info)
                    await asyncio.wait_for(goodbyes, GOODBYE_WITHIN)
            await zc.async_close()

    async def __aenter__(self) -> Self:
        await self.start()
        return self

    async def __aexit__(
        self, t: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.stop()


async def find_brokers(
    timeout: float = 2.0, *, interfaces: tuple[str, ...] | None = None
) -> list[FoundBroker]:
    """Brokers advertised on the LAN (or on ``interfaces``), found within ``timeout``."""
    interfaces = interfaces or confined_interfaces()
    choice: list[str] | None = list(interfaces) if interfaces else None
    zc = AsyncZeroconf(interfaces=choice, ip_version=IPVersion.V4Only) if choice else (
        AsyncZeroconf(ip_version=IPVersion.V4Only)
    )
    names: list[str] = []

    def on_change(
        zeroconf: Zeroconf, service_type: str, name: str, state_change: ServiceStateChange
    ) -> None:
        if state_change is ServiceStateChange.Added and name not in names:
            names.append(name)

    browser = AsyncServiceBrowser(zc.zeroconf, SERVICE_TYPE, handlers=[on_change])
    found: list[FoundBroker] = []
    try:
        await asyncio.sleep(timeout)
        for name in names:
            info = AsyncServiceInfo(SERVICE_TYPE, name)
            if not await info.async_request(zc.zeroconf, 1500):
                continue
            label = name.removesuffix("." + SERVICE_TYPE)
            for address in info.parsed_addresses(IPVersion.V4Only):
                if info.port:
                    found.append(FoundBroker(label, address, info.port))
    finally:
        await browser.async_cancel()
        await zc.async_close()
    return found
