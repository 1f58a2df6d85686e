"""Where a host's table meets: a given broker, or the embedded one started on demand."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from broker.address import lan_address
from broker.embedded import BrokerStartError, EmbeddedBroker, format_url, probe_mqtt

DEFAULT_PORT = 1883


@dataclass
class MeetingPoint:
    """The broker a host uses: its URL for peers, and the embedded broker if it runs one."""

    url: str
    embedded: EmbeddedBroker | None
    note: str
    """One line for the user: what was started or found."""

    async def close(self) -> None:
        if self.embedded is not None:
            await self.embedded.stop()


async def start_meeting_point(
    bind: str = "0.0.0.0", port: int = DEFAULT_PORT, *, password: str | None = None,
    client_host: str | None = None, lan: Callable[[], str | None] = lan_address,
) -> MeetingPoint:
    """Start the embedded broker on ``bind:port``.

    If the port is taken by an MQTT broker, use that broker instead, unless the table
    serves the LAN (a wildcard ``bind``) and that broker listens on this machine only
    (loopback: a system Mosquitto's default): then, as when the port is taken by
    something that is not MQTT, start on another free port. ``client_host`` is the
    address peers should use (default: ``bind``, or loopback for a wildcard bind);
    ``lan`` finds this machine's LAN address.
    """
    reach = client_host or ("127.0.0.1" if bind in ("0.0.0.0", "::", "") else bind)
    broker = EmbeddedBroker(bind, port, password=password)
    try:
        await broker.start()
        return MeetingPoint(
            format_url(reach, broker.port), broker,
            f"started the embedded MQTT broker on {format_url(bind, broker.port)}",
        )
    except BrokerStartError as exc:
        if not exc.address_in_use:
            raise
    if await probe_mqtt(reach, port):
        outside = lan() if bind in ("0.0.0.0", "::", "") else None
        if outside is not None and not await probe_mqtt(outside, port):
            broker = EmbeddedBroker(bind, 0, password=password)
            await broker.start()
            return MeetingPoint(
                format_url(reach, broker.port), broker,
                f"port {port} has an MQTT broker that only this machine reaches (nothing "
                f"answers on {outside}:{port}, where the LAN would look): started the "
                f"embedded broker on port {broker.port} instead",
            )
        return MeetingPoint(
            format_url(reach, port), None,
            f"port {port} already has an MQTT broker: using it",
        )
    broker = EmbeddedBroker(bind, 0, password=password)
    await broker.start()
    return MeetingPoint(
        format_url(reach, broker.port), broker,
        f"port {port} is taken by something that is not MQTT: "
        f"started the embedded broker on port {broker.port} instead",
    )
