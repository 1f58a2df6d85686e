"""The headless netplay commands: ``host --headless``, ``bot``, ``watch --headless``,
``verify``."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import logging
import signal
import sys
import time
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

from rich.text import Text

from broker.autostart import start_meeting_point
from broker.discovery import Advertiser
from engine.classic.state import team_name
from engine.games import game_def
from engine.rng import derive_seed
from engine.state import Outcome, Termination
from netplay.errors import ProfileError
from netplay.host import HostSession, HostSettings
from netplay.hosts import fingerprint
from netplay.identity import KEY_FILE, Identity, load_profile, profiles_dir
from netplay.journal import (
    Entry,
    JournalError,
    JournalFile,
    TableJournal,
    default_record_path,
    list_tables,
    mark,
)
from netplay.known import KnownHosts
from netplay.peers import BotPeer, Host, Player, Spectator
from netplay.player import (
    Applied,
    GameEnded,
    GameStarted,
    HostBack,
    HostOffline,
    HostsDisagree,
    Joined,
    Notice,
    Refused,
    TableClosed,
    UnexpectedHost,
    Verified,
)
from netplay.record import read_record, verify_record
from netplay.transport import BrokerAddress, MqttTransport
from stacks.rules_args import rule_words, table_rules
from tui.discovery import find_broker_urls, find_tables
from tui.history import History, Step
from tui.launch import LOCK_FILE, ProfileLock
from tui.plural import counted
from tui.words import short_name

DEFAULT_BROKER = "mqtt://127.0.0.1:1883"
HOST_TIMEOUT = 24 * 3600.0
"""Seconds a headless bot or spectator waits for a host gone offline before it gives up
(``--host-timeout``): every host journals its table and can bring it back with
``--resume`` as long as the game is unfinished (a table that will not come back is closed
with a signed word, and the peers exit 3 at once), so they wait long: a day."""
TABLE_TIMEOUT = 120.0
"""Seconds they wait for a table that nothing on the broker announces (a wrong name?)."""
EXIT_CLOSED = 3
"""Exit status when the host closed the table before the game ended."""
EXIT_HOST_GONE = 4
"""Exit status when the host was gone (or the table missing) for longer than the limit."""
EXIT_CHOOSE_HOST = 5
"""Exit status when two hosts claimed a bare table name before either welcomed this peer:
it followed neither, and the user pins one (``TABLE@FINGERPRINT``)."""
CLOSED_GRACE = 3.0
"""Seconds a peer still waits for its verdict after the host closed an ended table."""


def outcome_words(
    outcome: Outcome, names: tuple[str, ...] | list[str], view: object = None
) -> str:
    """The end in words. At a classic Sequence table (``view`` has ``teams``) the
    winner is a team: its colour and its players."""
    teams = getattr(view, "teams", None)
    if outcome.winner is not None and isinstance(teams, int) and teams < len(names):
        members = ", ".join(names[outcome.winner::teams])
        return f"{team_name(outcome.winner)} ({members}) win"
    if outcome.winner is not None:
        who = (names[outcome.winner] if outcome.winner < len(names)
               else f"seat {outcome.winner + 1}")
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


def _verdict_label(who: str, names: list[str]) -> str:
    """``Ana, seat 1`` for the host's ``seat 0`` (seats a person reads count from 1, as in
    the lobby); ``a spectator`` for one with no name of its own (not "spectator
    spectator")."""
    kind, _, rest = who.partition(" ")
    if kind == "seat" and rest.isdigit():
        seat = int(rest)
        return f"{names[seat]}, seat {seat + 1}" if seat < len(names) else f"seat {seat + 1}"
    if kind == "spectator":
        return "a spectator" if rest in ("", "spectator", "?") else f"{rest} (spectator)"
    return who


CONNECT_WAIT = 15.0


async def _reach(peer: Host | BotPeer | Spectator, url: str, who: str) -> bool:
    """Wait for the first connection; say clearly why the broker can't be used: nobody
    answers, or the broker answers and refuses (login, authorisation)."""
    transport = peer.transport
    connected = transport.connected
    refused = transport.refused if isinstance(transport, MqttTransport) else asyncio.Event()
    waits = {asyncio.create_task(connected.wait()), asyncio.create_task(refused.wait())}
    _done, pending = await asyncio.wait(waits, timeout=CONNECT_WAIT,
                                        return_when=asyncio.FIRST_COMPLETED)
    for task in pending:
        task.cancel()
    if connected.is_set():
        return True
    if isinstance(transport, MqttTransport) and transport.refusal:
        print(f"{who}: {transport.refusal}", file=sys.stderr)
        return False
    address = BrokerAddress.parse(url).url
    print(f"{who}: can't reach the MQTT broker at {address} (tried for "
          f"{CONNECT_WAIT:.0f} s). Is the host running, and is the address right? "
          "Give it with --broker mqtt://HOST:PORT.", file=sys.stderr)
    return False


_BACKGROUND: set[asyncio.Task[None]] = set()
NAGLE_WAIT_AT_END = 5.0
"""Seconds a headless host that finished its game still waits for the broker probe."""


async def _warn_if_broker_holds_messages(url: str, *, embedded: bool = False) -> None:
    """Say once, in words, when the broker delays small messages (Nagle): measured with a
    few round trips of our own at start, beside the game, never holding it up. Our own
    embedded broker sets ``TCP_NODELAY``: never measured."""
    if embedded:
        return
    from netplay.nagle import holds_back, slow_words

    try:
        delay = await asyncio.wait_for(holds_back(url), 20)
    except TimeoutError:
        return
    if delay is not None:
        print(f"stacks host: warning: {slow_words(url, delay)}", file=sys.stderr, flush=True)


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


def _stop_on_signals(stop: asyncio.Event, terminated: asyncio.Event | None = None) -> None:
    """Ctrl-C and SIGTERM set ``stop``; SIGTERM also sets ``terminated`` (nobody is there
    to answer a question: a host then closes now)."""
    loop = asyncio.get_running_loop()

    def term() -> None:
        if terminated is not None:
            terminated.set()
        stop.set()

    for sig, handler in ((signal.SIGINT, stop.set), (signal.SIGTERM, term)):
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(sig, handler)


def clock_time(seconds_ago: float) -> str:
    """The local time of day ``seconds_ago`` seconds back, as HH:MM."""
    return time.strftime("%H:%M", time.localtime(time.time() - seconds_ago))


def hosts_disagree_words(who: str, notice: HostsDisagree) -> str:
    """Why a headless peer gave up a bare table name that two hosts claim, and the pins."""
    lines = [f"{who}: {len(notice.claims)} hosts claim table {notice.table!r}; following "
             "neither. Ask the table's host for its fingerprint (its lobby and `stacks "
             "host` show it) and run again with the table pinned, one of:"]
    lines += [f"  {pin}    ({claim.words()})"
              for pin, claim in zip(notice.pins(), notice.claims, strict=True)]
    return "\n".join(lines)


def wait_words(seconds: float) -> str:
    """A wait limit as people say it: "90 s", "20 min", "24 h"."""
    if seconds < 120:
        return f"{seconds:g} s"
    if seconds < 2 * 3600:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.0f} h"


