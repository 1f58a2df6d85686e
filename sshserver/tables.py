"""Tables held by ``stacks serve``: the host of each runs in the server's own process.

A player who hosts from the ssh menu asks the server (over `tui.serve_link`) to open the
table, then sits at it as a player like anyone else. The table's host lives here, so any
player's dropped connection, the creator's too, is only a seat that comes back: the
host's stand-in bot covers it meanwhile.

What ends a held table:

- its game: the result and the fair-deal check reach the players, the record is written,
  and the table stays ``linger`` seconds more for anyone coming back to see the result,
  and at least until its spectators, behind the spectator delay, have seen the end (a
  rematch its creator asks for meanwhile ends it at once: the spectators then get the
  rest of the game at once, before the next game's stream begins);
- a lobby nobody sits in (no seated player connected) for ``lobby_timeout`` seconds;
- its creator closing it from the lobby, before the game starts.

The server stopping does not end them: each table's host journals to disk
(``netplay.journal``, in a folder of the server's own) and a restarted server resumes
every unfinished one (`TableKeeper.resume_all`), its bots included; the players
reconnect to their seats. A table ended for one of the reasons above is marked so in its
journal (finished or abandoned) and never comes back.

The creator is the profile (ssh key) that opened it: only that key fills its empty seats
with bots or closes it. Requests are checked like any input from the network.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import hashlib
import logging
import math
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from engine.errors import ConfigError
from engine.games import DEFAULT_GAME, game_def
from netplay.host import HostSettings
from netplay.host_peer import Host
from netplay.identity import Identity
from netplay.journal import Entry, JournalError, JournalFile, JournalStore, list_tables, mark
from netplay.memory import AsyncMemoryBroker
from netplay.peer import Broker
from netplay.player_peer import BotPeer
from netplay.topics import check_table_name
from ratings.archive import Archive
from tui.plural import counted
from tui.serve_link import SERVED_EXTRAS

log = logging.getLogger(__name__)

CHECK_EVERY = 0.5
DEFAULT_LOBBY_TIMEOUT = 600.0
DEFAULT_LINGER = 120.0
MAX_PASSWORD = 64
MAX_RESTARTS = 3


@dataclass(frozen=True)
class KeeperSettings:
    lobby_timeout: float = DEFAULT_LOBBY_TIMEOUT
    """Seconds a lobby stays open with no seated player connected."""
    linger: float = DEFAULT_LINGER
    """Seconds a finished table stays up (a player coming back sees the result)."""
    verify_wait: float = 5.0
    """Seconds the host waits at the end for the players' fair-deal checks."""
    max_tables: int = 32
    max_per_creator: int = 3
    journals: Path | None = None
    """Where the tables' journals go (``None``: no journal, nothing resumes)."""
    engines: tuple[tuple[str, tuple[str, ...]], ...] = ()
    """Outside programs the operator registered (``stacks serve --engine NAME=CMD``): a
    table's creator may seat them as opponents, each a peer of its own."""
    engine_budget: float = 2.0


@dataclass(frozen=True)
class Caller:
    """Who is asking: set by the server for the connection, never by the request."""

    profile: str
    name: str
    ssh: str = ""
    """The ssh command that reaches the server, as this caller reached it."""


@dataclass
class HeldTable:
    name: str
    creator: str
    creator_name: str
    settings: HostSettings
    host: Host
    stack: contextlib.AsyncExitStack
    opened: float
    bots: list[BotPeer] = field(default_factory=list)
    engines: list[str] = field(default_factory=list)
    """The registered engines seated at it, by name."""
    task: asyncio.Task[None] | None = None
    ended: asyncio.Event = field(default_factory=asyncio.Event)
    why: str = ""
    """Why it ended, once it did."""
    restarts: int = 0
    """Times it was brought back from its journal after its host failed."""
    rated: str = ""
    rated_kept: bool = False
    """The game is kept on disk while the database is down: ``rated`` is not the last word
    (it turns to "Rated" once the game is stored; the players ask again till then)."""
    """Once its game is over: what became of it in the ratings, in words for the
    players (`TableKeeper.handle`'s ``info``); empty until then."""

    @property
    def status(self) -> str:
        return self.host.host.status

    def humans_present(self, now: float) -> int:
        """Seated players (not bots) connected now."""
        away_after = self.settings.away_after
        return sum(
            1 for info in self.host.host.seats
            if info is not None and not info.is_bot and info.online
            and now - info.last_seen <= away_after
        )

    def empty_seats(self) -> list[int]:
        return [seat for seat, info in enumerate(self.host.host.seats) if info is None]


