"""This machine's address as others on the LAN see it (no import beyond the stdlib)."""

from __future__ import annotations

import contextlib
import socket


def lan_address() -> str | None:
    """The address other machines most likely reach this one at, or ``None``.

    A UDP ``connect`` sends no packet: it only makes the kernel pick the outgoing
    interface (192.0.2.1 is TEST-NET-1, never routed to anyone).
    """
    with contextlib.suppress(OSError), socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.connect(("192.0.2.1", 9))
        address = str(s.getsockname()[0])
        if not address.startswith(("127.", "0.")):
            return address
    return None
