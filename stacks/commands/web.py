"""``stacks web``: a broker's tables in a browser, each watched in the spectator
interface (``webserver.server``)."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import signal
import sys
import time
from typing import TYPE_CHECKING, TextIO

from sshserver.options import minutes, port_number
from stacks.argtypes import broker_url, positive_int, table_name
from tui.launch import DEFAULT_BROKER

if TYPE_CHECKING:
    from netplay.lobby import TableInfo

# The same as webserver.server's (not imported here: building the parser imports no
# aiohttp); tests/webserver checks they agree.
DEFAULT_MAX_VISITORS = 500
DEFAULT_SCREEN = (120, 40)
DEFAULT_LINGER_S = 30.0
MIN_SCREEN = (80, 24)
MAX_SCREEN = (300, 100)


def _screen_size(text: str) -> tuple[int, int]:
    cols, x, rows = text.lower().partition("x")
    if not (x and cols.isdigit() and rows.isdigit()):
        raise argparse.ArgumentTypeError(f"{text!r} is not a size such as 120x40")
    size = (int(cols), int(rows))
    if not (MIN_SCREEN[0] <= size[0] <= MAX_SCREEN[0]
            and MIN_SCREEN[1] <= size[1] <= MAX_SCREEN[1]):
        raise argparse.ArgumentTypeError(
            "from {}x{} to {}x{}".format(*MIN_SCREEN, *MAX_SCREEN))
    return size


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not 0 <= value <= 86400:
        raise argparse.ArgumentTypeError("from 0 to 86400 seconds")
    return value


def add_web_arguments(commands: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Add the ``web`` command (argparse only: building the parser imports no aiohttp)."""
    web = commands.add_parser(
        "web", help="watch tables from a browser: a web page of the broker's tables",
        description="A web page that lists the broker's tables (live: players, seats, "
        "status) and opens any of them in the spectator interface, in the browser. A "
        "browser visitor is a spectator, never a seat: it sees what `stacks watch` "
        "shows, the table's spectator delay included. Each watched table runs one "
        "`stacks watch --kiosk` on this machine, drawn once and sent to all its visitors "
        "(docs/web.md). See docs/deploy.md to put it behind a TLS reverse proxy.",
    )
    web.add_argument("--port", type=port_number, default=8080,
                     help="port to listen on (8080; 0 picks a free one)")
    web.add_argument("--bind", default="127.0.0.1", metavar="ADDR",
                     help="address to listen on (127.0.0.1: this machine only; put a "
                     "reverse proxy in front, or 0.0.0.0 for every interface)")
    web.add_argument("--broker", type=broker_url, default=DEFAULT_BROKER, metavar="URL",
                     help=f"the broker whose tables are shown ({DEFAULT_BROKER})")
    web.add_argument("--table", type=table_name, metavar="TABLE",
                     help="serve this table only: the page opens it at once")
    web.add_argument("--max-spectators", type=positive_int, default=DEFAULT_MAX_VISITORS,
                     metavar="N",
                     help="browser spectators at once, all tables together (each a "
                     "websocket; the programs are one per watched table); more are told "
                     f"the page is full ({DEFAULT_MAX_VISITORS})")
    web.add_argument("--size", type=_screen_size, default=DEFAULT_SCREEN, metavar="COLSxROWS",
                     help="the size of every table's view; each browser scales its font to "
                     "fit it in its window ({}x{})".format(*DEFAULT_SCREEN))
    web.add_argument("--linger", type=_seconds, default=DEFAULT_LINGER_S, metavar="SECONDS",
                     help="keep a table's spectator this long after its last visitor "
                     f"leaves ({DEFAULT_LINGER_S:g})")
    web.add_argument("--database", metavar="URL",
                     help="also show this ratings database's games: the leaderboard of "
                     "each game, each player's page, the recent games, each finished game "
                     "as a replay at /game/ID, and the JSON API under /api/ "
                     "(sqlite:///PATH or postgresql://USER@HOST/DB; default: none)")
    web.add_argument("--max-replays", type=positive_int, default=8, metavar="N",
                     help="replays in the browser at once, each a `stacks replay` process "
                     "on this machine (8)")
    web.add_argument("--idle-timeout", type=minutes, default=30.0, metavar="MINUTES",
                     help="close a browser view with no key press, click or resize for "
                     "this long (30; 0: never, for a screen that only shows a table)")


def room_for_sockets(visitors: int) -> None:
    """Raise this process's open-file limit (up to its hard limit) to hold a socket per
    visitor and room besides: a soft limit of 1024 is common."""
    try:
        import resource
    except ImportError:  # not on this system
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = visitors + 256
    if soft != resource.RLIM_INFINITY and soft < wanted:
        top = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (top, hard))


def run(args: argparse.Namespace) -> int:
    """Serve until SIGINT/SIGTERM: 0 after a clean stop, 2 if it can't start."""
    logging.basicConfig(level=logging.WARNING)
    try:
        return asyncio.run(serve(args, sys.stdout, sys.stderr))
    except KeyboardInterrupt:
        return 0


async def serve(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from netplay.lobby import list_tables
    from webserver.server import WebError, WebServer, WebSettings

    settings = WebSettings(bind=args.bind, port=args.port, max_visitors=args.max_spectators,
                           idle_timeout=args.idle_timeout * 60, table=args.table,
                           database=args.database, max_replays=args.max_replays,
                           screen=args.size, linger=args.linger)
    room_for_sockets(settings.max_visitors)
    broker: str = args.broker

    async def tables() -> list[TableInfo]:
        return await list_tables(broker, timeout=settings.list_timeout)

    def say(text: str) -> None:
        print(f"{time.strftime('%H:%M:%S')} {text}", file=out, flush=True)

    server = WebServer(settings, tables=tables, broker=lambda: broker, say=say,
                       where=broker)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
            loop.add_signal_handler(sig, stop.set)
    try:
        await server.start()
    except WebError as exc:
        print(f"stacks web: {exc}", file=err)
        return 2
    what = f"table {args.table}" if args.table else "the tables"
    games = ""
    if args.database:
        from ratings.store import shown

        games = f", the games of {shown(args.database)}"
    print(f"stacks web: {what} of {broker}{games} on {server.url} (at most "
          f"{settings.max_visitors} browser spectators) · Ctrl-C to stop", file=out, flush=True)
    try:
        await stop.wait()
    finally:
        await server.stop()
    print("web server stopped.", file=out, flush=True)
    return 0
