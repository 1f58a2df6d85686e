"""``stacks broker``: run the embedded MQTT broker in the foreground.

`add_arguments` adds ``--bind ADDR:PORT`` and ``--password`` to a parser; `run` serves
until Ctrl-C (SIGINT) or SIGTERM and returns the exit status: 0 after a clean stop, 2 when
the address cannot be bound (in use, not local, no permission).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import signal
import socket
import sys
import time
from typing import NamedTuple, TextIO

from broker.address import lan_address
from broker.embedded import BrokerStartError, EmbeddedBroker, format_url, free_port, probe_mqtt

DEFAULT_BIND = "0.0.0.0:1883"
_WILDCARDS = ("0.0.0.0", "::", "")
#: Seconds between two checks of the client count (and updates of the live status line).
_TICK_S = 0.5
#: Without a terminal, a status line is printed when the count changes and at least this often.
_PLAIN_EVERY_S = 60.0


class BindAddress(NamedTuple):
    """Where to listen: a host (name or IP literal, without brackets) and a port (0: any)."""

    host: str
    port: int

    def __str__(self) -> str:
        return f"[{self.host}]:{self.port}" if ":" in self.host else f"{self.host}:{self.port}"


def parse_bind(text: str) -> BindAddress:
    """Parse ``ADDR:PORT``, ``[IPv6]:PORT``, ``ADDR`` (port 1883) or ``:PORT`` / ``PORT``.

    Raises `argparse.ArgumentTypeError` with a message fit for the command line.
    """
    text = text.strip()
    default_port = "1883"
    if text.startswith("["):
        host, closed, rest = text[1:].partition("]")
        if not closed or (rest and not rest.startswith(":")):
            raise argparse.ArgumentTypeError(f"{text!r}: write an IPv6 address as [ADDR]:PORT")
        port_text = rest[1:] or default_port
    elif text.count(":") > 1:
        raise argparse.ArgumentTypeError(f"{text!r}: write an IPv6 address as [ADDR]:PORT")
    elif ":" in text:
        host, _, port_text = text.partition(":")
    elif text.isdigit():
        host, port_text = "", text
    else:
        host, port_text = text, default_port
    try:
        port = int(port_text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: the port must be a number") from None
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"{text!r}: the port must be in 0-65535")
    return BindAddress(host or "0.0.0.0", port)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the ``stacks broker`` options to `parser`."""
    parser.add_argument(
        "--bind",
        metavar="ADDR:PORT",
        type=parse_bind,
        default=DEFAULT_BIND,
        help=f"address and port to listen on ({DEFAULT_BIND}: every interface; "
        "127.0.0.1:PORT: this machine only; port 0 picks a free one)",
    )
    parser.add_argument(
        "--no-advertise",
        action="store_true",
        help="don't announce the broker on the LAN (mDNS)",
    )
    parser.add_argument(
        "--broker-impl",
        choices=("embedded", "mosquitto"),
        default="embedded",
        help="the embedded broker, or a local Mosquitto with the shipped LAN config "
        "(embedded)",
    )
    parser.add_argument(
        "--password",
        metavar="SECRET",
        default=None,
        help="table password: clients must log in with any username and this password "
        "(default: anyone may connect). Other local users can see it in the process list.",
    )


def run(args: argparse.Namespace) -> int:
    """Serve until SIGINT/SIGTERM; 0 after a clean stop, 2 if the address cannot be bound."""
    bind = args.bind
    if not isinstance(bind, BindAddress):  # a Namespace built by hand may carry the string
        try:
            bind = parse_bind(str(bind))
        except argparse.ArgumentTypeError as exc:
            print(f"stacks broker: --bind {exc}", file=sys.stderr)
            return 2
    if getattr(args, "broker_impl", "embedded") == "mosquitto":
        try:
            return asyncio.run(_serve_mosquitto(bind, args.password, sys.stdout, sys.stderr))
        except KeyboardInterrupt:
            return 0
    _quiet_amqtt_logs()
    try:
        return asyncio.run(_serve(bind, args.password, sys.stdout, sys.stderr,
                                  advertise=not getattr(args, "no_advertise", False)))
    except KeyboardInterrupt:  # Ctrl-C where no signal handler could be installed
        return 0


class _DropAmqttNoise(logging.Filter):
    """Drop amqtt errors that tell a user nothing.

    "No data from ...": a TCP connection closed before CONNECT (a port check). "... failed
    during (broadcast) shutdown": one traceback per message still queued for a client
    that stopped reading, when the broker stops.
    """

    NOISE = ("No data from", "Task failed during broadcast shutdown", "Broadcast task failed")

    def filter(self, record: logging.LogRecord) -> bool:
        return not str(record.msg).startswith(self.NOISE)