class RequestRefused(ValueError):
    """A request the keeper won't do; the message is for the player."""


class SharedTables(Protocol):
    """Where a node of several (``stacks serve --node``) keeps its tables' journals and
    leases: the shared database (`sshserver.cluster.ClusterNode`). Without it, journals
    are files of the server's own."""

    async def new_journal(self, table: str, header: dict[str, Any]) -> JournalStore:
        """A new table's journal, held by this node; `RequestRefused` when the name is
        held by a node already, or the database can't be used."""
        ...

    async def ended(self, journal: JournalStore, why: str) -> None:
        """The table of ``journal`` ended: no node takes it again."""
        ...

    async def let_go(self, journal: JournalStore) -> None:
        """This node stopped hosting the table of ``journal`` (stopping, or its host
        failed): another node (or this one) takes it over at once."""
        ...

    async def host_of(self, table: str) -> str | None:
        """The id of the key that hosts ``table``, held by a node of the community
        (``None``: not held, not known, or the database out of reach)."""
        ...

    async def held_anywhere(self, table: str) -> bool:
        """Does a node of the community hold a table of this name now?"""
        ...


class TableKeeper:
    """The server's tables: opens them, runs them, ends them."""

    def __init__(
        self, broker: Callable[[], Awaitable[Broker]], *,
        settings: KeeperSettings | None = None,
        say: Callable[[str], None] | None = None,
        record_path: Callable[[str, str], Path] | None = None,
        archive: Archive | None = None,
    ) -> None:
        self._broker = broker
        self.archive = archive
        """Where finished games go (the database), by way of a note on disk."""
        self.settings = settings or KeeperSettings()
        self._say = say or (lambda text: log.info("%s", text))
        self._record_path = record_path
        self.tables: dict[str, HeldTable] = {}
        self._opening: set[str] = set()
        self._stopping = False
        self.rated_after: dict[str, tuple[str, bool]] = {}
        """What became of the last game of a table that has ended since (its words, and
        whether it is kept while the database is down), by the table's name: its players
        may ask after it is gone. At most :data:`RATED_KEPT`."""
        self._waiting: set[asyncio.Task[None]] = set()
        self.games_finished = 0
        """Games of held tables that reached their end (for the metrics)."""
        self.on_host: Callable[[Host], None] | None = None
        """Called with each table's host before it starts (the metrics watch it)."""
        self.shared: SharedTables | None = None
        """The shared database of a node of several (``None``: journals on disk)."""
        self.admit: Callable[[bytes], str | None] | None = None
        """Who may take a new seat at a held table (a player's key → why not, in words,
        or ``None``): the server's moderation (`sshserver.moderation`)."""
        self.left_early: Callable[[str, list[tuple[bytes, str]]], Awaitable[None]] | None \
            = None
        """Told at a game's end who left it for the stand-in to finish (the table, and
        each such seat's key and name): the server's moderation counts them."""

    # -- the requests ------------------------------------------------------------------------

    async def handle(self, caller: Caller, request: dict[str, Any]) -> dict[str, Any]:
        """One request from ``caller``'s program: a reply, ``ok`` or with an ``error``."""
        op = request.get("op")
        try:
            if op == "open":
                return await self.open(caller, request)
            if op == "fill":
                return await self.fill(caller, _table_field(request))
            if op == "close":
                return await self.close_by(caller, _table_field(request))
            if op == "engines":
                return {"ok": True, "engines": [name for name, _ in self.settings.engines]}
            if op == "info":
                table = self.tables.get(_table_field(request))
                creator = table is not None and table.creator == caller.profile
                rated, kept = (table.rated, table.rated_kept) if table is not None \
                    else self.rated_after.get(_table_field(request), ("", False))
                host_id = table.host.identity.peer_id if table is not None else (
                    await self.shared.host_of(_table_field(request))
                    if self.shared is not None else None)
                held = table is not None or (
                    self.shared is not None and (host_id is not None or
                                                 await self.shared.held_anywhere(
                                                     _table_field(request))))
                reply: dict[str, Any] = {"ok": True, "held": held,
                                         "creator": creator, "rated": rated,
                                         "rated_final": bool(rated) and not kept}
                if host_id is not None:
                    # Which key hosts it (a pin): the program joins that host at once,
                    # with no wait for a rogue's announcement (netplay.playing.joining).
                    reply["host"] = host_id
                if table is not None and creator:
                    # Its creator coming back with `join TABLE` rematches with these, not
                    # with the defaults of a join; the bots it seated with ``fill`` too,
                    # as the table's own in the next game (its own rematch does the same).
                    settings = open_request(table.settings)
                    settings["bots"] += len(table.bots)
                    if table.engines:
                        settings["engines"] = list(table.engines)
                    reply["settings"] = settings
                return reply
            raise RequestRefused(f"unknown request {op!r}")
        except RequestRefused as exc:
            return {"ok": False, "error": str(exc)}

    async def open(self, caller: Caller, request: dict[str, Any]) -> dict[str, Any]:
        settings = host_settings(request)
        engines = self._engines_asked(request, settings)
        name = settings.table
        if self._stopping:
            raise RequestRefused("the server is stopping")
        old = self.tables.get(name)
        if old is not None and old.host.host.over and old.creator == caller.profile:
            await self._end(old, "its creator started the next game")  # a rematch
        if name in self.tables or name in self._opening:
            raise RequestRefused(f"a table named {name!r} is already open on this server: "
                                 "pick another name, or join it")
        if len(self.tables) + len(self._opening) >= self.settings.max_tables:
            raise RequestRefused(f"this server holds {self.settings.max_tables} tables "
                                 "already: try again later")
        mine = sum(1 for t in self.tables.values() if t.creator == caller.profile)
        if mine >= self.settings.max_per_creator:
            raise RequestRefused(f"you have {mine} tables open already (at most "
                                 f"{self.settings.max_per_creator}): close one first")
        self._opening.add(name)
        try:
            broker = await self._broker()
            if await _announced_elsewhere(broker, name):
                raise RequestRefused(f"a table named {name!r} is already announced on the "
                                     "server's broker by another host: pick another name")
            table = await self._start(caller, settings, broker)
        finally:
            self._opening.discard(name)
        for engine in engines:
            await self._seat_engine(table, engine, broker)
        bots = len(settings.bots)
        self._say(f"{caller.name} opened table {name} ({counted(settings.players, 'seat')}"
                  + (f", {counted(bots, 'bot')}" if bots else "") + ")")
        return {"ok": True, "table": name, "broker": _url(broker),
                "ssh": f"{caller.ssh} join {name}" if caller.ssh else "",
                "status": table.status, "host": table.host.identity.peer_id}

    async def _mine_here(self, caller: Caller, name: str) -> HeldTable:
        """:meth:`_mine`, said in words when another node of the community holds it."""
        if name not in self.tables and self.shared is not None \
                and await self.shared.held_anywhere(name):
            raise RequestRefused(f"table {name!r} is held by another server of this "
                                 "community: its creator fills or closes it there, or from "
                                 "here once it moves")
        return self._mine(caller, name)

    async def fill(self, caller: Caller, name: str) -> dict[str, Any]:
        table = await self._mine_here(caller, name)
        if table.host.host.game is not None:
            raise RequestRefused("the game has started: every seat is taken")
        taken = {bot.player.name for bot in table.bots}
        empty = [seat for seat in table.empty_seats() if f"Bot {seat + 1}" not in taken]
        broker = await self._broker()
        for seat in empty:
            await self._seat_bot(table, seat, broker)
        return {"ok": True, "bots": len(empty)}

    async def _seat_bot(self, table: HeldTable, seat: int, broker: Broker) -> None:
        bot = BotPeer(bot_identity(table.host.identity, seat), table.name, broker=broker,
                      strategy="greedy", name=f"Bot {seat + 1}",
                      password=table.settings.password, think=table.settings.bot_delay,
                      pin=table.host.identity.peer_id)  # our host only, joined at once
        bot.player.bot_level = "greedy"  # the server's own: rated as its level, not its key
        table.bots.append(bot)
        await table.stack.enter_async_context(bot)

    async def check_engines(self) -> list[str]:
        """Start and greet each registered engine once, so that the operator learns at
        start-up, in words, that one can't play (a player choosing it would find its seat
        free)."""
        from netplay.engines import EngineBot, EngineError, EngineSpec

        lines = []
        for name, command in self.settings.engines:
            probe = EngineBot(EngineSpec(name, command))
            try:
                said = await asyncio.to_thread(probe.start)
                lines.append(f"engine {name} offered: {said.name}, protocol {said.protocol}, "
                              f"plays {', '.join(said.games)}")
            except EngineError as exc:
                lines.append(f"engine {name} can't be offered: {exc}")
            finally:
                await asyncio.to_thread(probe.close)
        return lines

    def _engines_asked(self, request: dict[str, Any], settings: HostSettings) -> list[str]:
        """The registered engines an ``open`` request seats (``engines``: their names)."""
        asked = request.get("engines", [])
        registered = dict(self.settings.engines)
        if not isinstance(asked, list) or not all(isinstance(n, str) for n in asked):
            raise RequestRefused("engines: a list of engine names, please")
        unknown = [n for n in asked if n not in registered]
        if unknown:
            offered = ", ".join(registered) or "none"
            raise RequestRefused(f"this server has no engine {unknown[0]!r} (it offers "
                                 f"{offered})")
        if len(set(asked)) < len(asked):
            raise RequestRefused("an engine takes one seat of a table")
        if len(asked) + len(settings.bots) >= settings.players:
            raise RequestRefused(f"{len(asked)} engine(s) and {len(settings.bots)} bot(s) "
                                 f"leave no seat for you at {settings.players} players")
        return asked

    async def _seat_engine(self, table: HeldTable, name: str, broker: Broker) -> None:
        """Seat a registered engine as a peer of its own; one that can't start is said in
        the server's log and the seat stays free (the creator may fill it with a bot)."""
        from netplay.engine_peer import EnginePeer
        from netplay.engines import EngineBot, EngineError, EngineSpec

        command = dict(self.settings.engines)[name]
        engine = EngineBot(EngineSpec(name, command), budget=self.settings.engine_budget,
                           say=lambda text: self._say(f"table {table.name}: {text}"))
        try:
            await asyncio.to_thread(engine.start)
        except EngineError as exc:
            self._say(f"table {table.name}: {exc}; its seat stays free")
            return
        peer = EnginePeer(engine, engine_identity(table.host.identity, name), table.name,
                          broker=broker,
                          name=name, password=table.settings.password,
                          pin=table.host.identity.peer_id,
                          say=lambda text: self._say(f"table {table.name}: {text}"))
        table.engines.append(name)
        await table.stack.enter_async_context(peer)

    async def close_by(self, caller: Caller, name: str) -> dict[str, Any]:
        table = await self._mine_here(caller, name)
        if table.host.host.game is not None and not table.host.host.over:
            raise RequestRefused("the game is on: a table held by the server ends with its "
                                 "game (leave it; a bot plays your seat)")
        await self._end(table, f"closed by {caller.name}")
        return {"ok": True}

    def _mine(self, caller: Caller, name: str) -> HeldTable:
        table = self.tables.get(name)
        if table is None:
            raise RequestRefused(f"this server holds no table named {name!r}")
        if table.creator != caller.profile:
            raise RequestRefused(f"table {name!r} was opened by {table.creator_name}: only "
                                 "they can do that")
        return table

    # -- a table's life ----------------------------------------------------------------------

    async def _start(self, caller: Caller, settings: HostSettings, broker: Broker) -> HeldTable:
        record = self._record_path(settings.table, settings.game) if self._record_path \
            else None
        journal: JournalStore | None = None
        identity = Identity.generate()
        # The host's key (its id) in the journal's header: every node of a community can
        # tell a player's program which key hosts the table (``info``), wherever it is.
        header = {"profile": "serve", "creator": caller.profile, "creator_name": caller.name,
                  "broker": _url(broker), "record": str(record) if record else None,
                  "host": identity.peer_id}
        if self.shared is not None:
            journal = await self.shared.new_journal(settings.table, header)
        elif self.settings.journals is not None:
            try:
                journal = JournalFile.create(settings.table, folder=self.settings.journals,
                                             **header)
            except JournalError as exc:
                raise RequestRefused(f"the server can't keep the table's journal: {exc}") \
                    from None
        host = Host(settings, broker=broker, identity=identity, record_path=record,
                    journal=journal)
        host.epoch = int(getattr(journal, "epoch", 0))  # a shared journal's lease: 1
        try:
            return await self._keep(host, caller.profile, caller.name)
        except BaseException:
            if self.shared is not None and journal is not None:
                with contextlib.suppress(Exception):
                    await self.shared.ended(journal, "it could not start")
            raise

    async def _keep(self, host: Host, creator: str, creator_name: str) -> HeldTable:
        """Run ``host`` as one of the server's tables."""
        if self.on_host is not None:
            self.on_host(host)
        stack = contextlib.AsyncExitStack()
        try:
            await stack.enter_async_context(host)
        except BaseException:
            await stack.aclose()
            raise
        loop = asyncio.get_running_loop()
        table = HeldTable(host.settings.table, creator, creator_name, host.settings, host,
                          stack, opened=loop.time())
        host.host.lobby.admit = lambda key: self.admit(key) if self.admit else None
        self.tables[table.name] = table
        table.task = asyncio.create_task(self._run(table), name=f"held-{table.name}")
        return table

    async def resume_all(self) -> list[str]:
        """Bring back every unfinished table of the journals' folder (a restarted server);
        the names of those that came back. One that can't is reported and left alone."""
        folder = self.settings.journals
        if folder is None:
            return []
        back: list[str] = []
        for found in list_tables(folder=folder):  # newest first: it wins a name
            name = found.table
            if found.running or name in self.tables:
                self._say(f"table {name} not resumed: "
                          + ("another process holds its journal" if found.running
                             else "a table of that name is open already"))
                continue
            table = await self._resume(found.path, name)
            if table is not None:
                back.append(name)
        return back

    async def _resume(self, path: Path, name: str) -> HeldTable | None:
        """Run the table of the journal at ``path`` again; ``None`` (and why, said) if it
        can't be."""
        try:
            journal, entries = JournalFile.reopen(path)
        except JournalError as exc:
            self._say(f"table {name} not resumed: {exc}")
            return None
        try:
            broker = await self._broker()
            host = Host.resume(journal, entries, broker=broker)
        except (JournalError, OSError, ValueError) as exc:
            journal.close()
            self._say(f"table {name} not resumed: {exc}")
            return None
        head = entries[0]
        try:
            table = await self._keep(host, str(head.get("creator") or ""),
                                     str(head.get("creator_name") or "?"))
            engines = {engine_identity(host.identity, name).key: name
                       for name, _ in self.settings.engines}
            for seat, info in enumerate(host.host.seats):
                if info is not None and info.key == bot_identity(host.identity, seat).key:
                    await self._seat_bot(table, seat, broker)  # a bot of the creator's
                elif info is not None and info.key in engines:
                    await self._seat_engine(table, engines[info.key], broker)  # back in it
        except Exception as exc:  # one table that can't run must not stop the server
            log.exception("resuming table %s failed", name)
            self._say(f"table {name} not resumed: {exc}")
            held = self.tables.get(name)
            if held is not None:
                await self._end(held, "it could not be resumed", resumable=True)
            journal.close()
            return None
        where = "in its lobby" if host.host.game is None else \
            f"at batch {len(host.host.batches)}"
        self._say(f"resumed table {name} {where}")
        return table

    async def resume_shared(self, journal: JournalStore, entries: list[Entry],
                            epoch: int) -> HeldTable | None:
        """Host a table another node held (its lease ran out, or was handed over), from
        its journal in the shared database, at ``epoch``: the same host key, commitment,
        seats and batch numbers. ``None`` (and why, said) if it can't be now (another
        node may); `JournalError` if it never can (its journal does not replay)."""
        name = next((str(e.get("table")) for e in entries if e.get("t") == "journal"), "?")
        if any(e.get("t") in ("finished", "abandoned") for e in entries):
            raise JournalError(f"table {name} was over already")
        if name in self.tables:
            self._say(f"table {name} not taken over: a table of that name is open here")
            return None
        try:
            broker = await self._broker()
            host = Host.resume(journal, entries, broker=broker)  # JournalError: never
        except (OSError, ValueError) as exc:
            self._say(f"table {name} not taken over: {exc}")
            return None
        host.epoch = epoch
        _sequence_after(host, entries)
        if self._record_path is not None:  # the record goes to this node's disk
            host.record_path = self._record_path(host.settings.table, host.settings.game)
        head = entries[0]
        try:
            table = await self._keep(host, str(head.get("creator") or ""),
                                     str(head.get("creator_name") or "?"))
            for seat, info in enumerate(host.host.seats):
                if info is not None and info.key == bot_identity(host.identity, seat).key:
                    await self._seat_bot(table, seat, broker)
        except Exception as exc:
            log.exception("taking over table %s failed", name)
            self._say(f"table {name} not taken over: {exc}")
            held = self.tables.get(name)
            if held is not None:
                await self._end(held, "it could not be taken over", resumable=True)
            return None
        where = "in its lobby" if host.host.game is None else \
            f"at batch {len(host.host.batches)}"
        self._say(f"took over table {name} {where} (epoch {epoch})")
        return table

    async def _run(self, table: HeldTable) -> None:
        """Watch one table until something ends it."""
        loop = asyncio.get_running_loop()
        host = table.host
        nobody_since: float | None = table.opened
        try:
            while not host.host.over:
                if host.fenced is not None:
                    await self._end(table, f"no longer this server's ({host.fenced})",
                                    resumable=True)
                    return
                failure = host.failure
                if failure is not None:
                    await self._restart(table, failure)
                    return
                now = loop.time()
                if host.host.game is None:
                    if table.humans_present(now):
                        nobody_since = None
                    elif nobody_since is None:
                        nobody_since = now
                    elif now - nobody_since >= self.settings.lobby_timeout:
                        minutes = self.settings.lobby_timeout / 60
                        await self._end(table, f"nobody in its lobby for {minutes:g} min")
                        return
                await asyncio.sleep(CHECK_EVERY)
            self.games_finished += 1
            self._say(f"table {table.name}: game over")
            # Noted on disk before the record is written and the journal marked finished:
            # a server killed from here on stores the game when it starts again.
            if host.fenced is not None:
                await self._end(table, f"no longer this server's ({host.fenced})",
                                resumable=True)
                return
            await self._note_left_early(table)  # by the node that ends the game, once
            entry = None if self.archive is None else self.archive.expect(
                journal=host.journal.path if isinstance(host.journal, JournalFile) else None,
                record=host.record_path)
            await host.finished(verify_wait=self.settings.verify_wait)
            if host.fenced is not None:  # the next node stores the game
                await self._end(table, f"no longer this server's ({host.fenced})",
                                resumable=True)
                return
            if self.archive is not None and entry is not None:
                if host.record_path is not None:
                    self.archive.note_record(entry, host.record_path)
                added = await self.archive.store(entry)
                table.rated = rated_words(added is not None, self.archive.down,
                                          full=self.archive.full)
                table.rated_kept = added is None and self.archive.down is not None
                if table.rated_kept:
                    self._when_stored(table, entry)
            # It stays a while for anyone coming back, and at least until the spectators,
            # behind the spectator delay, have seen the end.
            await asyncio.gather(asyncio.sleep(self.settings.linger),
                                 host.caught_up(verify_wait=self.settings.verify_wait))
            await self._end(table, "its game is over")
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("held table %s failed", table.name)
            await self._end(table, "the server failed on it (logged)")

    async def _note_left_early(self, table: HeldTable) -> None:
        """The players the stand-in was playing for when the game ended: they left it
        before its end and never came back."""
        left = [(info.key, info.name) for info in table.host.host.seats
                if info is not None and info.key is not None and info.standin is not None]
        if left and self.left_early is not None:
            try:
                await self.left_early(table.name, left)
            except Exception:  # the count is worth less than the game's end
                log.exception("counting the players who left table %s failed", table.name)

    async def close_for(self, name: str, why: str) -> bool:
        """End table ``name`` whatever its state (a moderator closes it); whether there
        was one."""
        table = self.tables.get(name)
        if table is None:
            return False
        await self._end(table, why)
        return True

    async def _restart(self, table: HeldTable, failure: BaseException) -> None:
        """The host's loop died on an error (a bug): bring the table back from its
        journal, as a restarted server would; after `MAX_RESTARTS`, end it."""
        journal = table.host.journal
        if journal is None or table.restarts >= MAX_RESTARTS:
            await self._end(table, f"stopped on an error ({failure!r})")
            return
        if not isinstance(journal, JournalFile):  # a shared journal: any node takes it
            await self._end(table, f"stopped on an error ({failure!r}); handed over",
                            resumable=True)
            return
        path = journal.path
        await self._end(table, f"stopped on an error ({failure!r}); resuming it",
                        resumable=True)
        again = await self._resume(path, table.name)
        if again is not None:
            again.restarts = table.restarts + 1
        else:
            with contextlib.suppress(JournalError):
                mark(path, "abandoned", why="it could not be resumed after an error")

    def _when_stored(self, table: HeldTable, entry: Path) -> None:
        """The game was kept while the database is down: once it is stored, its players
        (at the table or asking after it has ended) read that it is rated."""
        assert self.archive is not None
        archive = self.archive

        async def stored() -> None:
            await archive.wait_stored(entry)
            table.rated, table.rated_kept = RATED_YES, False
            if table.name in self.rated_after:
                self._remember_rated(table)

        task = asyncio.create_task(stored(), name=f"rated-{table.name}")
        self._waiting.add(task)
        task.add_done_callback(self._waiting.discard)

    def _remember_rated(self, table: HeldTable) -> None:
        if not table.rated:
            return
        self.rated_after.pop(table.name, None)
        self.rated_after[table.name] = (table.rated, table.rated_kept)
        while len(self.rated_after) > RATED_KEPT:
            del self.rated_after[next(iter(self.rated_after))]

    async def _end(self, table: HeldTable, why: str, *, resumable: bool = False) -> None:
        """End ``table``; its journal is marked abandoned unless its game is over (then
        it is marked finished) or it is to be ``resumable`` by the next server."""
        if table.ended.is_set():
            return
        table.why = why
        table.ended.set()
        if self.tables.get(table.name) is table:
            del self.tables[table.name]
        self._remember_rated(table)
        task = table.task
        if task is not None and task is not asyncio.current_task():
            task.cancel()
        if table.host.host.over:
            with contextlib.suppress(OSError):
                table.host.write_record()
        store = table.host.journal
        journal = store.path if isinstance(store, JournalFile) else None
        with contextlib.suppress(Exception):
            await table.stack.aclose()  # the host clears its announcement
        if store is not None:
            store.close()  # even if the host's close failed: let go of its lock
        if self.shared is not None and store is not None and journal is None:
            try:
                if resumable:
                    await self.shared.let_go(store)
                else:
                    await self.shared.ended(store, why)
            except Exception as exc:  # the lease runs out by itself
                log.warning("table %s: the shared database was not told: %s", table.name,
                            exc)
        if journal is not None and not resumable and not table.host.host.over:
            try:
                mark(journal, "abandoned", why=why)
            except JournalError as exc:
                log.warning("could not mark %s abandoned: %s", journal, exc)
        self._say(f"table {table.name} {'stopped' if resumable else 'closed'}: {why}")

    async def stop(self) -> None:
        """The server stops: stop every table, to be resumed by the next server."""
        self._stopping = True
        why = "the server stopped; it resumes with the server" if self.shared is None \
            else "the server stopped; another server of the community takes it over"
        for table in list(self.tables.values()):
            await self._end(table, why, resumable=True)


