"""``stacks host --headless``: a table hosted without the interface, to its end (and its
spectators' end, behind the spectator delay)."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from broker.autostart import start_meeting_point
from broker.discovery import Advertiser
from engine.games import game_def
from engine.rng import derive_seed
from netplay.errors import ProfileError
from netplay.host import HostSession, HostSettings
from netplay.host_peer import Host
from netplay.hosts import fingerprint
from netplay.journal import (
    Entry,
    JournalError,
    JournalFile,
    TableJournal,
    default_record_path,
    list_tables,
    mark,
)
from netplay.transport import BrokerAddress
from stacks.commands.peer import (
    BACKGROUND,
    NAGLE_WAIT_AT_END,
    held_profile,
    outcome_words,
    quiet_logs,
    reach,
    release_profiles,
    stop_on_signals,
    verdict_label,
    warn_if_broker_holds_messages,
)
from stacks.rules_args import rule_words, table_rules
from tui.plural import counted


def run_host(args: argparse.Namespace) -> int:
    quiet_logs(args.verbose)
    try:
        return asyncio.run(_host(args))
    except KeyboardInterrupt:
        return 130
    finally:
        release_profiles()


def _unfinished_words(table: str, found: list[TableJournal]) -> str:
    lines = [f"stacks host: table {table!r} has an unfinished game:"]
    lines += [f"  {j.line()}" for j in found]
    lines.append(f"Resume it with `stacks host --resume {table}`, or abandon it and start "
                 f"a new one with `stacks host --table {table} --new`.")
    return "\n".join(lines)


def _open_journal(args: argparse.Namespace, settings: HostSettings | None, profile: str,
                  record: Path | None) -> tuple[JournalFile, list[Entry]] | str:
    """The journal to host from (resumed or new), or the words of why not."""
    if args.resume:
        found = list_tables(table=args.resume)
        if not found:
            others = list_tables()
            hint = ("; unfinished tables: " + ", ".join(sorted({j.table for j in others}))
                    if others else "")
            return f"stacks host: no unfinished table {args.resume!r} to resume{hint}"
        if found[0].running:
            return f"stacks host: table {args.resume!r} is hosted by a running process"
        try:
            return JournalFile.reopen(found[0].path)
        except JournalError as exc:
            return f"stacks host: {exc}"
    assert settings is not None and record is not None
    found = list_tables(table=settings.table)
    for old in [j for j in found if not j.batches and not j.running]:
        # A lobby left before the deal: nothing was played, nothing to resume.
        with contextlib.suppress(JournalError):
            mark(old.path, "abandoned")
        found.remove(old)
    if found and not args.new:
        return _unfinished_words(settings.table, found)
    for old in found:
        if old.running:
            return (f"stacks host: table {settings.table!r} is hosted by a running process; "
                    "stop it first")
        try:
            mark(old.path, "abandoned")
        except JournalError as exc:
            return f"stacks host: {exc}"
        print(f"abandoned the unfinished game of table {settings.table!r} "
              f"({old.path.name})", flush=True)
    try:
        journal = JournalFile.create(settings.table, profile=profile, broker=args.broker,
                                     record=str(record))
    except JournalError as exc:
        return f"stacks host: {exc}"
    return journal, []


async def _host(args: argparse.Namespace) -> int:
    from stacks.argtypes import host_bot_levels

    settings: HostSettings | None = None
    if not args.resume:
        try:
            definition = game_def(args.game)
            settings = HostSettings(
                table=args.table,
                players=args.players,
                bots=host_bot_levels(args), standin=args.standin,
                game=definition.name,
                rules=table_rules(args),
                block_window=args.block_window,
                plain_window=getattr(args, "plain_window", None),
                password=args.password,
                bot_delay=args.bot_delay,
                turn_clock=args.turn_clock,
                spectator_delay=args.spectator_delay,
            )
        except ValueError as exc:
            print(f"stacks host: {exc}", file=sys.stderr)
            return 2
    try:
        profile, identity = held_profile(args, "host", "stacks host")
    except ProfileError as exc:
        print(f"stacks host: {exc}", file=sys.stderr)
        return 2
    table = args.resume or args.table
    # A resumed table's record is its journal's (named below when the journal has none).
    record = Path(args.record) if args.record else \
        default_record_path(table, settings.game) if settings is not None else None
    opened = _open_journal(args, settings, profile, record)
    if isinstance(opened, str):
        print(opened, file=sys.stderr)
        return 2
    journal, entries = opened
    if args.resume:
        started = time.perf_counter()
        try:
            resumed = HostSession.resume(entries, 0.0)
        except JournalError as exc:
            journal.close()
            print(f"stacks host: can't resume {table!r}: {exc}", file=sys.stderr)
            return 2
        settings = resumed.settings
        head = entries[0]
        if not args.broker and head.get("broker"):
            args.broker = head["broker"]
        print(f"resuming table {table!r} from {journal.path} at batch {len(resumed.batches)} "
              f"(replayed and checked in {(time.perf_counter() - started) * 1000:.0f} ms)",
              flush=True)
    assert settings is not None
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
            journal.close()
            print(f"stacks host: can't start Mosquitto: {exc}", file=sys.stderr)
            return 2
        print(f"started Mosquitto on port {args.port} (shipped LAN config)", flush=True)
        url = mosquitto.url
    else:
        try:
            meeting = await start_meeting_point(
                args.bind, args.port, password=settings.password
            )
        except OSError as exc:
            journal.close()
            print(f"stacks host: can't start the embedded broker: {exc}", file=sys.stderr)
            return 2
        print(meeting.note, flush=True)
        url = meeting.url
    advertiser = None
    if not args.broker and not args.no_advertise:
        advertiser = await _advertise(args.bind, BrokerAddress.parse(url).port, table)
    secret = derive_seed(args.seed, label="host-secret") if args.seed is not None else None
    if args.resume:
        host = Host.resume(journal, entries, broker=url)
        record = host.record_path or record or default_record_path(table, settings.game)
        host.record_path = record
    else:
        host = Host(settings, broker=url, identity=identity, record_path=record,
                    secret=secret, journal=journal)
    stop, terminated = asyncio.Event(), asyncio.Event()
    stop_on_signals(stop, terminated)
    try:
        async with host, contextlib.AsyncExitStack() as stack:
            if not await reach(host, url, "stacks host"):
                return 1
            nagle_check = asyncio.create_task(warn_if_broker_holds_messages(
                url, embedded=meeting is not None and meeting.embedded is not None))
            BACKGROUND.add(nagle_check)
            nagle_check.add_done_callback(BACKGROUND.discard)
            session = host.host
            seated = sum(1 for info in session.seats if info is not None)
            for line in _opened_lines(table, BrokerAddress.parse(url).url, settings.players,
                                      len(settings.bots), seated, session.game is not None,
                                      rule_words(session.settings.rules)):
                print(line, flush=True)
            print(f"host fingerprint {fingerprint(host.identity.key)}: players may pin it, "
                  f"{table}@{fingerprint(host.identity.key)}", flush=True)
            if getattr(args, "engine", None):
                problem = await _seat_engines(args, host, url, stack)
                if problem:
                    print(f"stacks host: {problem}", file=sys.stderr)
                    return 2
            finished = asyncio.create_task(host.finished(verify_wait=args.verify_wait))
            stopped = asyncio.create_task(stop.wait())
            reporter = asyncio.create_task(_report_seats(session, say=_say))
            await asyncio.wait({finished, stopped}, return_when=asyncio.FIRST_COMPLETED)
            reporter.cancel()
            stopped.cancel()
            if finished.done():  # a short game: the broker's word is still worth saying
                await asyncio.wait({nagle_check}, timeout=NAGLE_WAIT_AT_END)
            pressed = 0
            if not finished.done():
                finished.cancel()
                if session.game is None:
                    # Still in the lobby: no game, no record, nothing to resume.
                    print(f"closed table {table!r} before the deal: no game was played",
                          file=sys.stderr)
                    return 130
                host.write_record()
                if not session.over:
                    print(f"stopped before the end of the game; record kept; resume with "
                          f"`stacks host --resume {table}`", file=sys.stderr)
                    return 130
                pressed = 1  # over: the verdicts still out are not waited for
                stop.clear()
            assert session.game is not None and session.game.outcome is not None
            names = [info.name if info else "?" for info in session.seats]
            final = session.game.state
            print(f"game over: {outcome_words(session.game.outcome, names, final)} "
                  f"after {final.turn} turns", flush=True)
            print(f"final public hash: {session.definition.public_hash(final)}", flush=True)
            told = set(session.verdicts)
            for who, verdict in sorted(session.verdicts.items()):
                print(f"  {verdict_label(who, names)}: {_verdict_words(verdict)}")
            if host.record_note:
                print(host.record_note, flush=True)
            print(f"record written to {host.record_path}", flush=True)
            await _spectators_catch_up(host, stop, 2 if terminated.is_set() else pressed,
                                       args.verify_wait, terminated)
            for who, verdict in sorted(session.verdicts.items()):
                if who not in told:  # spectators who checked the deal once they had it all
                    print(f"  {verdict_label(who, names)}: {_verdict_words(verdict)}",
                          flush=True)
            if host.record_path is not None:
                await _rate_here(host.record_path)
            failed = any(not v["ok"] for v in session.verdicts.values())
            return 1 if failed else 0
    finally:
        if meeting is not None:
            await meeting.close()
        if mosquitto is not None:
            await mosquitto.stop()
        if advertiser is not None:
            await advertiser.stop()


async def _seat_engines(args: argparse.Namespace, host: Host, url: str,
                        stack: contextlib.AsyncExitStack) -> str | None:
    """Seat each ``--engine`` program as a peer of its own (its profile ``engine-NAME``),
    once the table is open; what stops one, in words."""
    from netplay.engine_peer import EnginePeer
    from netplay.engines import EngineBot, EngineError, EngineSpec

    settings = host.host.settings
    try:
        specs = [EngineSpec.parse(text) for text in args.engine]
    except ValueError as exc:
        return str(exc)
    if len(specs) + len(settings.bots) > settings.players:
        return (f"{len(specs)} engine(s) and {len(settings.bots)} bot(s) are more than "
                f"{settings.players} seats")
    for spec in specs:
        engine = EngineBot(spec, budget=args.engine_budget, restarts=args.engine_restarts)
        try:
            said = await asyncio.to_thread(engine.start)
        except EngineError as exc:
            return str(exc)
        stack.callback(engine.close)
        if settings.game not in said.games:
            return f"engine {spec.name} ({said.name}) does not play {settings.game}"
        try:
            profile, identity = held_profile(argparse.Namespace(profile=None),
                                             f"engine-{spec.name}", "stacks host")
        except ProfileError as exc:
            return str(exc)
        name = spec.name

        def say(text: str, name: str = name) -> None:
            print(f"{name}: {text}", flush=True)

        peer = EnginePeer(engine, identity, settings.table, broker=url, name=name,
                          password=settings.password, pin=host.identity.peer_id, say=say)
        await stack.enter_async_context(peer)
        print(f"engine {spec.name} ({said.name}, profile {profile}) takes a seat", flush=True)
    return None


async def _rate_here(record: Path) -> None:
    """Add the game to this machine's ratings (``stacks ratings``), and say so."""
    from ratings.local import add_finished, local_database
    from ratings.store import shown

    def say(text: str) -> None:
        print(f"ratings: {text}", flush=True)

    added = await add_finished(record, say=say)
    if added is not None:
        print(f"ratings: {'already had' if added.already else 'added'} this game "
              f"({shown(local_database())}; see `stacks ratings`)", flush=True)


