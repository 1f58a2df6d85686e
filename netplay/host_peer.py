"""The asyncio host peer: ``Host``, the table's authority, with its own bots.

A thin driver around ``netplay.host.HostSession`` (the loop it shares with the players is
``netplay.peer.Peer``): it writes the table's journal before the frames that depend on it
go out, plays its bots' turns, and keeps the game's record. No protocol rule lives here.

    async with Host(settings, broker="mqtt://127.0.0.1:1883") as host:
        await host.finished()
"""

from __future__ import annotations

import asyncio
import logging
import time
import weakref
from collections import deque
from pathlib import Path
from typing import Any, ClassVar, Self

from engine.games import AnyAction
from netplay.aio import cancel_and_wait
from netplay.host import BotTurn, HostSession, HostSettings
from netplay.identity import Identity
from netplay.journal import Entry, JournalError, JournalFenced, JournalStore
from netplay.listing import QUERY as LISTING_QUERY
from netplay.peer import Broker, Peer, make_transport
from netplay.probe import PROBE_KEEPALIVE, Probe, go_silent, probe_deadline
from netplay.record import write_new_record, write_record
from netplay.syncs import SYNCS
from netplay.transport import PRESENCE_KEEPALIVE, MqttTransport
from netplay.wire import Outgoing

log = logging.getLogger("netplay.peers")

INLINE_SYNC = 0.002
"""Seconds a journal's syncs take on average, at most, to be made on the loop's thread
(when the process hosts one table, see :meth:`Host._sync_inline`).

Handing a sync to a worker thread and back costs more than a fast disk's ``fdatasync``:
the thread waits for the GIL to start (the loop holds it while it seals and signs), again
to return, and the loop is woken through its self-pipe to publish. Traced on a 2-core
machine (bench net), from the start of a batch's sync to its frames going out: 0.82 ms in
the thread, 0.60 ms on the loop's thread. A slower disk (a spinning one, an SD card) is
synced in a thread, where it holds up only the frames that wait for it."""
SYNC_AVERAGING = 0.2
"""Weight of the newest sync in the running average of a journal's sync time."""