RATED_KEPT = 256
"""Ended tables whose last game's rating words are kept for players asking after them."""
RATED_YES = "Rated: the game is in the server's ratings (Rankings, k)."


def rated_words(stored: bool, down: str | None, *, full: bool = False) -> str:
    """What became of a finished game in the server's ratings, for its players."""
    if stored:
        return RATED_YES
    if down is not None and full:
        return (f"The server's ratings database is full ({down}): the game is kept and "
                "rated when there is room again.")
    if down is not None:
        return (f"The server's ratings database is down ({down}): the game is kept and "
                "rated when it is back.")
    return "The game could not be rated (the server's log says why)."


# -- checking what a session asks for ----------------------------------------------------------


def _table_field(request: dict[str, Any]) -> str:
    name = request.get("table")
    if not isinstance(name, str):
        raise RequestRefused("the request names no table")
    try:
        return check_table_name(name)
    except ValueError as exc:
        raise RequestRefused(str(exc)) from None


def _int(request: dict[str, Any], key: str, default: int) -> int:
    value = request.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int):
        raise RequestRefused(f"{key}: a whole number, please")
    return value


def _seconds(request: dict[str, Any], key: str, default: float, top: float) -> float:
    value = request.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise RequestRefused(f"{key}: a number of seconds, please")
    if not 0 <= value <= top:
        raise RequestRefused(f"{key}: 0 to {top:g} seconds")
    return float(value)