def _verdict_words(verdict: dict[str, Any]) -> str:
    return "deal verified" if verdict["ok"] else f"FAILED: {verdict['detail']}"


async def _spectators_catch_up(host: Host, stop: asyncio.Event, pressed: int,
                               verify_wait: float, terminated: asyncio.Event) -> None:
    """The game is over; with a spectator delay, spectators have not seen its end yet: the
    table stays up until the delay has released it all (and a moment more for their
    verdicts). The first Ctrl-C says what the host waits for, the second (or a SIGTERM)
    closes now: the spectators then get the rest of the game at once."""
    if not host.host.catching_up:
        return
    if pressed >= 2:
        host.release_now()
        print("closing now: the spectators get the rest of the game at once",
              file=sys.stderr, flush=True)
        host.write_record()
        return
    print(f"game over for the players; spectators are {host.tail_left():.0f} s behind: the "
          "table stays open until they have seen the end (Ctrl-C twice closes it now)",
          flush=True)
    caught = asyncio.create_task(host.caught_up(verify_wait=verify_wait))
    try:
        while True:
            if pressed == 1 and host.host.catching_up:
                print(f"spectators are {host.tail_left():.0f} s behind: waiting for them to "
                      "see the end; Ctrl-C again to close now", file=sys.stderr, flush=True)
            elif pressed >= 1:
                return  # they have it all; the verdicts still out are not waited for
            stopped = asyncio.create_task(stop.wait())
            await asyncio.wait({caught, stopped}, return_when=asyncio.FIRST_COMPLETED)
            stopped.cancel()
            if caught.done():
                print("spectators have seen the end", flush=True)
                return
            stop.clear()
            pressed += 2 if terminated.is_set() else 1
            if pressed >= 2 and host.host.catching_up:
                host.release_now()
                print("closing now: the spectators get the rest of the game at once",
                      file=sys.stderr, flush=True)
                return
    finally:
        if not caught.done():
            caught.cancel()
        host.write_record()