class Host(Peer):
    """The table's authority, with its own bots.

    With a ``journal`` it writes each journal entry as soon as the session makes it and
    publishes no frame made after an entry before that entry is durable (see
    ``netplay.journal``), so the table can be brought back with :meth:`resume` after a
    crash. A fast disk is synced on the loop's thread just before the frames go out, when
    this is the process's only table (see :data:`INLINE_SYNC`); otherwise in the
    process's syncing threads (``netplay.syncs``), started as soon as the entry is
    written, while the session seals and signs the frames and the loop goes on. Entries
    written while a sync runs go to disk together in the next one.
    """

    _live: ClassVar[weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, int]] = (
        weakref.WeakKeyDictionary())
    """Hosts running now (entered and not closed), per event loop."""

    @classmethod
    def live(cls) -> int:
        """Hosts running now on this thread's event loop."""
        return cls._live.get(asyncio.get_running_loop(), 0)

    def __init__(
        self,
        settings: HostSettings,
        *,
        broker: Broker,
        identity: Identity | None = None,
        record_path: Path | None = None,
        secret: bytes | None = None,
        journal: JournalStore | None = None,
        session: HostSession | None = None,
        probe: bool = True,
    ) -> None:
        super().__init__()
        self.host = session or HostSession(
            identity or Identity.generate(), settings, 0.0, secret=secret
        )
        self.identity = self.host.identity
        self.record_path = record_path
        self.journal = journal
        self.session = self.host
        topics = self.host.topics
        self.transport = transport = make_transport(
            broker, [topics.all_outboxes, topics.all_presence, topics.announce, LISTING_QUERY],
            name=f"host-{self.settings.table}", will=self.host.last_will,
            username=self.identity.peer_id, password=self.settings.password,
            keepalive=PRESENCE_KEEPALIVE,
        )
        transport.on_connect = self._connected
        self.probe = probe and isinstance(transport, MqttTransport)
        """Whether the host finds out if its broker fires a silent client's will
        (``netplay.probe``); not on a broker known not to (the embedded one)."""
        self._probing: asyncio.Task[None] | None = None
        self.host.offload = True
        self._thinking: asyncio.Task[None] | None = None
        self._held: deque[tuple[int, Outgoing]] = deque()
        """Frames waiting for the journal: (bytes of it that must be durable, frame)."""
        self._syncing = False
        """The journal's sync is in a syncing thread (``netplay.syncs``)."""
        self._sync_idle: asyncio.Future[None] | None = None
        """Set when the sync in a thread is done (a closing host waits for it)."""
        self._close_after_sync: JournalStore | None = None
        """A journal given up while the thread synced it: closed once it is done."""
        self.sync_average = 0.0
        """Seconds a journal sync took, a running average (inline or in the thread)."""
        self._counted: asyncio.AbstractEventLoop | None = None
        """The loop this host counts as running on (see :meth:`live`)."""
        self._all_out = asyncio.Event()
        self._all_out.set()
        self.host.on_journal = self._write_journal
        self._over = asyncio.Event()
        self._recorded = False
        self._ended_at: float | None = None
        """When this host first saw its game over (wall clock): the record's ``ended_at``,
        by which the ratings order a history."""
        self._finished = False
        """The journal says the table finished (its game over and out to spectators)."""
        self.record_note: str | None = None
        """Said once when the record had to take another name than the one asked for."""
        self.fenced: str | None = None
        """Why this host stopped publishing for good (its table is no longer its own to
        hold: a shared journal's lease lost, :meth:`fence`), or ``None``."""

    @property
    def settings(self) -> HostSettings:
        """The table's settings, as its session has them now (the Block window may be
        lengthened before the deal: :meth:`set_block_window`)."""
        return self.host.settings

    @property
    def epoch(self) -> int:
        """The host's epoch (0: a table no server took over), in every frame it sends."""
        return self.host.sender.epoch

    @epoch.setter
    def epoch(self, value: int) -> None:
        self.host.sender.epoch = value

    def fence(self, why: str) -> None:
        """Stop publishing for good: nothing held back for the journal goes out, nor
        anything the session makes from now on, not even a goodbye (the table goes on
        under another server, which announces it). Its driver closes the host soon."""
        if self.fenced is not None:
            return
        self.fenced = why
        log.warning("table %s: stopped publishing (%s)", self.settings.table, why)
        self._held.clear()
        self._all_out.set()
        self._over.set()  # whoever waits for the game's end: it won't come here

    @classmethod
    def resume(
        cls, journal: JournalStore, entries: list[Entry], *, broker: Broker,
    ) -> Host:
        """The table of ``journal`` (opened with ``JournalFile.reopen``), replayed and
        checked; ``JournalError`` if it can't be."""
        session = HostSession.resume(entries, 0.0)
        record: Path | None = None
        claimed = False
        for entry in entries:
            if entry["t"] == "journal" and entry.get("record"):
                record = Path(entry["record"])
            elif entry["t"] == "record":
                record, claimed = Path(entry["path"]), True
        host = cls(session.settings, broker=broker, record_path=record, journal=journal,
                   session=session)
        host._recorded = claimed  # the record file there is this table's own
        return host

    async def __aenter__(self) -> Self:
        self.host.now = self.loop_time
        self.host.wall_offset = time.time() - self.host.now
        if self.host.resumed:
            self.host.hold_back(time.time())
            # The journal was replayed on another clock (0.0): count every seat as seen
            # now, so that a player gets the whole grace period to come back before a
            # stand-in plays their turn, as after any other drop.
            for info in self.host.seats:
                if info is not None:
                    info.last_seen = self.host.now
        entered = await super().__aenter__()
        loop = asyncio.get_running_loop()
        Host._live[loop] = Host._live.get(loop, 0) + 1
        self._counted = loop
        if self.probe:
            self._probing = asyncio.create_task(self._probe_broker(), name="broker-probe")
        return entered

    async def _probe_broker(self) -> None:
        """Find out, once and in the background, whether the broker fires the will of a
        client that went silent (``netplay.probe``); the session is told when the probe
        went silent, and trusts the broker if the will comes in time."""
        transport = self.transport
        assert isinstance(transport, MqttTransport)
        await transport.connected.wait()
        sender = self.host.sender
        probe = Probe.new(self.host.topics.outbox(self.identity.peer_id), PROBE_KEEPALIVE,
                          wrap=lambda nonce: sender.frame("probe", {"nonce": nonce}))
        loop = asyncio.get_running_loop()
        silent: asyncio.Future[float] = loop.create_future()
        address = transport.address
        holding = asyncio.create_task(go_silent(
            probe, address.host, address.port, tls=address.tls, username=transport.username,
            password=transport.password, connected=silent))
        either: list[asyncio.Future[Any]] = [holding, silent]
        try:
            await asyncio.wait(either, return_when=asyncio.FIRST_COMPLETED)
            if silent.done():
                self.host.probe_started(probe, silent.result() + probe_deadline(probe.keepalive))
                self._wake()
            await holding
        finally:
            holding.cancel()

    async def close(self) -> None:
        probing, self._probing = self._probing, None
        if probing is not None:
            await cancel_and_wait(probing)
        thinking, self._thinking = self._thinking, None
        if thinking is not None:
            thinking.cancel()
        loop, self._counted = self._counted, None
        if loop is not None:
            Host._live[loop] -= 1
        await super().close()
        while self._syncing:  # a syncing thread still has the file: let it finish
            idle = self._sync_idle = asyncio.get_running_loop().create_future()
            await idle
        if self.journal is not None:
            self.journal.close()

    def _flush(self) -> None:
        if self.fenced is not None:
            self.session.data_to_send()  # made, never sent
            self.host.journal_to_write()
            return
        self._write_journal()
        journal = self.journal
        publish = self.transport.publish
        if journal is None or not (journal.unsynced or self._held):
            for out in self.host.frames_to_send():  # each out before the next is made
                publish(out)
            return
        if not self._syncing and not self._held and self._sync_inline():
            # The frames that go first (the acting player's batch) are made already; the
            # disk is synced, they go out, and only then are the others made.
            first = self.host.urgent_to_send()
            self._sync_here()  # durable now, or the journal given up (the game goes on)
            for out in first:
                publish(out)
            for out in self.host.frames_to_send():
                publish(out)
            return
        self._hold(self.session.data_to_send())
        if not self._syncing and self._sync_inline():
            self._sync_here()
        else:
            self._start_sync()

    def _hold(self, frames: list[Outgoing]) -> None:
        """Keep ``frames`` until what the journal holds now is durable."""
        journal = self.journal
        need = journal.written if journal is not None else 0
        self._held.extend((need, out) for out in frames)
        if self._held:
            self._all_out.clear()

    async def _published(self) -> None:
        if self._held:
            await self._all_out.wait()

    def _turn_here(self) -> bool:
        return not self._held

    def _write_journal(self) -> None:
        """Write the session's new entries now; a slow journal starts syncing them at
        once, in a syncing thread (no waiting), a fast one at :meth:`_flush`."""
        journal = self.journal
        entries = self.host.journal_to_write()
        if not entries or journal is None:
            return
        try:
            journal.write(entries)
        except OSError as exc:
            self._journal_failed(exc)
            return
        if not self._sync_inline():
            self._start_sync()

    def _sync_inline(self) -> bool:
        """Whether to sync the journal on the loop's thread: when it is fast, and this is
        the process's only table (with several, a sync there would hold up all of them;
        measured with 100 tables a process, bench load's p99 was no better inline); never
        a journal that says it must not be (a database's round trip)."""
        if self.sync_average > INLINE_SYNC or not getattr(self.journal, "inline", True):
            return False
        try:
            return Host.live() <= 1
        except RuntimeError:  # driven from outside a loop
            return True

    def _timed_sync(self) -> int:
        """The journal's sync (on either thread), timed into :attr:`sync_average`."""
        journal = self.journal
        if journal is None:
            raise JournalError("the journal was closed")
        started = time.perf_counter()
        try:
            return journal.sync_written()
        finally:
            took = time.perf_counter() - started
            self.sync_average += (took - self.sync_average) * SYNC_AVERAGING

    def _sync_here(self) -> None:
        """Sync the journal now, on this thread, and publish what waited for it."""
        journal = self.journal
        if journal is None:
            return
        try:
            journal.mark_synced(self._timed_sync())
        except (OSError, JournalError) as exc:
            self._journal_failed(exc)
        self._release()

    def _start_sync(self) -> None:
        journal = self.journal
        if journal is None or self._syncing or not journal.unsynced:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # driven from outside a loop: sync here and now
            self._sync_here()
            return
        self._syncing = True
        SYNCS.submit(loop, self._timed_sync, self._synced)

    def _synced(self, outcome: int | Exception) -> None:
        """A syncing thread is done with the journal: what it covered is durable, and
        the frames that waited for it go out."""
        self._syncing = False
        closing, self._close_after_sync = self._close_after_sync, None
        if closing is not None:
            closing.close()
        idle, self._sync_idle = self._sync_idle, None
        if idle is not None and not idle.done():
            idle.set_result(None)
        if isinstance(outcome, Exception):
            self._journal_failed(outcome)
        elif self.journal is not None:
            self.journal.mark_synced(outcome)
        self._release()
        self._start_sync()  # what was written meanwhile: one sync for all of it

    def _release(self) -> None:
        """Publish, in order, the held frames whose journal entries are durable."""
        journal = self.journal
        held = self._held
        if self.fenced is not None:
            held.clear()
        durable = journal.synced if journal is not None else None
        while held and (durable is None or held[0][0] <= durable):
            self.transport.publish(held.popleft()[1])
        if not held:
            self._all_out.set()

    def _journal_failed(self, exc: BaseException) -> None:
        if isinstance(exc, JournalFenced):
            # The table may be another server's now: not one more frame from here.
            self.fence(str(exc))
            journal, self.journal = self.journal, None
            if journal is not None and not self._syncing:
                journal.close()
            elif journal is not None:
                self._close_after_sync = journal
            return
        # Stopping the game would lose it for everyone; going on only loses resume.
        journal, self.journal = self.journal, None
        if journal is None:
            return
        log.error("can't write the table's journal %s (%s): the game goes on, but it can no "
                  "longer be resumed after a crash", journal.path, exc)
        if self._syncing:  # a syncing thread still has it: close it after
            self._close_after_sync = journal
        else:
            journal.close()
        self._release()

    def _after_input(self) -> None:
        if self.host.over:
            self._over.set()
        turn = self.host.take_bot_turn()
        if turn is not None:
            self._thinking = asyncio.create_task(self._think(turn), name="host-bot")

    async def _think(self, turn: BotTurn) -> None:
        """One of the host's bots decides in a worker thread, so the loop keeps answering
        every peer meanwhile (a search bot thinks for up to its budget; the interpreter
        hands the thread's lock back to the loop every few milliseconds)."""
        action: AnyAction | None
        try:
            action = await asyncio.to_thread(turn.bot.choose, turn.view, turn.seat, turn.legal)
        except Exception:  # a bug in a bot must not stop the table
            log.exception("the bot of seat %d failed: it plays its first legal action",
                          turn.seat)
            action = None
        self.host.bot_decided(turn, action, self.loop_time)
        self._after_input()
        self._flush()
        self._wake()

    def _before_close(self) -> None:
        if self.fenced is not None:
            return  # no last words: the table is another server's
        if self.host.over:
            # The game is over: what the spectator delay still holds goes out now, before
            # the close, so that spectators see the end even of a table closed early.
            self.host.release_all()
            self._mark_finished()
        # Take the table off the list with a signed "closed" (an empty payload is unsigned:
        # peers take it for nothing).
        self.host.close_table()

    async def finished(self, *, verify_wait: float = 5.0) -> None:
        """Wait for the game's end and every human's verification, for spectators still
        catching up on the history or (without a spectator delay) still to verify, and
        for the last Block race to be told (it settles ``race_settle`` after its window
        closed, when that window ended the game: after the end) -- at most
        ``verify_wait`` seconds (``HostSession.end_settled``)."""
        await self._over.wait()
        deadline = self.loop_time + verify_wait
        while self.loop_time < deadline and not self.host.end_settled(self.loop_time):
            await asyncio.sleep(0.05)
        self._flush()  # the verdicts that came in
        self.write_record()

    def tail_left(self) -> float:
        """Seconds the spectators are still behind the end of the game (0: they have had
        it all, or the game is not over)."""
        return self.host.tail_left(self.loop_time) if self.host.catching_up else 0.0

    def set_block_window(self, seconds: float) -> None:
        """Lengthen (or shorten) the table's Block window before the deal
        (``HostSession.set_block_window``: ``ValueError`` in words when it can't)."""
        self.host.now = self.loop_time
        self.host.set_block_window(seconds)
        self._flush()
        self._wake()

    def release_now(self) -> None:
        """Give spectators what the delay still holds back, at once (closing now)."""
        self.host.now = self.loop_time
        self.host.release_all()
        self._flush()
        self._wake()

    async def caught_up(self, *, verify_wait: float = 5.0) -> None:
        """After :meth:`finished`: wait until the spectator delay has released the whole
        game and its outcome to spectators, then (at most ``verify_wait`` seconds) for the
        verdicts of the spectators watching, and write the record again with them. Only
        then is the journal marked finished: a host killed before resumes the tail."""
        await self._over.wait()
        while self.host.catching_up:
            if self._task is None or self._task.done():
                return  # the loop stopped (closed, or on a bug): nothing is released now
            await asyncio.sleep(min(0.05, max(0.01, self.tail_left())))
        deadline = self.loop_time + verify_wait
        while self.loop_time < deadline and self.host.spectators_unverified(self.loop_time):
            await asyncio.sleep(0.05)
        self._flush()
        self.write_record()

    def write_record(self) -> None:
        """Write the game record; the first time under a name no file has (never over
        another game's record), then over its own. A finished game's journal is marked
        so once spectators have had its end too: it is no longer offered for resume."""
        path = self.record_path
        if self.host.over and self._ended_at is None:
            self._ended_at = time.time()
        if path is not None:
            record = self.host.record()
            if self._ended_at is not None:
                record["ended_at"] = self._ended_at
            if self._recorded:
                write_record(path, record)
            else:
                written = write_new_record(path, record)
                if written != path:
                    self.record_note = f"{path} exists: the record is {written} instead"
                    log.warning("%s", self.record_note)
                    self.record_path = path = written
                self._recorded = True
                self._journal_entry({"t": "record", "path": str(path)})
        if self.host.over and not self.host.catching_up:
            self._mark_finished()

    def _mark_finished(self) -> None:
        if not self._finished:
            self._finished = True
            self._journal_entry({"t": "finished", "at": time.time()})

    def _journal_entry(self, entry: Entry) -> None:
        if self.journal is not None:
            try:
                self.journal.append([entry])
            except JournalFenced as exc:
                self._journal_failed(exc)
            except OSError as exc:
                log.error("can't write the table's journal %s: %s", self.journal.path, exc)
            self._release()  # the sync covered whatever was held too
