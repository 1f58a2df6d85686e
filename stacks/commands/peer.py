"""What the headless peers share: exit statuses, connecting in words, following a table
to its end (``stacks bot``, ``stacks watch --headless``; the host's signals too)."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import signal
import sys
import time
from collections.abc import Callable, Coroutine
from typing import Any

from engine.classic.state import team_name
from engine.state import Outcome, Termination
from netplay.errors import ProfileError
from netplay.host_peer import Host
from netplay.hosts import fingerprint
from netplay.identity import Identity, load_profile, profiles_dir
from netplay.player_peer import BotPeer, Player, Spectator
from netplay.playing.notices import (
    HostBack,
    HostOffline,
    HostsDisagree,
    Notice,
    TableClosed,
    UnexpectedHost,
)
from netplay.transport import BrokerAddress, MqttTransport
from tui.launch import LOCK_FILE, ProfileLock

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
"""Seconds a peer still waits for its verdict after the host closed an ended table, from
the close or from the last batch that came since (the tail still on its way on a busy
machine: a peer that still receives the game is not cut off)."""


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


def quiet_logs(verbose: bool) -> None:
    logging.basicConfig(
        level=logging.INFO if verbose else logging.WARNING,
        format="%(asctime)s %(name)s %(levelname)s %(message)s",
        stream=sys.stderr,
    )
    logging.getLogger("amqtt").setLevel(logging.CRITICAL)
    logging.getLogger("mqtt").setLevel(logging.ERROR)  # aiomqtt's logger


def verdict_label(who: str, names: list[str]) -> str:
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


async def reach(peer: Host | BotPeer | Spectator, url: str, who: str) -> bool:
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


BACKGROUND: set[asyncio.Task[None]] = set()


NAGLE_WAIT_AT_END = 5.0
"""Seconds a headless host that finished its game still waits for the broker probe."""


async def warn_if_broker_holds_messages(url: str, *, embedded: bool = False) -> None:
    """Say once, in words, when the broker delays small messages (Nagle): measured with a
    few round trips of our own at start, beside the game, never holding it up. Our own
    embedded broker sets ``TCP_NODELAY``: never measured."""
    if embedded:
        return
    from netplay.nagle import slow_broker_words

    words = await slow_broker_words(url)
    if words is not None:
        print(f"stacks host: warning: {words}", file=sys.stderr, flush=True)


async def until_stopped(work: Coroutine[Any, Any, int], stop: asyncio.Event) -> int:
    """``work``'s exit status, or 130 if a signal stops it first."""
    worker = asyncio.create_task(work)
    stopped = asyncio.create_task(stop.wait())
    await asyncio.wait({worker, stopped}, return_when=asyncio.FIRST_COMPLETED)
    stopped.cancel()
    if worker.done():
        return worker.result()
    worker.cancel()
    return 130


def stop_on_signals(stop: asyncio.Event, terminated: asyncio.Event | None = None) -> None:
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


class AfterClose:
    """The grace a peer gives a table its host closed after the game ended: the end and
    the verdict may still be on their way. :data:`CLOSED_GRACE` from the close, or from
    the last batch that came since: a peer still receiving the game is not cut off."""

    def __init__(self, closed: float, applied: int) -> None:
        self.since = closed
        self.applied = applied

    def over(self, now: float, applied: int) -> bool:
        """Whether the grace has run out at ``now``, this peer having applied ``applied``
        batches."""
        if applied != self.applied:
            self.applied, self.since = applied, now
        return now - self.since > CLOSED_GRACE


async def follow(
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
    after_close: AfterClose | None = None

    remembered = peer.player.trust.remembered
    if remembered is not None:
        print(f"{who}: this profile joined table {table!r}'s game with host "
              f"{fingerprint(remembered)}, not over yet: following that host only "
              f"(another one: pin it, {table}@FINGERPRINT)", file=sys.stderr, flush=True)

    async def notices() -> int:
        nonlocal after_close
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
                after_close = AfterClose(loop.time(), peer.player.applied)
            result = handle(notice)
            if result is not None:
                return result
        return 1

    async def watchdog() -> int:
        while True:
            await asyncio.sleep(0.25)
            now = loop.time()
            session = peer.player
            if after_close is not None and after_close.over(now, session.applied):
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


def held_profile(args: argparse.Namespace, default: str, who: str) -> tuple[str, Identity]:
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
    LOCKS.append(lock)  # held until the process exits: flock dies with it
    return name, load_profile(name)


LOCKS: list[ProfileLock] = []


def release_profiles() -> None:
    while LOCKS:
        LOCKS.pop().release()
