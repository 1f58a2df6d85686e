"""``stacks bot TABLE``: a bot that joins a table as a peer of its own and plays to the end."""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

from rich.text import Text

from netplay.errors import ProfileError
from netplay.identity import profiles_dir
from netplay.known import KnownHosts
from netplay.player_peer import BotPeer
from netplay.playing.notices import (
    Applied,
    GameEnded,
    GameStarted,
    Joined,
    Notice,
    Refused,
    Verified,
)
from netplay.transport import BrokerAddress
from stacks.commands.peer import (
    follow,
    held_profile,
    outcome_words,
    quiet_logs,
    reach,
    release_profiles,
    stop_on_signals,
    until_stopped,
)
from tui.history import History, Step
from tui.serve_link import LINK_ENV
from tui.words import short_name

if TYPE_CHECKING:
    from netplay.engines import EngineBot

RATE_AT_END_S = 10.0
"""Seconds the bot may spend adding its finished game to this machine's ratings (a
database that can't take it keeps it for the next game)."""


def run_bot(args: argparse.Namespace) -> int:
    quiet_logs(args.verbose)
    try:
        return asyncio.run(_bot(args))
    except KeyboardInterrupt:
        return 130
    finally:
        release_profiles()


async def _bot(args: argparse.Namespace) -> int:
    engine = None
    if getattr(args, "engine", None):
        engine = await _start_engine(args)
        if engine is None:
            return 2
    try:
        default = f"engine-{engine.spec.name}" if engine is not None else "bot"
        profile, identity = held_profile(args, default, "stacks bot")
    except ProfileError as exc:
        print(f"stacks bot: {exc}", file=sys.stderr)
        if engine is not None:
            engine.close()
        return 2
    # Stable across restarts, like the profile: the host knows a returning bot by its key.
    name = args.name or (profile if engine is not None else f"{args.strategy}-{profile}")
    stop = asyncio.Event()
    stop_on_signals(stop)
    written: list[Path] = []
    peer: BotPeer
    known = KnownHosts(profiles_dir() / profile)
    if engine is not None:
        from netplay.engine_peer import EnginePeer

        peer = EnginePeer(engine, identity, args.table, broker=args.broker, name=name,
                          password=args.password, think=args.think, known=known,
                          say=lambda text: print(f"{name}: {text}", flush=True))
    else:
        peer = BotPeer(identity, args.table, broker=args.broker, strategy=args.strategy,
                       name=name, password=args.password, think=args.think, known=known)
    async with peer as bot:
        if not await reach(bot, args.broker, "stacks bot"):
            return 1
        print(f"{name}: connected to {BrokerAddress.parse(args.broker).url}; joining table "
              f"{args.table!r}", flush=True)
        talk = BotTalk(name, args.table)

        def handle(notice: Notice) -> int | None:
            for line in talk.lines(notice):
                print(line, flush=True)
            if isinstance(notice, Refused):
                print(f"{name}: refused: {notice.reason}", file=sys.stderr)
                return 1
            if isinstance(notice, GameEnded):
                print(f"{name}: game over: "
                      f"{outcome_words(notice.outcome, bot.player.names, bot.view)}",
                      flush=True)
            if isinstance(notice, Verified):
                print(f"{name}: {notice.verdict}", flush=True)
                if bot.view is not None:
                    digest = bot.player.definition.public_hash(bot.view)
                    print(f"{name}: final public hash: {digest}", flush=True)
                if notice.verdict.ok:
                    path = _keep_seat_record(bot, name, args.table)
                    if path is not None:
                        written.append(path)
                return 0 if notice.verdict.ok else 1
            return None

        status = await until_stopped(
            follow(bot, name, args.table, args.host_timeout, handle), stop)
    for path in written:
        await _rate_here(path, name)
    return status