async def _follow(
    peer: Player, who: str, table: str, host_timeout: float | None,
    handle: Callable[[Notice], int | None],
) -> int:
    """Hand ``peer``'s notices to ``handle`` until it returns an exit status; meanwhile say
    when the host goes and comes back, and give up when the host closes the table or is
    gone for longer than ``host_timeout`` seconds (the table unannounced: as long, or by
    default :data:`TABLE_TIMEOUT`; the host gone: by default :data:`HOST_TIMEOUT`)."""
    away_limit = HOST_TIMEOUT if host_timeout is None else host_timeout
    unannounced_limit = TABLE_TIMEOUT if host_timeout is None else host_timeout
    loop = asyncio.get_running_loop()
    started = loop.time()
    closed_at: float | None = None

    remembered = peer.player.trust.remembered
    if remembered is not None:
        print(f"{who}: this profile joined table {table!r}'s game with host "
              f"{fingerprint(remembered)}, not over yet: following that host only "
              f"(another one: pin it, {table}@FINGERPRINT)", file=sys.stderr, flush=True)

    async def notices() -> int:
        nonlocal closed_at
        async for notice in peer.notices():
            if isinstance(notice, UnexpectedHost):
                print(f"{who}: {notice.words()}", file=sys.stderr, flush=True)
            elif isinstance(notice, HostsDisagree):
                print(hosts_disagree_words(who, notice), file=sys.stderr, flush=True)
                return EXIT_CHOOSE_HOST
            elif isinstance(notice, HostOffline):
                since = clock_time(notice.silent_for) if notice.heard else \
                    "before this peer came (its last will was on the broker)"
                print(f"{who}: host offline since {since}; waiting for it to come back "
                      "(a host brings an unfinished table back from its journal, with "
                      f"--resume); giving up after {wait_words(away_limit)} "
                      "(--host-timeout)", file=sys.stderr, flush=True)
            elif isinstance(notice, HostBack):
                print(f"{who}: the host is back after {notice.away_for:.0f} s",
                      file=sys.stderr, flush=True)
            elif isinstance(notice, TableClosed):
                if not peer.player.joined:
                    # Closed before this peer got in: whether a game was played there and
                    # how it went, it cannot know.
                    print(f"{who}: table {table!r} was closed by its host before this peer "
                          "got in", file=sys.stderr, flush=True)
                    return EXIT_CLOSED
                ended = peer.player.view is not None and peer.player.view.outcome is not None
                if not ended and not peer.player.host_over:
                    print(f"{who}: the host closed table {table!r} before the game ended",
                          file=sys.stderr, flush=True)
                    return EXIT_CLOSED
                # Over: the verdict may still be on its way, and to a spectator behind the
                # delay the end itself (a host releases it all before it closes).
                closed_at = loop.time()
            result = handle(notice)
            if result is not None:
                return result
        return 1

    async def watchdog() -> int:
        while True:
            await asyncio.sleep(0.25)
            now = loop.time()
            session = peer.player
            if closed_at is not None and now - closed_at > CLOSED_GRACE:
                view = session.view
                if view is None or view.outcome is None:
                    print(f"{who}: the host closed table {table!r} after its game ended, "
                          "before this peer had seen the end", file=sys.stderr, flush=True)
                else:
                    print(f"{who}: the host closed table {table!r} before this peer could "
                          "check the deal", file=sys.stderr, flush=True)
                return EXIT_CLOSED
            if session.host_key is None or (session.closed and not session.joined):
                # Nothing announced yet, or only a closed table's last word: it may open.
                if now - started > unannounced_limit:
                    if session.closed:
                        print(f"{who}: table {table!r} was closed by its host and has not "
                              "opened again in "
                              f"{wait_words(unannounced_limit)} (--host-timeout)",
                              file=sys.stderr, flush=True)
                        return EXIT_CLOSED
                    expected = session.trust.remembered
                    why = "is the name right?" if expected is None or not \
                        session.trust.unexpected else (
                        f"only other hosts than {fingerprint(expected)}, the one this "
                        "profile joined its game with, announced it")
                    print(f"{who}: no table {table!r} announced on the broker after "
                          f"{wait_words(unannounced_limit)} (--host-timeout); {why}",
                          file=sys.stderr, flush=True)
                    return EXIT_HOST_GONE
                continue
            if session.host_offline_at is None:
                continue
            heard = session.host_heard
            since = heard if heard is not None else session.host_offline_at
            if now - since > away_limit:
                when = "before this peer came" if heard is None else clock_time(now - since)
                print(f"{who}: the host of table {table!r} has been offline since "
                      f"{when}, longer than {wait_words(away_limit)} "
                      "(--host-timeout): giving up", file=sys.stderr, flush=True)
                return EXIT_HOST_GONE

    tasks = [asyncio.create_task(notices()), asyncio.create_task(watchdog())]
    try:
        done, _ = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
        return next(iter(done)).result()
    finally:
        for task in tasks:
            task.cancel()