def _quiet_amqtt_logs() -> None:
    """Keep amqtt's chatter off the status display: errors only, minus the noise.

    Left alone if the caller already chose a level for the ``amqtt`` logger.
    """
    amqtt_log = logging.getLogger("amqtt")
    if amqtt_log.level == logging.NOTSET:
        amqtt_log.setLevel(logging.ERROR)
        logging.getLogger("amqtt.broker").addFilter(_DropAmqttNoise())


async def _serve(
    bind: BindAddress, password: str | None, out: TextIO, err: TextIO, *, advertise: bool = False
) -> int:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    installed: list[signal.Signals] = []
    for sig in (signal.SIGINT, signal.SIGTERM):
        try:
            loop.add_signal_handler(sig, stop.set)
        except (NotImplementedError, RuntimeError, ValueError):  # Windows, not main thread
            continue
        installed.append(sig)
    try:
        broker = EmbeddedBroker(bind.host, bind.port, password=password)
        try:
            await broker.start()
        except BrokerStartError as exc:
            print(f"stacks broker: {exc}", file=err)
            if exc.address_in_use:
                print(f"  {await _who_is_there(bind)}", file=err)
            return 2
        advertiser = None
        if advertise:
            from broker.discovery import Advertiser

            local = bind.host.startswith("127.")
            advertiser = Advertiser(broker.port, name=f"stacks broker {socket.gethostname()}",
                                    addresses=("127.0.0.1",) if local else None)
            try:
                await advertiser.start()
            except Exception as exc:  # zeroconf raises several kinds on odd networks
                print(f"stacks broker: not announced on the LAN: {exc}", file=err)
                advertiser = None
        try:
            await _show_status(broker, stop, out)
        finally:
            if advertiser is not None:
                await advertiser.stop()
            await broker.stop()
        return 0
    finally:
        for sig in installed:
            loop.remove_signal_handler(sig)


async def _serve_mosquitto(
    bind: BindAddress, password: str | None, out: TextIO, err: TextIO
) -> int:
    """Run Mosquitto with the shipped LAN config until SIGINT/SIGTERM."""
    from broker.mosquitto_runner import MosquittoProcess

    if password is not None:
        print("stacks broker: --password is for the embedded broker; with Mosquitto, set up "
              "the password file and ACL of docs/deploy.md", file=err)
        return 2
    if bind.port == 0:
        bind = BindAddress(bind.host, free_port())
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
            loop.add_signal_handler(sig, stop.set)
    broker = MosquittoProcess(bind.host, bind.port)
    try:
        await broker.start()
    except (OSError, RuntimeError) as exc:
        print(f"stacks broker: {exc}", file=err)
        return 2
    try:
        print(f"Mosquitto listening on {format_url(bind.host, bind.port)} "
              "(shipped LAN config); Ctrl-C stops it", file=out, flush=True)
        await stop.wait()
    finally:
        await broker.stop()
    return 0


async def _who_is_there(bind: BindAddress) -> str:
    host = "127.0.0.1" if bind.host in _WILDCARDS else bind.host
    if await probe_mqtt(host, bind.port, timeout=1.0):
        return (
            f"An MQTT broker already answers at {format_url(host, bind.port)}: players can use "
            "it as it is, or choose another port with --bind ADDR:PORT."
        )
    return "Another program uses that port: choose another one with --bind ADDR:PORT."


def _clients(broker: EmbeddedBroker) -> str:
    n = broker.client_count
    return f"{n} client connected" if n == 1 else f"{n} clients connected"


def _where(broker: EmbeddedBroker, lan: str | None) -> str:
    login = "password required" if broker.password_required else "no password"
    where = broker.url
    if lan is not None:
        where += f" (players use {format_url(lan, broker.port)})"
    return f"MQTT broker on {where} · {login}"


async def _tick(stop: asyncio.Event) -> None:
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(stop.wait(), _TICK_S)


async def _show_status(broker: EmbeddedBroker, stop: asyncio.Event, out: TextIO) -> None:
    lan = lan_address() if broker.host in _WILDCARDS else None
    if out.isatty():
        from rich.console import Console
        from rich.live import Live
        from rich.text import Text

        console = Console(file=out)
        console.print(Text(_where(broker, lan) + " · Ctrl-C to stop"))

        def render() -> Text:
            return Text(f"● {_clients(broker)}", no_wrap=True, overflow="ellipsis")

        with Live(render(), console=console, auto_refresh=False) as live:
            while not stop.is_set():
                await _tick(stop)
                live.update(render(), refresh=True)
        console.print(Text("MQTT broker stopped."))
        return

    last, last_at = "", 0.0
    while not stop.is_set():
        line = f"{_where(broker, lan)} · {_clients(broker)}"
        now = time.monotonic()
        if line != last or now - last_at >= _PLAIN_EVERY_S:
            print(f"{time.strftime('%H:%M:%S')} {line}", file=out, flush=True)
            last, last_at = line, now
        await _tick(stop)
    print(f"{time.strftime('%H:%M:%S')} MQTT broker stopped.", file=out, flush=True)
