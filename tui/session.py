"""The peers of one table in this process, run by a worker of the app.

A session starts what the launch asks for (maybe a broker, maybe a host with bots) and
the user's own player or spectator, then forwards every notice to the app as a message.
It never touches a widget: the app decides what the screens show.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import time
from collections.abc import Callable, Coroutine
from dataclasses import replace
from pathlib import Path
from typing import Any

from textual.message import Message
from textual.worker import Worker

from broker.address import lan_address
from broker.embedded import EmbeddedBroker
from engine.games import AnyAction
from engine.rng import derive_seed
from netplay.codec import decode
from netplay.errors import FrameError, ProfileError
from netplay.host import HostSession, HostSettings
from netplay.host_peer import Host
from netplay.identity import Identity, load_profile, profiles_dir
from netplay.journal import Entry, JournalError, JournalFile, list_tables, mark
from netplay.known import KnownHosts
from netplay.memory import AsyncMemoryBroker
from netplay.peer import Broker
from netplay.player_peer import BotPeer, Player
from netplay.playing.notices import Applied, GameEnded, Notice, Resynced, TableClosed, Verified
from netplay.topics import Topics
from netplay.transport import BrokerAddress, MqttTransport, Transport
from netplay.wire import Outgoing
from tui import words
from tui.launch import MEMORY, Launch, ProfileLock, default_profile
from tui.messages import (
    BrokerNote,
    Health,
    NetNotice,
    Problem,
    Rated,
    RecordWritten,
    SessionFailed,
    SessionReady,
    Waiting,
)
from tui.words import short_name

log = logging.getLogger("tui.session")

HOST_SLOW = 2.0
"""Seconds without a word from the host (it heartbeats at least every 2 s) before we say it
is not responding (a host whose presence rests on the broker beats after 10 s of silence:
``PlayerSession.host_late_for`` says nothing before); at the session's
``host_silent_limit`` it finds the host offline."""
NO_TABLE = 5.0
"""Seconds connected without the table's announcement before we say so."""
CHECK_EVERY = 0.5


class WatchedTransport:
    """A transport that notes whether the table was announced and whether it left.

    Wraps the player's own transport, so the interface can tell "host gone" from
    "broker gone" without reaching into the session's internals.
    """

    def __init__(self, inner: Transport, topics: Topics, *,
                 skip_host: bytes | None = None) -> None:
        self.inner = inner
        self.topics = topics
        self.skip_host = skip_host
        """A host whose table we left (its game is over): wait for the next one."""
        self.connected = inner.connected
        self.table_seen = False
        self.table_closed = False
        self.ever_connected = False

    async def start(self) -> None:
        await self.inner.start()

    async def stop(self) -> None:
        await self.inner.stop()

    def publish(self, out: Outgoing) -> None:
        self.inner.publish(out)

    async def flushed(self) -> None:
        await self.inner.flushed()

    @property
    def on_arrival(self) -> Callable[[], None] | None:
        return self.inner.on_arrival

    @on_arrival.setter
    def on_arrival(self, listener: Callable[[], None] | None) -> None:
        self.inner.on_arrival = listener

    @property
    def reading(self) -> bool:
        return self.inner.reading

    @property
    def on_read_done(self) -> Callable[[], None] | None:
        return self.inner.on_read_done

    @on_read_done.setter
    def on_read_done(self, listener: Callable[[], None] | None) -> None:
        self.inner.on_read_done = listener

    async def receive(self) -> tuple[str, bytes]:
        while True:
            topic, payload = await self.inner.receive()
            if not self._skipped(topic, payload):
                break
        self._note(topic, payload)
        return topic, payload

    def ready(self, limit: int) -> list[tuple[str, bytes]]:
        out = []
        for topic, payload in self.inner.ready(limit):
            if not self._skipped(topic, payload):
                self._note(topic, payload)
                out.append((topic, payload))
        return out

    def _note(self, topic: str, payload: bytes) -> None:
        if topic == self.topics.announce and payload:
            # An empty one is unsigned: it closes nothing (a TableClosed notice does).
            self.table_seen = True


    def _skipped(self, topic: str, payload: bytes) -> bool:
        if self.skip_host is None or not payload or topic != self.topics.announce:
            return False
        try:
            return decode(payload).sender == self.skip_host
        except FrameError:
            return False