async def _start_engine(args: argparse.Namespace) -> EngineBot | None:
    """The ``--engine`` program, started and greeted; ``None`` after saying why not."""
    from netplay.engines import EngineBot, EngineError, EngineSpec

    try:
        spec = EngineSpec.parse(" ".join(args.engine), named=False)
    except ValueError as exc:
        print(f"stacks bot: {exc}", file=sys.stderr)
        return None
    engine = EngineBot(spec, budget=args.engine_budget, restarts=args.engine_restarts)
    try:
        said = await asyncio.to_thread(engine.start)
    except EngineError as exc:
        print(f"stacks bot: {exc}", file=sys.stderr)
        return None
    print(f"engine {spec.name}: {said.name}" + (f" by {said.author}" if said.author else "")
          + f", protocol {said.protocol}, plays {', '.join(said.games)}", flush=True)
    return engine


def _keep_seat_record(bot: BotPeer, name: str, table: str) -> Path | None:
    """This seat's record of the game (``netplay.record.SEAT_FORMAT``), written beside the
    records of games hosted here, as the interface's joiner does; ``None`` if there is
    none (the deal did not verify) or under ``stacks serve`` (the server stores its own
    tables' games)."""
    from netplay.journal import default_record_path
    from netplay.record import write_new_record

    if os.environ.get(LINK_ENV):
        return None
    record = bot.player.record(time.time())
    if record is None:
        return None
    try:
        path = write_new_record(default_record_path(table, str(record["game"])), record)
    except OSError as exc:
        print(f"{name}: not rated: this seat's record can't be written ({exc})",
              file=sys.stderr, flush=True)
        return None
    print(f"{name}: record written to {path}", flush=True)
    return path


async def _rate_here(record: Path, name: str) -> None:
    """Add the game to this machine's ratings (``stacks ratings``), once whichever record
    of it comes first, and say so; a database that can't take it now keeps it (its note
    on disk) for the next game, in words."""
    from ratings.local import add_finished, local_database
    from ratings.store import shown

    said: list[str] = []

    def say(text: str) -> None:
        said.append(text)
        print(f"{name}: ratings: {text}", file=sys.stderr, flush=True)

    try:
        added = await asyncio.wait_for(add_finished(record, say=say), RATE_AT_END_S)
    except TimeoutError:
        print(f"{name}: ratings: not rated yet: the database did not answer in "
              f"{RATE_AT_END_S:g} s; the game is kept and added with the next one",
              file=sys.stderr, flush=True)
        return
    except Exception as exc:  # the game is over and its record kept: ratings never break it
        print(f"{name}: ratings: the game could not be added ({exc!r}); its record is kept "
              f"in {record}", file=sys.stderr, flush=True)
        return
    if added is not None:
        print(f"{name}: ratings: {'already had' if added.already else 'added'} this game "
              f"({shown(local_database())}; see `stacks ratings`)", flush=True)
    elif not said:
        print(f"{name}: ratings: not rated yet; the game is kept and added with the next "
              "one", file=sys.stderr, flush=True)


class BotTalk:
    """What a headless bot says while it plays (a user who started `stacks bot` sees it
    working): its seat, the start of the game, and each of its own moves, in the words of
    the interface's log."""

    def __init__(self, name: str, table: str) -> None:
        self.name = name
        self.table = table
        self.seat: int | None = None
        self.history: History | None = None

    def lines(self, notice: Notice) -> list[str]:
        name = self.name
        if isinstance(notice, Joined) and notice.seat is not None:
            self.seat = notice.seat
            return [f"{name}: seated at table {self.table!r} (seat {notice.seat + 1}); "
                    "waiting for the deal"]
        if isinstance(notice, GameStarted):
            names = tuple(short_name(n) for n in notice.names)
            self.history = History(names, None)
            return [f"{name}: the game starts: {', '.join(names)}"]
        if isinstance(notice, Applied) and self.history is not None:
            told = self.history.add(Step.of(notice.n, notice.action, notice.events,
                                            notice.standin))
            if getattr(notice.action, "seat", None) != self.seat or self.seat is None:
                return []
            return [f"{name}: {Text.from_markup(line.markup).plain.strip()}" for line in told
                    if not line.header]
        return []
