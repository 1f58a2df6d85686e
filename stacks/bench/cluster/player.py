"""A session program for ``stacks serve --session-entry
stacks.bench.cluster.player:main`` (forked from the server's fork server, as a real
player's ``stacks`` is): a player who plays a held table by itself, with no terminal
interface, and says what it lived through.

``join TABLE`` (what ``ssh -tt -p PORT NAME@HOST join TABLE`` runs): asks the server over
the session's link (`tui.serve_link`) whether it holds TABLE; if no server of the
community holds it, opens it (``--seats`` seats, one of them the server's bot; short
rules, every bot thinking `THINK` seconds an action) unless ``--resume``. Then it sits at
TABLE as a headless bot peer with the session's profile (the account's game identity, so
a player who comes back takes back its seat) and plays to the end, following the host
key the server names (``info``, ``open``: joined at once). One line each, after the
time: ``STARTED`` (the program runs), ``LINKED KEY`` (the server answered: the host key,
or ``-``), ``PEER`` (connected to the broker), ``SEATED n``, ``APPLIED n`` (a batch),
``MOVED <words>`` (the table went to another server: the words a player reads),
``OFFLINE <reason>``, ``BACK``, ``OVER``, ``VERIFIED True|False``; it exits 0 once its
fair-deal check is done, 3 if the table is gone (``GONE``), 1 if refused.

``watch TABLE`` (a spectator: ``ssh -tt … watch TABLE``) is not this program's: it runs
what a real session runs (`watch`), the terminal interface a person watching sees.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time

from netplay.identity import load_profile
from netplay.player_peer import BotPeer
from netplay.playing.notices import (
    Applied,
    GameEnded,
    HostBack,
    HostMoved,
    HostOffline,
    Joined,
    Verified,
)
from tui.serve_link import LinkError, ServeLink

RULES = {"win_chips": 3, "win_min_each_colour": 1}
THINK = 0.05
"""Seconds each bot (the players' and the server's) waits before each action: a game of
short rules lasts a few seconds, not one (a fault must strike it mid-game), and a pause
of the table stands out from its pace."""


def say(text: str) -> None:
    sys.stdout.write(f"{time.time():.3f} {text}\r\n")
    sys.stdout.flush()


async def _open(args: argparse.Namespace) -> int | str | None:
    """Open the table if no server holds it; an exit status if the player can't sit, or
    the id of the key that hosts the table when the server says (a pin: joined at once)."""
    link = ServeLink.from_env()
    if link is None:
        say("REFUSED no link to the server")
        return 2
    try:
        info = await link.request("info", table=args.table)
        if info.get("held"):
            host = info.get("host")
            return host if isinstance(host, str) else None
        if args.resume:
            say("GONE")
            return 3
        try:
            opened = await link.request("open", table=args.table, players=args.seats,
                                        bots=1, block_window=0.2, bot_delay=THINK,
                                        rules=RULES)
            host = opened.get("host")
            return host if isinstance(host, str) else None
        except LinkError as exc:
            if "already" not in str(exc):  # another session (here or on another node) did
                raise
    except LinkError as exc:
        say(f"REFUSED {exc}")
        return 1
    finally:
        link.close()
    return None


async def play(args: argparse.Namespace) -> int:
    say("STARTED")
    opened = await _open(args)
    if isinstance(opened, int):
        return opened
    say(f"LINKED {opened or '-'}")
    identity = load_profile(args.profile)
    async with BotPeer(identity, args.table, broker=args.broker[0], name=args.name,
                       pin=opened, think=THINK) as bot:
        say("PEER")
        async for notice in bot.notices():
            if isinstance(notice, Applied):
                say(f"APPLIED {notice.n}")
            elif isinstance(notice, Joined) and notice.seat is not None:
                say(f"SEATED {notice.seat}")
            elif isinstance(notice, HostMoved):
                say(f"MOVED {notice.words()}")
            elif isinstance(notice, HostOffline):
                say(f"OFFLINE {notice.reason}")
            elif isinstance(notice, HostBack):
                say("BACK")
            elif isinstance(notice, GameEnded):
                say("OVER")
            elif isinstance(notice, Verified):
                say(f"VERIFIED {notice.verdict.ok}")
                return 0
    return 1


def watch(argv: list[str]) -> int:
    """``watch TABLE``: what a real ``stacks serve`` session runs for it, the entry its
    fork server forks (`sshserver.settings.DEFAULT_ENTRY`: ``stacks``, the terminal
    interface), with the session's arguments as they are."""
    from sshserver.settings import DEFAULT_ENTRY
    from sshserver.zygote import load_entry

    return int(load_entry(DEFAULT_ENTRY)(argv) or 0)


def main(argv: list[str] | None = None) -> int:
    """The program (``python -m``), or a fork server's entry (`sshserver.zygote`: given
    the arguments)."""
    words = list(sys.argv[1:] if argv is None else argv)
    if words[:1] == ["watch"]:
        return watch(words)
    parser = argparse.ArgumentParser(prog="stacks.bench.cluster.player")
    parser.add_argument("kind", choices=["join"])
    parser.add_argument("table")
    parser.add_argument("--profile", required=True)
    parser.add_argument("--name", required=True)
    parser.add_argument("--broker", action="append", required=True)
    parser.add_argument("--seats", type=int, default=3)
    parser.add_argument("--resume", action="store_true",
                        help="only sit at a table a server holds already")
    args = parser.parse_args(words)
    return asyncio.run(play(args))


if __name__ == "__main__":
    sys.exit(main())