def host_settings(request: dict[str, Any]) -> HostSettings:
    """The settings of the table a session asks for; `RequestRefused` says what's wrong."""
    name = _table_field(request)
    players = _int(request, "players", 4)
    bots = _int(request, "bots", 0)
    if not 0 <= bots < players:
        raise RequestRefused(f"{bots} bots leave no seat for you at {players} players")
    window = _seconds(request, "block_window", 3.0, 60.0)
    delay = _seconds(request, "bot_delay", 0.6, 10.0)
    dealer = request.get("dealer")
    if dealer is not None and (isinstance(dealer, bool) or not isinstance(dealer, int)):
        raise RequestRefused("dealer: a seat number, or none")
    password = request.get("password")
    if password is not None and (not isinstance(password, str) or not password
                                 or len(password) > MAX_PASSWORD):
        raise RequestRefused(f"password: 1-{MAX_PASSWORD} characters, or none")
    known = {f.name for f in dataclasses.fields(HostSettings)}
    extras: dict[str, Any] = {
        key: _seconds(request, key, 0.0, 3600.0)
        for key in SERVED_EXTRAS if key in known and key in request
    }
    game = request.get("game", DEFAULT_GAME)
    try:
        definition = game_def(game if isinstance(game, str) else "")
        rules = definition.config_from_wire(request.get("rules", {}))
        bot = "greedy" if definition.name == DEFAULT_GAME else definition.default_bot
        settings = HostSettings(table=name, players=players, bots=(bot,) * bots,
                                rules=rules, block_window=window, password=password,
                                bot_delay=delay, dealer=dealer, game=definition.name)
        return dataclasses.replace(settings, **extras) if extras else settings
    except (ValueError, ConfigError) as exc:
        raise RequestRefused(str(exc)) from None


