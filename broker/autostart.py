"""Where a host's table meets: a given broker, or the embedded one started on demand."""

from __future__ import annotations

from dataclasses import dataclass

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
    client_host: str | None = None,
) -> MeetingPoint:
    """Start the embedded broker on ``bind:port``.

    If the port is taken by an MQTT broker, use that broker instead; if it is taken by
    something else, start on another free port. ``client_host`` is the address peers
    should use (default: ``bind``, or loopback for a wildcard bind).
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