def measures_broker(launch: Launch) -> bool:
    """Whether this table's session measures its broker for a slow one (Nagle) and tells
    the user: only a table we host ourselves. A held table's broker is the ssh server's:
    its operator hears of a slow one in the server's log (``stacks serve``); its players
    can't change it, so they are not told."""
    return launch.hosting and not launch.held


class TableSession:
    """One table: start with :meth:`run` in a worker; cancel the worker to leave."""

    def __init__(
        self, launch: Launch, post: Callable[[Message], object], *,
        profiles: Path | None = None, after: Worker[None] | None = None,
        memory: AsyncMemoryBroker | None = None, skip_host: bytes | None = None,
    ) -> None:
        self.launch = launch
        self.skip_host = skip_host
        self.memory = memory
        """The in-process broker to use for ``broker="memory"`` (tests share one)."""
        self.after = after
        """The previous session's worker: it must have let go of ports and profiles."""
        self.post = post
        self.profiles = profiles
        self.player: Player | None = None
        self.host: Host | None = None
        self.broker: Broker | None = None
        self.url = ""
        self.profile_name = ""
        self.profile_in_use: str | None = None
        """The profile asked for when another running process held it (this session then
        runs as ``profile_name``, another player): said to the user, with ``--profile``."""
        self._stack: contextlib.AsyncExitStack | None = None
        self._watched: WatchedTransport | None = None
        self._over = False
        self._waiting = ""
        """The waiting line last posted (``Waiting``)."""
        self._embedded = False
        """The broker is our own embedded one (it sets ``TCP_NODELAY``: never measured)."""
        self._bots: list[BotPeer] = []
        self._tasks: set[asyncio.Task[None]] = set()
        self.linger = False
        """Our host's game is over and its spectators are behind (the spectator delay):
        when the session is stopped, the host stays until they have seen the end (the
        user chose to wait). Otherwise it closes at once, releasing the rest at once."""
        self._close_now = asyncio.Event()
        self._rated: set[Path] = set()
        """Records of this session's finished games already added to the ratings (one
        not in here when the session ends is added then: a player who leaves the
        game-over screen at once must not lose the game's rating)."""
        self._seat_record: Path | None = None
        self.plain = False
        """Our seat is played in plain mode (``tui.plain``, for screen readers): the join
        says so, and the table's host may lengthen its Block window for it."""

    # -- what the app calls ------------------------------------------------------------------

    @property
    def host_key(self) -> bytes | None:
        """The key of the host we joined (to skip its table after its game)."""
        return self.player.player.host_key if self.player is not None else None

    def act(self, action: AnyAction) -> None:
        if self.player is not None:
            self.player.act(action)

    def chat(self, text: str) -> None:
        if self.player is not None:
            self.player.chat(text)

    def spectators_behind(self) -> float:
        """Seconds our host's spectators are still behind the end of its game (0: they
        have seen it, or the game is not over, or we host nothing)."""
        return self.host.tail_left() if self.host is not None else 0.0

    def close_now(self) -> None:
        """Stop waiting for the spectators: the host closes, giving them the rest at once."""
        self._close_now.set()

    async def _let_spectators_see_the_end(self) -> None:
        """Run when the session closes, after our player and before our host: a host
        that is to :attr:`linger` waits for its spectators (or :meth:`close_now`)."""
        host = self.host
        if host is None or not self.linger or not host.host.catching_up:
            return
        log.info("table %s: waiting %.0f s for its spectators to see the end",
                 self.launch.table, host.tail_left())
        caught = asyncio.create_task(host.caught_up(verify_wait=self.launch.verify_wait))
        stop = asyncio.create_task(self._close_now.wait())
        try:
            await asyncio.wait({caught, stop}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            caught.cancel()
            stop.cancel()

    def fill_with_bots(self) -> int:
        """Seat a bot peer in every empty seat of our own table; how many."""
        host = self.host
        if host is None or self.broker is None or host.host.game is not None:
            return 0
        if self._bots:
            return 0  # already on their way
        empty = [seat for seat, info in enumerate(host.host.seats) if info is None]
        for seat in empty:
            task = asyncio.create_task(self._add_bot(seat))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
        return len(empty)

    def set_block_window(self, seconds: float) -> str | None:
        """Make our own table's Block window ``seconds`` long, before the deal (a seat
        plays in plain mode: a screen reader needs the time); why not, in words, or
        ``None`` when done."""
        if self.host is None:
            return "only the host of the table sets it"
        try:
            self.host.set_block_window(seconds)
        except ValueError as exc:
            return str(exc)
        return None

    # -- the run -----------------------------------------------------------------------------

    async def run(self) -> None:
        if self.after is not None:
            with contextlib.suppress(Exception):
                await self.after.wait()
        launch = self.launch
        if launch.record is None and launch.resume is None and (
                launch.role == "play" or launch.default_record):
            # A game against bots is kept like a hosted one: the menu's "Replay a game"
            # lists the records folder, and this game belongs there too. Named now, when
            # the table opens: its game and table are the ones the host form settled on.
            from netplay.journal import default_record_path

            launch = self.launch = replace(
                launch, record=default_record_path(launch.table, launch.variant))
        lock = ProfileLock(self.profiles or profiles_dir())
        async with contextlib.AsyncExitStack() as stack:
            self._stack = stack
            stack.callback(lock.release)
            try:
                identity = self._identity(lock)  # first: a hosted table's journal is the profile's
                journal = self._journal(stack) if launch.role == "host" else None
                launch = self.launch  # a resumed table brings its own settings
                self.broker, where = await self._broker(stack)
                if launch.hosting:
                    await self._host(stack, journal)
            except (OSError, ValueError, ProfileError, JournalError) as exc:
                self.post(SessionFailed(_start_problem(launch, exc)))
                return
            # Our own table: a stale announcement of the same name (a crashed host's,
            # retained by a shared broker) must not take our seat elsewhere.
            own = self.host.identity.peer_id if self.host is not None else None
            # A spectator given no name goes by its profile's (root-2), not the user's.
            name = self.profile_name if launch.role == "watch" and not launch.name \
                else launch.display_name()
            player = Player(
                identity, launch.table, name, broker=self.broker,
                password=launch.password, watch=launch.role == "watch",
                pin=own or _server_pin(launch),
                known=KnownHosts((self.profiles or profiles_dir()) / self.profile_name),
            )
            if launch.seed is not None:
                player.player.entropy = derive_seed(launch.seed, label=f"player-{launch.game}")
            player.player.plain = self.plain
            self._watched = WatchedTransport(player.transport, Topics(player.player.table),
                                             skip_host=self.skip_host)
            player.transport = self._watched
            await stack.enter_async_context(player)
            self.player = player
            self.post(SessionReady(where))
            if measures_broker(launch):
                self._later(self._check_broker())
            watchdog = asyncio.create_task(self._watchdog())
            finisher = asyncio.create_task(self._finish()) if self.host else None
            try:
                async for notice in player.notices():
                    self._track(notice)
                    if isinstance(notice, Verified) and notice.verdict.ok \
                            and self.host is None and not launch.ssh:
                        self._keep_seat_record(player)
                    if isinstance(notice, Applied | Resynced):
                        # Before the board shows the new turn: the line of the turn
                        # before must not stay up until the watchdog's next look.
                        self._post_waiting(asyncio.get_running_loop().time())
                    self.post(NetNotice(notice))
            finally:
                for task in (watchdog, finisher, *self._tasks):
                    if task is not None:
                        task.cancel()
                self.player = None
                host = self.host
                if host is not None and host.host.over and launch.record is not None:
                    with contextlib.suppress(OSError):
                        host.write_record()  # quitting before every verdict came in
                # Left before the game was added to the ratings: add it now.
                unrated = [self._seat_record] if host is None else \
                    [host.record_path] if host.host.over else []
                for path in unrated:
                    if path is not None and path not in self._rated and path.exists():
                        # Counted once if it went in after all; bounded, so that leaving
                        # never hangs on a database (its note on disk stays for later).
                        with contextlib.suppress(TimeoutError):
                            await asyncio.wait_for(_rate_here(path), RATE_AT_END_S)
                            self._rated.add(path)

    async def _advertise(
        self, stack: contextlib.AsyncExitStack, launch: Launch, port: int
    ) -> None:
        """Announce the table's broker on the LAN; failing only costs discovery."""
        from broker.discovery import Advertiser

        local = launch.bind.startswith("127.")
        advertiser = Advertiser(port, name=f"stacks {launch.table}",
                                addresses=("127.0.0.1",) if local else None)
        try:
            await advertiser.start()
        except Exception:  # zeroconf raises several kinds on odd networks
            log.warning("could not announce the table on the LAN", exc_info=True)
            return
        stack.push_async_callback(advertiser.stop)

    async def _broker(self, stack: contextlib.AsyncExitStack) -> tuple[Broker, str]:
        launch = self.launch
        if launch.broker == MEMORY:
            self.url = "memory"
            return self.memory or AsyncMemoryBroker(), "an in-process broker"
        if launch.broker is not None:
            address = BrokerAddress.parse(launch.broker)
            self.url = address.url
            return launch.broker, address.url
        if launch.role == "play":
            embedded = EmbeddedBroker(launch.bind, launch.port, password=launch.password)
            await embedded.start()
            stack.push_async_callback(embedded.stop)
            self._embedded = True
            self.url = embedded.url
            return embedded.url, embedded.url
        from broker.autostart import start_meeting_point

        meeting = await start_meeting_point(launch.bind, launch.port, password=launch.password)
        stack.push_async_callback(meeting.close)
        self._embedded = meeting.embedded is not None
        if launch.advertise and meeting.embedded is not None:
            await self._advertise(stack, launch, meeting.embedded.port)
        self.url = meeting.url
        where = meeting.url
        if launch.bind in ("0.0.0.0", "::", ""):
            # Others reach us on the LAN address, not on the loopback we use ourselves.
            address = BrokerAddress.parse(meeting.url)
            where = BrokerAddress(lan_address() or "127.0.0.1", address.port).url
        return meeting.url, where

    def _journal(
        self, stack: contextlib.AsyncExitStack
    ) -> tuple[JournalFile, list[Entry]] | None:
        """The table's journal: the one to resume, or a new one (never a second table over
        an unfinished one of the same name, unless the launch says to abandon it)."""
        launch = self.launch
        if launch.resume is not None:
            journal, entries = JournalFile.reopen(launch.resume)
            stack.callback(journal.close)
            session = HostSession.resume(entries, 0.0)
            settings = session.settings
            self.launch = replace(
                launch, table=settings.table, players=settings.players,
                bots=len(settings.bots), password=settings.password,
                block_window=settings.block_window, bot_delay=settings.bot_delay,
                rules=settings.rules, variant=settings.game,
            )
            return journal, entries
        for old in list_tables(table=launch.table):
            if not old.batches and not old.running:
                mark(old.path, "abandoned")  # a lobby left before the deal: nothing to resume
                continue
            if not launch.new_table or old.running:
                raise JournalError(
                    f"table {launch.table!r} has an unfinished game ({old.line()}): resume "
                    "it (menu: Resume, or `stacks host --resume "
                    f"{launch.table}`), or abandon it (`stacks host --table {launch.table} "
                    "--new`), or pick another table name"
                )
            mark(old.path, "abandoned")
        journal = JournalFile.create(
            launch.table, profile=self.profile_name, broker=launch.broker,
            record=None if launch.record is None else str(launch.record),
        )
        stack.callback(journal.close)
        return journal, []

    def _bot_identity(self, seat: int) -> Identity:
        """A bot peer of our own table: its key follows from the host's, so that a resumed
        table knows its bots again."""
        assert self.host is not None
        seed = hashlib.sha256(
            b"sstacks-fill-bot" + bytes(self.host.identity.signing_key) + bytes([seat])
        ).digest()
        return Identity.from_seed(seed)

    async def _host(
        self, stack: contextlib.AsyncExitStack,
        journal: tuple[JournalFile, list[Entry]] | None = None,
    ) -> None:
        launch = self.launch
        assert self.broker is not None
        if journal is not None and journal[1]:
            host = Host.resume(journal[0], journal[1], broker=self.broker)
            await stack.enter_async_context(host)
            stack.push_async_callback(self._let_spectators_see_the_end)
            self.host = host
            self.launch = replace(self.launch, record=host.record_path)
            for seat, info in enumerate(host.host.seats):
                if info is not None and info.key == self._bot_identity(seat).key:
                    task = asyncio.create_task(self._add_bot(seat))
                    self._tasks.add(task)
                    task.add_done_callback(self._tasks.discard)
            return
        settings = HostSettings(
            table=launch.table, players=launch.players,
            bots=tuple(launch.bot_level(i) for i in range(launch.bots)), standin=launch.standin,
            rules=launch.rules, block_window=launch.block_window, password=launch.password,
            bot_delay=launch.bot_delay, plain_window=launch.plain_window,
            # Against bots only (``play``) nobody waits for anybody: no clock there.
            turn_clock=0.0 if launch.role == "play" else launch.turn_clock,
            spectator_delay=launch.spectator_delay,
            dealer=None if launch.dealer is None else launch.dealer % launch.players,
            game=launch.variant,
        )
        secret = None
        if launch.seed is not None:
            secret = derive_seed(launch.seed, label=f"host-secret-{launch.game}")
        # The embedded broker (amqtt) never fires a silent client's will: no probe.
        host = Host(settings, broker=self.broker, secret=secret, record_path=launch.record,
                    journal=journal[0] if journal is not None else None,
                    probe=not self._embedded)
        # The bots' entropy follows from the secret (netplay.entropy): a seed fixes both.
        await stack.enter_async_context(host)
        stack.push_async_callback(self._let_spectators_see_the_end)
        self.host = host
        for name, command in launch.engines:
            self._later(self._add_engine(name, command))

    def _identity(self, lock: ProfileLock) -> Identity:
        wanted = self.launch.profile or default_profile()
        self.profile_name = lock.acquire(wanted, exact=False)
        self.profile_in_use = wanted if self.profile_name != wanted else None
        return load_profile(self.profile_name, base=self.profiles)

    def _new_bot(self, seat: int) -> BotPeer:
        assert self.broker is not None
        first_bot = self.launch.players - self.launch.bots
        level = self.launch.bot_level(max(0, seat - first_bot))
        # Our own table's bots follow our host only (and join at once: no other key to
        # listen for, see netplay.playing.joining.SETTLE).
        own = self.host.identity.peer_id if self.host is not None else None
        bot = BotPeer(
            self._bot_identity(seat), self.launch.table, broker=self.broker, strategy=level,
            name=f"Bot {seat + 1}", password=self.launch.password, think=self.launch.bot_delay,
            pin=own,
        )
        bot.player.bot_level = level  # the host's own: rated as its level, not its key
        self._bots.append(bot)
        return bot

    def _later(self, work: Coroutine[Any, Any, None]) -> None:
        """Run ``work`` beside the session; it ends with it."""
        task = asyncio.create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _keep_seat_record(self, player: Player) -> None:
        """A game played at another machine's table counts here too: this seat's record
        of it (``netplay.record.SEAT_FORMAT``) is written beside the records of games
        hosted here and added to this machine's ratings (once, whoever's record of the
        same game comes first). Not under ``stacks serve``: the server stores its own."""
        from netplay.journal import default_record_path
        from netplay.record import write_new_record

        record = player.player.record(time.time())
        if record is None or self._seat_record is not None:
            return
        try:
            path = write_new_record(
                default_record_path(self.launch.table, str(record["game"])), record)
        except OSError as exc:
            log.warning("can't write this seat's record of %s: %s", self.launch.table, exc)
            self.post(Rated(f"Not rated: this seat's record can't be written ({exc})."))
            return
        self._seat_record = path
        self.post(RecordWritten(str(path)))
        self._later(self._rate_seat_record(path))

    async def _rate_seat_record(self, path: Path) -> None:
        if path not in self._rated:
            self.post(Rated(await _rate_here(path)))
            self._rated.add(path)

    async def _check_broker(self) -> None:
        """The broker of the table we host: does it hold small messages back? Measured once
        beside the game; said once, in words (``netplay.nagle``: only a Mosquitto without
        ``set_tcp_nodelay``, beyond what a busy machine explains; never our own embedded
        broker, which sets it)."""
        from netplay.nagle import slow_broker_words

        url = self.url
        if not url.startswith("mqtt") or self._embedded:
            return
        given = self.launch.broker
        words = await slow_broker_words(given if given and given != MEMORY else url, url)
        if words is not None:
            self.post(BrokerNote(words))

    async def _add_bot(self, seat: int) -> None:
        assert self._stack is not None
        await self._stack.enter_async_context(self._new_bot(seat))

    async def _add_engine(self, name: str, command: tuple[str, ...]) -> None:
        """Seat an outside program (``stacks play --engine``) as a peer of its own; one
        that can't be used is said in the log and a medium bot sits in its place."""
        from netplay.engine_peer import EnginePeer
        from netplay.engines import EngineBot, EngineError, EngineSpec

        assert self._stack is not None and self.host is not None and self.broker is not None
        engine = EngineBot(EngineSpec(name, command), budget=self.launch.engine_budget)
        try:
            await asyncio.to_thread(engine.start)
        except EngineError as exc:
            log.warning("%s; a medium bot sits in its place", exc)
            await self._add_bot(self.launch.players - 1)
            return
        seed = hashlib.sha256(b"sstacks-engine" + bytes(self.host.identity.signing_key)
                              + name.encode()).digest()
        peer = EnginePeer(engine, Identity.from_seed(seed), self.launch.table,
                          broker=self.broker, name=name, password=self.launch.password,
                          pin=self.host.identity.peer_id,
                          say=lambda text: log.warning("%s", text))
        await self._stack.enter_async_context(peer)

    async def _finish(self) -> None:
        """The host waits for the verdicts, then writes the record."""
        host = self.host
        assert host is not None
        await host.finished(verify_wait=self.launch.verify_wait)
        if self.launch.record is not None:
            self.post(RecordWritten(str(self.launch.record)))
        path = host.record_path
        if path is not None and host.host.over and path not in self._rated:
            self.post(Rated(await _rate_here(path)))
            self._rated.add(path)

    # -- health ------------------------------------------------------------------------------

    def _track(self, notice: Notice) -> None:
        if isinstance(notice, GameEnded):
            self._over = True
        elif isinstance(notice, TableClosed) and self._watched is not None:
            self._watched.table_closed = True

    def follow(self, key: bytes) -> None:
        if self.player is not None:
            self.player.follow(key)

    async def _watchdog(self) -> None:
        loop = asyncio.get_running_loop()
        started = loop.time()
        connected_at: float | None = None
        last: Problem | None = None
        while True:
            await asyncio.sleep(CHECK_EVERY)
            now = loop.time()
            watched = self._watched
            if watched is None:
                continue
            if watched.connected.is_set():
                watched.ever_connected = True
                connected_at = connected_at or now
            else:
                connected_at = None
            problem = self._problem(watched, now, connected_at, started)
            if problem != last:
                last = problem
                self.post(Health(problem))
            self._post_waiting(now)

    def _post_waiting(self, now: float) -> None:
        line = self._wait_line(now)
        if line != self._waiting:
            self._waiting = line
            self.post(Waiting(line))

    def _wait_line(self, now: float) -> str:
        """Whom the table waits for, and how long (the host's heartbeat, counted down)."""
        player = self.player
        watched = self._watched
        if player is None or self._over or (watched is not None and watched.table_closed):
            return ""
        session = player.player
        if watched is not None and not watched.connected.is_set():
            return ""  # the broker is gone: the banner says so, the host is not to blame
        silent = None if session.host_offline else session.host_late_for(now)
        names = tuple(short_name(n) for n in session.names)
        behind = session.spectator_delay if session.watch else 0.0
        return words.wait_line(session.waiting(now), names, session.seat, silent, behind)

    def _problem(
        self, watched: WatchedTransport, now: float, connected_at: float | None, started: float
    ) -> Problem | None:
        url = self.url
        inner = watched.inner
        player = self.player
        if watched.table_closed and not self._over and player is not None \
                and player.player.host_over:
            return Problem(
                "The host closed the table after its game ended.",
                f"Table {self.launch.table!r} is gone before you had seen the end.",
                "Esc goes back to the menu.", severe=True,
            )
        if watched.table_closed and not self._over:
            # First: the host's own broker often goes with it (an interface host's
            # embedded one), and a spectator must not wait for either to come back.
            return Problem(
                "The host closed the table.", f"Table {self.launch.table!r} is gone.",
                "Esc goes back to the menu; join again when the host reopens it.", severe=True,
            )
        if not watched.connected.is_set():
            error = inner.last_error if isinstance(inner, MqttTransport) else None
            failures = inner.failures if isinstance(inner, MqttTransport) else 0
            why = f" ({error})" if error else ""
            if watched.ever_connected:
                return Problem(
                    "Lost the broker.", f"The connection to {url} dropped{why}.",
                    "Reconnecting by itself; if it stays down, check the network and the "
                    "broker. Esc leaves.",
                )
            refusal = inner.refusal if isinstance(inner, MqttTransport) else None
            if refusal:
                return Problem(
                    "The broker refused us.", refusal[0].upper() + refusal[1:],
                    "Fix the broker address (mqtt://USER:PASSWORD@HOST:PORT) and try "
                    "again; Esc leaves.", severe=True,
                )
            if failures or now - started > NO_TABLE:
                return Problem(
                    "Can't reach the broker.", f"Nothing answers at {url}{why}.",
                    "Check the address and port, and that `stacks host` or `stacks broker` "
                    "runs there. Retrying; Esc leaves.", severe=True,
                )
            return None
        if not watched.table_seen:
            if connected_at is not None and now - connected_at > NO_TABLE:
                return Problem(
                    "No such table yet.",
                    f"Table {self.launch.table!r} is not announced on {url}.",
                    "The host may not have opened it yet, or the name differs. Waiting; "
                    "Esc leaves.",
                )
            return None
        return self._host_problem(now)

    def _host_problem(self, now: float) -> Problem | None:
        """The host gone (its last will, or silence) or slow to answer, in words."""
        player = self.player
        if player is None or self._over:
            return None
        session = player.player
        silent = session.host_silent_for(now)
        table = self.launch.table
        if session.host_offline:
            heard = session.host_heard
            since = "before you came" if heard is None else \
                time.strftime("%H:%M", time.localtime(time.time() - (now - heard)))
            if heard is None:
                how = "its last will was waiting on the broker"
            elif silent is None or silent < 1:
                how = "its broker connection ended (the host's last will)"
            else:
                how = f"nothing from it for {silent:.0f} s"
            return Problem(
                f"Host offline since {since}, waiting for it to come back.",
                f"The host of {table!r} is gone: {how}.",
                "The table waits and carries on when the host is back (it can restart with "
                "`stacks host --resume`). Esc leaves.", severe=True,
            )
        late = session.host_late_for(now)
        if late is not None and late >= HOST_SLOW:
            silent = late
            return Problem(
                f"Host not responding {silent:.0f} s.",
                "Nothing from the host since then: it may be busy, frozen or cut off.",
                "Waiting; if it stays silent it is shown offline. Esc leaves.",
            )
        return None


def _start_problem(launch: Launch, exc: Exception) -> Problem:
    if isinstance(exc, JournalError):
        return Problem("Can't open the table.", str(exc),
                       "Esc goes back to the menu.", severe=True)
    if isinstance(exc, ProfileError):
        return Problem("Can't load your profile.", str(exc),
                       "Choose another with --profile NAME.", severe=True)
    if isinstance(exc, ValueError):
        if not launch.hosting:  # a joiner or a spectator has no settings but the address
            return Problem("Can't reach the table.", str(exc),
                           "Check the broker address (mqtt://HOST:PORT).", severe=True)
        return Problem("Can't open the table.", str(exc),
                       "Check the settings (players, bots, block window, broker address).",
                       severe=True)
    return Problem(
        "Can't start the broker.", str(exc),
        "Another program may use the port: pick another with --port, or use a running "
        "broker with --broker URL.", severe=True,
    )


RATE_AT_END_S = 10.0
"""Seconds a session that ends may spend adding its finished game to the ratings."""


async def _rate_here(record: Path) -> str:
    """Add a game hosted here to this machine's ratings (``stacks ratings``); a database
    that can't take it now keeps it for the next time, and is logged, never fatal. What
    became of it, in words for the player."""
    from ratings.local import add_finished  # SQLAlchemy only once a game has ended

    said: list[str] = []

    def say(text: str) -> None:
        log.warning("%s", text)
        said.append(text)

    try:
        added = await add_finished(record, say=say)
    except Exception:  # the game is over and its record kept: ratings never break it
        log.exception("adding %s to this machine's ratings failed", record)
        return "The game could not be added to the ratings (logged); its record is kept."
    if added is not None:
        return "Rated: the game is in this machine's ratings (Rankings, k)."
    why = said[-1] if said else "the ratings database can't take it now"
    return f"Not rated yet: {why}."


def _server_pin(launch: Launch) -> str | None:
    """The host key the ssh server named for ``launch``'s table, unless the user pinned
    one (``TABLE@FINGERPRINT``)."""
    return launch.host_pin if "@" not in launch.table else None
