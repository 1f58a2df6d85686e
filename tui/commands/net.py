"""The headless netplay commands: ``host --headless``, ``bot``, ``watch --headless``,
``verify``."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import logging
import os
import signal
import sys
import time
from collections.abc import Coroutine
from pathlib import Path
from typing import Any

import platformdirs

from broker.autostart import start_meeting_point
from broker.discovery import Advertiser
from engine.config import RulesConfig
from engine.rng import derive_seed
from engine.state import Outcome, Termination
from engine.views import public_hash
from netplay.errors import ProfileError
from netplay.host import HostSettings
from netplay.identity import APP_NAME, KEY_FILE, Identity, load_profile, profiles_dir
from netplay.peers import BotPeer, Host, Spectator
from netplay.player import Applied, GameEnded, Refused, Verified
from netplay.record import read_record, verify_record
from netplay.transport import BrokerAddress
from tui.discovery import find_broker_urls, find_tables

DEFAULT_BROKER = "mqtt://127.0.0.1:1883"


def outcome_words(outcome: Outcome, names: tuple[str, ...] | list[str]) -> str:
    if outcome.winner is not None:
        who = names[outcome.winner] if outcome.winner < len(names) else f"seat {outcome.winner}"
        return f"{who} wins"
    if outcome.termination == Termination.STALEMATE:
        return "a draw: nothing left to draw and nobody could play"
    return "a draw: the turn limit was reached"


def _quiet_logs(verbose: bool) -> None:
    logging.basicConfig(
        level=logging.INFO if verbose else logging.WARNING,
        format="%(asctime)s %(name)s %(levelname)s %(message)s",
        stream=sys.stderr,
    )
    logging.getLogger("amqtt").setLevel(logging.CRITICAL)
    logging.getLogger("mqtt").setLevel(logging.ERROR)  # aiomqtt's logger


def default_record_path(table: str) -> Path:
    stamp = time.strftime("%Y%m%d-%H%M%S")
    return Path(platformdirs.user_data_dir(APP_NAME)) / "records" / f"{table}-{stamp}.json"


CONNECT_WAIT = 15.0


async def _reach(peer: Host | BotPeer | Spectator, url: str, who: str) -> bool:
    """Wait for the first connection; say clearly when the broker can't be reached."""
    connected = peer.transport.connected
    try:
        await asyncio.wait_for(connected.wait(), CONNECT_WAIT)
    except TimeoutError:
        address = BrokerAddress.parse(url).url
        print(f"{who}: can't reach the MQTT broker at {address} (tried for "
              f"{CONNECT_WAIT:.0f} s). Is the host running, and is the address right? "
              "Give it with --broker mqtt://HOST:PORT.", file=sys.stderr)
        return False
    return True


async def _until_stopped(work: Coroutine[Any, Any, int], stop: asyncio.Event) -> int:
    """``work``'s exit status, or 130 if a signal stops it first."""
    worker = asyncio.create_task(work)
    stopped = asyncio.create_task(stop.wait())
    await asyncio.wait({worker, stopped}, return_when=asyncio.FIRST_COMPLETED)
    stopped.cancel()
    if worker.done():
        return worker.result()
    worker.cancel()
    return 130


def _stop_on_signals(stop: asyncio.Event) -> None:
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(sig, stop.set)


# -- host ------------------------------------------------------------------------------------


def run_host(args: argparse.Namespace) -> int:
    _quiet_logs(args.verbose)
    try:
        return asyncio.run(_host(args))
    except KeyboardInterrupt:
        return 130


