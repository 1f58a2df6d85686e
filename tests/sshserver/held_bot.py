"""A session program for ``stacks serve --session-command``: a player who plays a held
table by itself, with no terminal interface.

``join TABLE`` (what ``ssh -tt -p PORT NAME@HOST join TABLE`` runs): asks the server over
the session's link (`tui.serve_link`, as the interface's host form does) whether it holds
TABLE; if not, opens it for two seats, one of them the server's bot, with short rules and
no bot delay. Then it sits at TABLE as a headless bot peer with the session's profile
(the account's game identity, so a player who comes back takes back its seat) and plays
to the end. It prints ``SEATED`` and ``VERIFIED`` as it gets there, and exits 0 once its
fair-deal check is done, 3 if the table is gone.
"""

from __future__ import annotations

import argparse
import asyncio
import sys

from netplay.identity import load_profile
from netplay.player_peer import BotPeer
from netplay.playing.notices import Joined, Verified
from tui.serve_link import LinkError, ServeLink

RULES = {"win_chips": 3, "win_min_each_colour": 1}


def say(text: str) -> None:
    sys.stdout.write(text + "\r\n")
    sys.stdout.flush()


async def play(args: argparse.Namespace) -> int:
    link = ServeLink.from_env()
    if link is None:
        say("no link to the server")
        return 2
    try:
        info = await link.request("info", table=args.table)
        if not info.get("held"):
            if args.resume:
                say("GONE")
                return 3
            await link.request("open", table=args.table, players=2, bots=1,
                               block_window=0.2, bot_delay=0, rules=RULES)
    except LinkError as exc:
        say(f"REFUSED {exc}")
        return 1
    finally:
        link.close()
    identity = load_profile(args.profile)
    async with BotPeer(identity, args.table, broker=args.broker, name=args.name) as bot:
        async for notice in bot.notices():
            if isinstance(notice, Joined) and notice.seat is not None:
                say(f"SEATED {notice.seat}")
            if isinstance(notice, Verified):
                say(f"VERIFIED {notice.verdict.ok}")
                return 0
    return 1


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("kind", choices=["join"])
    parser.add_argument("table")
    parser.add_argument("--profile", required=True)
    parser.add_argument("--name", required=True)
    parser.add_argument("--broker", required=True)
    parser.add_argument("--resume", action="store_true",
                        help="only sit at a table the server holds already")
    args = parser.parse_args()
    return asyncio.run(play(args))


if __name__ == "__main__":
    sys.exit(main())