def _opened_lines(table: str, url: str, players: int, bots: int, seated: int,
                  started: bool, rules: list[str] | None = None) -> list[str]:
    """What the headless host says of its table once it is on the broker (``rules``: the
    house rules, as ``--rule`` words)."""
    lines = [f"table {table!r} on {url}: {counted(players, 'seat')}, {counted(bots, 'bot')}"]
    if rules:
        lines.append(f"house rules: {', '.join(rules)}")
    waiting = players - seated
    if waiting and not started:
        lines.append(f"waiting for {counted(waiting, 'player')}: "
                     f"stacks join {table} --broker {url}")
    return lines


def _say(line: str) -> None:
    print(line, flush=True)


def plain_seat_words(name: str, seat: int, session: HostSession) -> str:
    """What the headless host says when a seat in plain mode (a screen reader) joins: the
    Block window it has, and how to lengthen it."""
    settings = session.settings
    window = settings.block_window
    said = f"{name} (seat {seat + 1}) plays in plain mode, with a screen reader"
    if settings.game != "stacks":
        return said + " (a table of this game has no Block window)"
    if settings.plain_window is not None and window >= settings.plain_window:
        return said + f": the Block window is {window:g} s (--plain-window)"
    if session.game is not None:
        return said + f": the Block window is {window:g} s (the deal is done: it stays)"
    return said + (f": a {window:g} s Block window is over before the question is "
                   "heard; host with --plain-window 10 (or --block-window 10) to give "
                   "such players 10 s")