async def _host(args: argparse.Namespace) -> int:
    from tui.cli import host_bot_levels

    try:
        settings = HostSettings(
            table=args.table,
            players=args.players,
            bots=host_bot_levels(args), standin=args.standin,
            rules=RulesConfig(),
            block_window=args.block_window,
            password=args.password,
            bot_delay=args.bot_delay,
        )
    except ValueError as exc:
        print(f"stacks host: {exc}", file=sys.stderr)
        return 2
    meeting = None
    mosquitto = None
    if args.broker:
        url = args.broker
    elif args.broker_impl == "mosquitto":
        from broker.mosquitto_runner import MosquittoProcess

        mosquitto = MosquittoProcess(args.bind, args.port)
        try:
            await mosquitto.start()
        except (OSError, RuntimeError) as exc:
            print(f"stacks host: can't start Mosquitto: {exc}", file=sys.stderr)
            return 2
        print(f"started Mosquitto on port {args.port} (shipped LAN config)", flush=True)
        url = mosquitto.url
    else:
        try:
            meeting = await start_meeting_point(
                args.bind, args.port, password=args.password
            )
        except OSError as exc:
            print(f"stacks host: can't start the embedded broker: {exc}", file=sys.stderr)
            return 2
        print(meeting.note, flush=True)
        url = meeting.url
    advertiser = None
    if not args.broker and not args.no_advertise:
        advertiser = await _advertise(args.bind, BrokerAddress.parse(url).port, args.table)
    secret = derive_seed(args.seed, label="host-secret") if args.seed is not None else None
    record = Path(args.record) if args.record else default_record_path(args.table)
    identity = load_profile(args.profile) if args.profile else Identity.generate()
    stop = asyncio.Event()
    _stop_on_signals(stop)
    try:
        async with Host(settings, broker=url, identity=identity, record_path=record,
                        secret=secret) as host:
            if not await _reach(host, url, "stacks host"):
                return 1
            waiting = args.players - args.bots
            print(f"table {args.table!r} on {BrokerAddress.parse(url).url}: "
                  f"{args.players} seats, {args.bots} bots", flush=True)
            if waiting:
                print(f"waiting for {waiting} player(s): "
                      f"stacks join {args.table} --broker {BrokerAddress.parse(url).url}",
                      flush=True)
            finished = asyncio.create_task(host.finished(verify_wait=args.verify_wait))
            stopped = asyncio.create_task(stop.wait())
            await asyncio.wait({finished, stopped}, return_when=asyncio.FIRST_COMPLETED)
            stopped.cancel()
            if not finished.done():
                finished.cancel()
                host.write_record()
                print("stopped before the end of the game; record kept", file=sys.stderr)
                return 130
            session = host.host
            assert session.game is not None and session.game.outcome is not None
            names = [info.name if info else "?" for info in session.seats]
            print(f"game over: {outcome_words(session.game.outcome, names)} "
                  f"after {session.game.state.turn} turns", flush=True)
            print(f"final public hash: {public_hash(session.game.state)}", flush=True)
            for who, verdict in sorted(session.verdicts.items()):
                state = "deal verified" if verdict["ok"] else f"FAILED: {verdict['detail']}"
                print(f"  {who}: {state}")
            print(f"record written to {record}", flush=True)
            failed = any(not v["ok"] for v in session.verdicts.values())
            return 1 if failed else 0
    finally:
        if meeting is not None:
            await meeting.close()
        if mosquitto is not None:
            await mosquitto.stop()
        if advertiser is not None:
            await advertiser.stop()


async def _advertise(bind: str, port: int, name: str) -> Advertiser | None:
    """Announce the broker on the LAN; a failure only costs discovery, so it only warns."""
    addresses = ("127.0.0.1",) if bind.startswith("127.") else None
    advertiser = Advertiser(port, name=f"stacks {name}", addresses=addresses)
    try:
        await advertiser.start()
    except Exception as exc:  # zeroconf raises several kinds on odd networks
        print(f"could not announce the table on the LAN ({exc}); players can still join "
              "with --broker", file=sys.stderr)
        return None
    return advertiser


# -- profile -----------------------------------------------------------------------------------


def run_profile(args: argparse.Namespace) -> int:
    try:
        identity = load_profile(args.name)
    except ProfileError as exc:
        print(f"stacks profile: {exc}", file=sys.stderr)
        return 2
    print(f"profile:  {args.name}")
    print(f"key file: {profiles_dir() / args.name / KEY_FILE}")
    print(f"peer id:  {identity.peer_id}")
    return 0