def open_request(settings: HostSettings) -> dict[str, Any]:
    """The fields of an ``open`` request that opens a table like ``settings`` (the other
    way from :func:`host_settings`)."""
    request: dict[str, Any] = {
        "players": settings.players, "bots": len(settings.bots),
        "block_window": settings.block_window, "bot_delay": settings.bot_delay,
        "password": settings.password, "rules": settings.rules.to_wire(),
        "game": settings.game,
    }
    for key in SERVED_EXTRAS:
        value = getattr(settings, key, None)
        if isinstance(value, int | float):
            request[key] = value
    return request


def bot_identity(host: Identity, seat: int) -> Identity:
    """The identity of the bot the creator seated at ``seat``: derived from the table's
    host key (kept in its journal), so that a resumed table gets the same bots back."""
    seed = bytes(host.signing_key)
    return Identity.from_seed(hashlib.sha256(b"served-bot:" + seed + bytes([seat])).digest())


def engine_identity(host: Identity, name: str) -> Identity:
    """The identity of the registered engine ``name`` at a table: derived from the table's
    host key, so that a resumed table takes the same engine back into its seat."""
    seed = bytes(host.signing_key)
    return Identity.from_seed(hashlib.sha256(b"served-engine:" + seed + name.encode()).digest())

def _sequence_after(host: Host, entries: list[Entry]) -> None:
    """A host taken over from another machine numbers its frames after the old one's
    (peers drop a frame numbered below the last they took from the key): its sequence
    starts past the last time the journal names, should this machine's clock be behind."""
    last = max((float(e["at"]) for e in entries
                if isinstance(e.get("at"), int | float) and not isinstance(e.get("at"), bool)),
               default=0.0)
    host.host.sender.sequencer.after(int((last + 1.0) * 1_000_000))


def _url(broker: Broker) -> str:
    return "memory" if isinstance(broker, AsyncMemoryBroker) else str(broker)


async def _announced_elsewhere(broker: Broker, name: str) -> bool:
    """Does another host announce a table of this name on the broker already?"""
    if not isinstance(broker, str):
        return False  # an in-process broker (tests) has only our own tables
    from netplay.lobby import list_tables

    return any(info.table == name for info in await list_tables(broker, timeout=0.6))
