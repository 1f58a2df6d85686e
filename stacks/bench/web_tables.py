"""The tables of ``stacks bench web`` (see ``stacks.bench.web``), all in one process.

``stacks bench web`` measures the web server and its tables' programs; the tables it
watches are only its load. One such process holds its share of the tables, each a host
(with a bot of its own in the second seat's place, the bot's actions paced) and a bot
seat, in one event loop, as ``stacks bench load``'s workers do: a table here costs a few
milliseconds of CPU a batch, where a ``stacks host`` and a ``stacks bot`` process each
cost some 40 MiB and their own Python.

Spoken to over its standard streams: it says ``ready`` once its tables are open (listed on
the broker), seats the bots on a ``go`` line (so the games start once the visitors are
in), and closes its tables at the end of its standard input (or a ``stop`` line).

Each table's bot sits its ``starts`` seconds after the ``go`` (0 for every table when not
given): with every bot seated at once, all the tables' games move in step, each bot acting
at the same instant of every pace, and so do all the batches; a real set of tables is not
phase-locked, and ``stacks bench web`` spreads their starts over one pace unless told
``--lockstep``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
from pathlib import Path
from tempfile import TemporaryDirectory
from typing import Any

from netplay.host import HostSettings
from netplay.host_peer import Host
from netplay.identity import Identity
from netplay.journal import JournalFile
from netplay.player_peer import BotPeer

OPEN_WAIT = 60.0
"""Seconds the tables get to open."""


async def _line() -> str:
    return await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)


async def _tables(spec: dict[str, Any]) -> int:
    broker: str = spec["broker"]
    pace: float = spec["pace"]
    names: list[str] = spec["tables"]
    with TemporaryDirectory(prefix="stacks-bench-web-") as tmp:
        hosts = [Host(HostSettings(name, 2, bots=("greedy",), block_window=0.5,
                                   bot_delay=pace),
                      broker=broker, journal=JournalFile.create(name, folder=Path(tmp),
                                                                broker=broker))
                 for name in names]
        bots = [BotPeer(Identity.generate(), name, broker=broker, name="bot", think=pace)
                for name in names]
        async with contextlib.AsyncExitStack() as stack:
            for host in hosts:
                await stack.enter_async_context(host)
            print("ready", flush=True)
            if (await _line()).strip() != "go":
                return 1
            starts: list[float] = spec.get("starts") or [0.0] * len(bots)
            go = asyncio.get_running_loop().time()
            for bot, start in sorted(zip(bots, starts, strict=True), key=lambda pair: pair[1]):
                await asyncio.sleep(max(0.0, go + start - asyncio.get_running_loop().time()))
                await stack.enter_async_context(bot)
            while (await _line()).strip() not in ("stop", ""):
                pass
    return 0


def main(spec_json: str) -> int:
    return asyncio.run(_tables(json.loads(spec_json)))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
