"""``stacks tables``: the tables of the brokers on the LAN (mDNS) or of one broker."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys

from stacks.commands.peer import (
    quiet_logs,
)
from tui.discovery import find_broker_urls, find_tables


def run_tables(args: argparse.Namespace) -> int:
    quiet_logs(False)
    return asyncio.run(_tables(args))


async def _tables(args: argparse.Namespace) -> int:
    urls = [args.broker] if args.broker else await find_broker_urls(args.timeout)
    if not urls:
        print("no broker found on the LAN; ask the host for its address and use "
              "--broker mqtt://HOST:PORT", file=sys.stderr)
        return 1
    tables = await find_tables(args.timeout, brokers=urls, search_lan=False)
    if args.json:
        for table in tables:
            print(json.dumps({"table": table.table, "name": table.name, "broker": table.broker,
                              "players": table.players, "free": table.free,
                              "status": table.status, "catching_up": table.catching_up,
                              "password": table.password,
                              "fingerprint": table.fingerprint,
                              "seated": list(table.seated),
                              "conflict": list(table.conflict)}))
    elif tables:
        for table in tables:
            print(table.line())
    else:
        print(f"no tables on {', '.join(urls)}")
    return 0