async def _report_seats(session: HostSession, every: float = 0.2,
                        say: Callable[[str], None] = _say) -> None:
    """Say who joins, leaves and comes back, who watches, and when the game starts (a
    headless host's terminal is how its user learns that the others got in); a seat in
    plain mode (a screen reader) with how to give it a longer Block window."""
    seen: list[tuple[str, bool] | None] = [
        None if info is None else (info.name, info.online) for info in session.seats]
    plain = {seat for seat, info in enumerate(session.seats) if info is not None and info.plain}
    started = session.game is not None
    watchers = set(session.spectators)
    while True:
        await asyncio.sleep(every)
        for key, name in list(session.spectators.items()):
            if key not in watchers:
                watchers.add(key)
                label = verdict_label(f"spectator {name}", [])
                print(f"{label[0].upper()}{label[1:]} is watching "
                      f"({counted(len(watchers), 'spectator')} so far)", flush=True)
        now = [None if info is None else (info.name, info.online) for info in session.seats]
        for seat, (was, info) in enumerate(zip(seen, now, strict=True)):
            if info == was or info is None:
                continue
            name, online = info
            if was is None:
                free = sum(1 for other in now if other is None)
                more = f"; waiting for {free} more" if free and not started else ""
                say(f"{name} joined (seat {seat + 1}){more}")
            elif online and not was[1]:
                print(f"{name} is back (seat {seat + 1})", flush=True)
            elif not online and was[1]:
                print(f"{name} is away (seat {seat + 1})", flush=True)
        seen = now
        for seat, held in enumerate(session.seats):
            if held is not None and held.plain and seat not in plain:
                plain.add(seat)
                say(plain_seat_words(held.name, seat, session))
        if not started and session.game is not None:
            started = True
            print("every seat is taken: the game starts", flush=True)


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