# -- host ------------------------------------------------------------------------------------


def run_host(args: argparse.Namespace) -> int:
    _quiet_logs(args.verbose)
    try:
        return asyncio.run(_host(args))
    except KeyboardInterrupt:
        return 130
    finally:
        _release_profiles()


def _held_profile(args: argparse.Namespace, default: str, who: str) -> tuple[str, Identity]:
    """The profile this process runs as, locked for as long as it runs.

    Without ``--profile`` it is ``default``, or ``default-2``... when another process holds
    it (several terminals of one account stay several players; a restarted process gets
    its own name back). A ``--profile`` in use is an error that says so.
    """
    lock = ProfileLock(profiles_dir())
    wanted = args.profile or default
    name = lock.acquire(wanted, exact=args.profile is not None)
    if not lock.held and (profiles_dir() / wanted / LOCK_FILE).exists():
        pid = lock.holder(wanted)
        by = f" (pid {pid})" if pid else ""
        raise ProfileError(f"profile {wanted!r} is in use by another running stacks{by}; "
                           "choose another with --profile NAME")
    if name != wanted:
        print(f"{who}: profile {wanted!r} is in use by another process: running as "
              f"{name!r} (choose one with --profile NAME)", file=sys.stderr, flush=True)
    _LOCKS.append(lock)  # held until the process exits: flock dies with it
    return name, load_profile(name)