# -- tables ------------------------------------------------------------------------------------


def run_tables(args: argparse.Namespace) -> int:
    _quiet_logs(False)
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
                              "status": table.status, "password": table.password,
                              "seated": list(table.seated)}))
    elif tables:
        for table in tables:
            print(table.line())
    else:
        print(f"no tables on {', '.join(urls)}")
    return 0


# -- bot ---------------------------------------------------------------------------------------


def run_bot(args: argparse.Namespace) -> int:
    _quiet_logs(args.verbose)
    try:
        return asyncio.run(_bot(args))
    except KeyboardInterrupt:
        return 130


async def _bot(args: argparse.Namespace) -> int:
    identity = load_profile(args.profile) if args.profile else Identity.generate()
    name = args.name or f"{args.strategy}-bot-{os.getpid() % 1000}"
    stop = asyncio.Event()
    _stop_on_signals(stop)
    async with BotPeer(identity, args.table, broker=args.broker, strategy=args.strategy,
                       name=name, password=args.password, think=args.think) as bot:
        if not await _reach(bot, args.broker, "stacks bot"):
            return 1
        async def follow() -> int:
            async for notice in bot.notices():
                if isinstance(notice, Refused):
                    print(f"{name}: refused: {notice.reason}", file=sys.stderr)
                    return 1
                if isinstance(notice, GameEnded):
                    print(f"{name}: game over: "
                          f"{outcome_words(notice.outcome, bot.player.names)}", flush=True)
                if isinstance(notice, Verified):
                    print(f"{name}: {notice.verdict}", flush=True)
                    if bot.view is not None:
                        print(f"{name}: final public hash: {public_hash(bot.view)}", flush=True)
                    return 0 if notice.verdict.ok else 1
            return 1

        return await _until_stopped(follow(), stop)


# -- watch -----------------------------------------------------------------------------------


def run_watch(args: argparse.Namespace) -> int:
    _quiet_logs(args.verbose)
    try:
        return asyncio.run(_watch(args))
    except KeyboardInterrupt:
        return 130


async def _watch(args: argparse.Namespace) -> int:
    identity = load_profile(args.profile) if args.profile else Identity.generate()
    stop = asyncio.Event()
    _stop_on_signals(stop)
    out = sys.stdout
    async with Spectator(identity, args.table, args.name or "spectator",
                         broker=args.broker) as watcher:
        if not await _reach(watcher, args.broker, "stacks watch"):
            return 1
        async def follow() -> int:
            async for notice in watcher.notices():
                if isinstance(notice, Refused):
                    print(f"refused: {notice.reason}", file=sys.stderr)
                    return 1
                if isinstance(notice, Applied):
                    for event in notice.events:
                        out.write(json.dumps({"batch": notice.n, "event": event.to_wire()}) + "\n")
                    out.flush()
                elif isinstance(notice, GameEnded):
                    names = watcher.player.names
                    out.write(json.dumps({
                        "outcome": {
                            "termination": notice.outcome.termination.name.lower(),
                            "winner": notice.outcome.winner,
                            "words": outcome_words(notice.outcome, names),
                        }
                    }) + "\n")
                    out.flush()
                elif isinstance(notice, Verified):
                    view = watcher.view
                    out.write(json.dumps({"verification": {
                        "ok": notice.verdict.ok, "detail": notice.verdict.detail,
                        "words": str(notice.verdict),
                        "hash": public_hash(view) if view is not None else None}}) + "\n")
                    out.flush()
                    return 0 if notice.verdict.ok else 1
            return 1

        return await _until_stopped(follow(), stop)


# -- verify ------------------------------------------------------------------------------------


def run_verify(args: argparse.Namespace) -> int:
    try:
        record = read_record(Path(args.record))
    except ValueError as exc:
        print(f"stacks verify: {exc}", file=sys.stderr)
        return 2
    verdict = verify_record(record)
    if verdict.ok:
        print(f"verified: {verdict.detail}")
        return 0
    print(f"NOT verified: {verdict.detail}")
    return 1
