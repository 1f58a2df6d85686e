"""The host syncs its journal beside the game, never ahead of it: no frame that depends on
a journal entry is published before that entry is on disk."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from netplay.host import HostSettings
from netplay.host_peer import INLINE_SYNC, Host
from netplay.identity import Identity
from netplay.journal import Entry, JournalFile
from netplay.memory import AsyncMemoryBroker
from netplay.player_peer import BotPeer, Spectator
from netplay.record import from_json
from tests.netplay.harness import SHORT, observe


class SlowDisk(JournalFile):
    """A journal whose syncs take ``delay`` seconds more than the disk's, and which knows
    how many of its bytes really are durable (set only once the real sync has returned)
    and on which threads it was synced, in order."""

    delay = 0.004  # a slow disk: frames pile up behind the sync

    def __init__(self, path: Path, fd: int) -> None:
        super().__init__(path, fd)
        self.durable = 0
        self.syncs = 0
        self.threads: list[str] = []
        self.lock = threading.Lock()

    def sync_written(self) -> int:
        if self.delay:
            time.sleep(self.delay)
        upto = super().sync_written()
        with self.lock:
            self.durable = max(self.durable, upto)
            self.syncs += 1
            self.threads.append(threading.current_thread().name)
        return upto

    def durable_entries(self) -> list[Entry]:
        """The entries in the part of the file known to be on disk (whole lines: each
        write is whole entries)."""
        with self.lock:
            durable = self.durable
        data = self.path.read_bytes()[:durable]
        return [from_json(json.loads(line)) for line in data.split(b"\n") if line]


class CheckingBroker(AsyncMemoryBroker):
    """Checks, at each publish of a batch or a welcome, that the journal entries it rests
    on are durable."""

    def __init__(self, host_key: bytes, journal: SlowDisk) -> None:
        super().__init__()
        self.host_key = host_key
        self.journal = journal
        self.checked: dict[str, int] = {"events": 0, "welcome": 0}
        self.failures: list[str] = []

    def publish(self, topic: str, payload: bytes, retain: bool = False) -> None:
        if payload:
            frame = observe(payload)
            if frame.sender == self.host_key and frame.type in ("events", "welcome"):
                self._check(self.journal, frame.type, frame.body, topic)
        super().publish(topic, payload, retain)

    def _check(self, journal: SlowDisk, kind: str, body: dict[str, Any], topic: str) -> None:
        entries = journal.durable_entries()
        if kind == "events":
            ok = any(e["t"] == "batch" and e["n"] == body["n"] for e in entries)
        else:
            seat = body["seat"]
            ok = seat is None or any(e["t"] == "seat" and e["seat"] == seat for e in entries)
        self.checked[kind] += 1
        if not ok:
            self.failures.append(f"{kind} on {topic} published before its journal entry "
                                 f"was durable ({body.get('n', body.get('seat'))})")


class FastDisk(SlowDisk):
    """A disk that is never slow, however loaded the machine (a real ``fdatasync`` can
    take milliseconds there): the sync only counts what was written as durable."""

    delay = 0.0

    def sync_written(self) -> int:
        upto = self.written
        with self.lock:
            self.durable = max(self.durable, upto)
            self.syncs += 1
            self.threads.append(threading.current_thread().name)
        return upto


async def _play_durably(tmp_path: Path, disk: type[SlowDisk]) -> tuple[Host, SlowDisk]:
    """A three-seat game on a journal of ``disk``; every batch and welcome checked at its
    publication for the durability of the journal entry it rests on."""
    table = "durable"
    journal = disk.create(table, folder=tmp_path)
    assert isinstance(journal, SlowDisk)
    identity = Identity.generate()
    broker = CheckingBroker(identity.key, journal)
    settings = HostSettings(table, 3, bots=("greedy",), rules=SHORT, block_window=0.2)
    host = Host(settings, broker=broker, identity=identity, journal=journal)
    async with host:
        players = [BotPeer(Identity.generate(), table, broker=broker, name=f"p{i}")
                   for i in range(2)]
        # A spectator, so that there is a public stream (signed, readable here) at all.
        fan = Spectator(Identity.generate(), table, "fan", broker=broker)
        async with fan, players[0], players[1]:
            await asyncio.wait_for(asyncio.gather(*(p.ended.wait() for p in players)), 60)
            await asyncio.wait_for(host.finished(verify_wait=10), 30)
    assert broker.failures == []
    # Every batch went out to the spectator (live, or in its catch-up) after its entry
    # was on disk, and each seat's welcome after its seat entry.
    assert broker.checked["events"] >= len(host.host.batches) > 5
    assert broker.checked["welcome"] >= 2
    return host, journal


@pytest.mark.asyncio
async def test_a_slow_disk_is_synced_in_a_worker_thread_and_no_frame_goes_out_before_it(
    tmp_path: Path,
) -> None:
    host, journal = await _play_durably(tmp_path, SlowDisk)
    # The first sync (after the journal's header) ran on the loop's thread, knowing
    # nothing of the disk yet; it, and maybe a few more, showed the disk slow, and the
    # rest ran beside the loop.
    main = threading.main_thread().name
    assert journal.threads[:2] == [main, main]
    assert host.sync_average > INLINE_SYNC
    workers = [name for name in journal.threads if name.startswith("journal-sync")]
    assert len(workers) > journal.syncs // 2


@pytest.mark.asyncio
async def test_a_fast_disk_is_synced_on_the_loops_thread_and_no_frame_goes_out_before_it(
    tmp_path: Path,
) -> None:
    host, journal = await _play_durably(tmp_path, FastDisk)
    # Handing a fast sync to a thread and back costs more than the sync: none went there.
    assert journal.syncs > 5
    assert set(journal.threads) == {threading.main_thread().name}
    assert host.sync_average <= INLINE_SYNC


@pytest.mark.asyncio
async def test_a_process_of_several_tables_syncs_their_journals_in_worker_threads(
    tmp_path: Path,
) -> None:
    # A sync on the loop's thread would hold up every table of the process: with two,
    # even a fast disk is synced beside the loop.
    broker = AsyncMemoryBroker()
    hosts, journals, players = [], [], []
    for name in ("left", "right"):
        journal = FastDisk.create(name, folder=tmp_path)
        assert isinstance(journal, FastDisk)
        settings = HostSettings(name, 2, bots=("greedy",), rules=SHORT, block_window=0.2)
        hosts.append(Host(settings, broker=broker, journal=journal))
        journals.append(journal)
        players.append(BotPeer(Identity.generate(), name, broker=broker, name=f"p-{name}"))
    async with hosts[0], hosts[1], players[0], players[1]:
        assert Host.live() == 2
        await asyncio.wait_for(asyncio.gather(*(p.ended.wait() for p in players)), 60)
        await asyncio.wait_for(asyncio.gather(*(h.finished(verify_wait=10) for h in hosts)), 30)
    assert Host.live() == 0
    for journal in journals:
        workers = [name for name in journal.threads if name.startswith("journal-sync")]
        assert len(workers) > journal.syncs // 2, journal.threads


@pytest.mark.asyncio
async def test_a_journal_that_fails_to_sync_lets_the_game_go_on_without_resume(
    tmp_path: Path, caplog: pytest.LogCaptureFixture,
) -> None:
    class BrokenDisk(JournalFile):
        broken = False

        def sync_written(self) -> int:
            if self.broken:
                raise OSError(5, "Input/output error")
            return super().sync_written()

    table = "broken"
    broker = AsyncMemoryBroker()
    journal = BrokenDisk.create(table, folder=tmp_path)
    assert isinstance(journal, BrokenDisk)
    journal.broken = True
    settings = HostSettings(table, 2, bots=("greedy",), rules=SHORT, block_window=0.2)
    host = Host(settings, broker=broker, journal=journal)
    async with host, BotPeer(Identity.generate(), table, broker=broker, name="ana") as ana:
        await asyncio.wait_for(ana.ended.wait(), 60)
        await asyncio.wait_for(host.finished(verify_wait=10), 30)
    assert host.journal is None
    assert "can no longer be resumed after a crash" in caplog.text
    assert host.host.over