_LOCKS: list[ProfileLock] = []


def _release_profiles() -> None:
    while _LOCKS:
        _LOCKS.pop().release()


def _unfinished_words(table: str, found: list[TableJournal]) -> str:
    lines = [f"stacks host: table {table!r} has an unfinished game:"]
    lines += [f"  {j.line()}" for j in found]
    lines.append(f"Resume it with `stacks host --resume {table}`, or abandon it and start "
                 f"a new one with `stacks host --table {table} --new`.")
    return "\n".join(lines)


def _open_journal(args: argparse.Namespace, settings: HostSettings | None, profile: str,
                  record: Path) -> tuple[JournalFile, list[Entry]] | str:
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
    assert settings is not None
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
                password=args.password,
                bot_delay=args.bot_delay,
                turn_clock=args.turn_clock,
                spectator_delay=args.spectator_delay,
            )
        except ValueError as exc:
            print(f"stacks host: {exc}", file=sys.stderr)
            return 2
    try:
        profile, identity = _held_profile(args, "host", "stacks host")
    except ProfileError as exc:
        print(f"stacks host: {exc}", file=sys.stderr)
        return 2
    table = args.resume or args.table
    game = settings.game if settings is not None else None  # a resumed one: its journal's
    record = Path(args.record) if args.record else default_record_path(table, game)
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
        record = host.record_path or record
        host.record_path = record
    else:
        host = Host(settings, broker=url, identity=identity, record_path=record,
                    secret=secret, journal=journal)
    stop, terminated = asyncio.Event(), asyncio.Event()
    _stop_on_signals(stop, terminated)
    try:
        async with host:
            if not await _reach(host, url, "stacks host"):
                return 1
            nagle_check = asyncio.create_task(_warn_if_broker_holds_messages(
                url, embedded=meeting is not None and meeting.embedded is not None))
            _BACKGROUND.add(nagle_check)
            nagle_check.add_done_callback(_BACKGROUND.discard)
            session = host.host
            seated = sum(1 for info in session.seats if info is not None)
            for line in _opened_lines(table, BrokerAddress.parse(url).url, settings.players,
                                      len(settings.bots), seated, session.game is not None,
                                      rule_words(session.settings.rules)):
                print(line, flush=True)
            print(f"host fingerprint {fingerprint(host.identity.key)}: players may pin it, "
                  f"{table}@{fingerprint(host.identity.key)}", flush=True)
            finished = asyncio.create_task(host.finished(verify_wait=args.verify_wait))
            stopped = asyncio.create_task(stop.wait())
            reporter = asyncio.create_task(_report_seats(session))
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
                print(f"  {_verdict_label(who, names)}: {_verdict_words(verdict)}")
            if host.record_note:
                print(host.record_note, flush=True)
            print(f"record written to {host.record_path}", flush=True)
            await _spectators_catch_up(host, stop, 2 if terminated.is_set() else pressed,
                                       args.verify_wait, terminated)
            for who, verdict in sorted(session.verdicts.items()):
                if who not in told:  # spectators who checked the deal once they had it all
                    print(f"  {_verdict_label(who, names)}: {_verdict_words(verdict)}",
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


async def _report_seats(session: HostSession, every: float = 0.2) -> None:
    """Say who joins, leaves and comes back, who watches, and when the game starts (a
    headless host's terminal is how its user learns that the others got in)."""
    seen: list[tuple[str, bool] | None] = [
        None if info is None else (info.name, info.online) for info in session.seats]
    started = session.game is not None
    watchers = set(session.spectators)
    while True:
        await asyncio.sleep(every)
        for key, name in list(session.spectators.items()):
            if key not in watchers:
                watchers.add(key)
                label = _verdict_label(f"spectator {name}", [])
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
                print(f"{name} joined (seat {seat + 1}){more}", flush=True)
            elif online and not was[1]:
                print(f"{name} is back (seat {seat + 1})", flush=True)
            elif not online and was[1]:
                print(f"{name} is away (seat {seat + 1})", flush=True)
        seen = now
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


# -- bot ---------------------------------------------------------------------------------------


def run_bot(args: argparse.Namespace) -> int:
    _quiet_logs(args.verbose)
    try:
        return asyncio.run(_bot(args))
    except KeyboardInterrupt:
        return 130
    finally:
        _release_profiles()


async def _bot(args: argparse.Namespace) -> int:
    try:
        profile, identity = _held_profile(args, "bot", "stacks bot")
    except ProfileError as exc:
        print(f"stacks bot: {exc}", file=sys.stderr)
        return 2
    # Stable across restarts, like the profile: the host knows a returning bot by its key.
    name = args.name or f"{args.strategy}-{profile}"
    stop = asyncio.Event()
    _stop_on_signals(stop)
    async with BotPeer(identity, args.table, broker=args.broker, strategy=args.strategy,
                       name=name, password=args.password, think=args.think,
                       known=KnownHosts(profiles_dir() / profile)) as bot:
        if not await _reach(bot, args.broker, "stacks bot"):
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
                return 0 if notice.verdict.ok else 1
            return None

        return await _until_stopped(
            _follow(bot, name, args.table, args.host_timeout, handle), stop)


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


# -- watch -----------------------------------------------------------------------------------


def run_watch(args: argparse.Namespace) -> int:
    _quiet_logs(args.verbose)
    try:
        return asyncio.run(_watch(args))
    except KeyboardInterrupt:
        return 130
    finally:
        _release_profiles()


async def _watch(args: argparse.Namespace) -> int:
    try:
        profile, identity = _held_profile(args, "spectator", "stacks watch")
    except ProfileError as exc:
        print(f"stacks watch: {exc}", file=sys.stderr)
        return 2
    stop = asyncio.Event()
    _stop_on_signals(stop)
    out = sys.stdout
    async with Spectator(identity, args.table, args.name or "spectator",
                         broker=args.broker,
                         known=KnownHosts(profiles_dir() / profile)) as watcher:
        if not await _reach(watcher, args.broker, "stacks watch"):
            return 1
        def handle(notice: Notice) -> int | None:
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
                        "words": outcome_words(notice.outcome, names, watcher.view),
                    }
                }) + "\n")
                out.flush()
            elif isinstance(notice, Verified):
                view = watcher.view
                out.write(json.dumps({"verification": {
                    "ok": notice.verdict.ok, "detail": notice.verdict.detail,
                    "words": str(notice.verdict),
                    "hash": watcher.player.definition.public_hash(view)
                    if view is not None else None}}) + "\n")
                out.flush()
                return 0 if notice.verdict.ok else 1
            return None

        who = f"stacks watch {args.table}"
        return await _until_stopped(
            _follow(watcher, who, args.table, args.host_timeout, handle), stop)


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
