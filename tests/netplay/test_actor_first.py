"""A batch reaches every seat in one frame on ``table``, published as soon as the journal is
durable, before the public copy is made; frames sent for later keep their place."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

import netplay.host
from engine.state import SPECTATOR
from netplay.batch import Batch
from netplay.codec import BOXES, Sequencer, decode, encode, frame_type
from netplay.host import HostSettings
from netplay.host_peer import INLINE_SYNC, Host
from netplay.identity import Identity
from netplay.journal import JournalFile
from netplay.memory import AsyncMemoryBroker
from netplay.player_peer import BotPeer
from netplay.wire import Outgoing, Sender
from tests.netplay.harness import SHORT

Log = list[tuple[str, Any, Any]]


class SteadyDisk(JournalFile):
    """A disk that is never slow, however loaded the machine: the host keeps syncing it on
    its loop's thread (a slow one goes to a worker thread, where the frames are made while
    the disk works, all before the sync is done)."""

    def sync_written(self) -> int:
        return self.written


class LoggingBroker(AsyncMemoryBroker):
    def __init__(self, log: Log) -> None:
        super().__init__()
        self.log = log

    def publish(self, topic: str, payload: bytes, retain: bool = False) -> None:
        self.log.append(("publish", topic, frame_type(payload)))
        super().publish(topic, payload, retain)


@pytest.mark.asyncio
async def test_every_seats_copy_of_a_batch_goes_out_in_one_frame_on_table(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    log: Log = []
    made = netplay.host._batch_body

    def logged(batch: Batch, audience: int) -> dict[str, Any]:
        log.append(("made", batch.n, audience))
        return made(batch, audience)

    monkeypatch.setattr(netplay.host, "_batch_body", logged)
    table = "first"
    broker = LoggingBroker(log)
    journal = SteadyDisk.create(table, folder=tmp_path)
    settings = HostSettings(table, 3, bots=("greedy",), rules=SHORT, block_window=0.2)
    host = Host(settings, broker=broker, journal=journal)
    async with host:
        players = [BotPeer(Identity.generate(), table, broker=broker, name=f"p{i}")
                   for i in range(2)]
        async with players[0], players[1]:
            await asyncio.wait_for(asyncio.gather(*(p.ended.wait() for p in players)), 60)
            await asyncio.wait_for(host.finished(verify_wait=10), 30)
    assert host.sync_average <= INLINE_SYNC
    seats = sorted(p.seat for p in players if p.seat is not None)
    assert len(seats) == 2
    stream = host.host.topics.table_stream
    # One boxes frame a batch, in the batches' order: the k-th goes out after batch k's
    # copies are made (two batches made in one turn of the host's loop, as when its own
    # bot answers at once, go out one after the other when the loop drains).
    publishes = [i for i, entry in enumerate(log) if entry == ("publish", stream, BOXES)]
    assert len(publishes) == len(host.host.batches)
    checked = 0
    for batch, out in zip(host.host.batches, publishes, strict=True):
        made = [i for i, entry in enumerate(log) if entry[0] == "made" and entry[1] == batch.n]
        # Every seat's copy (the host's bot has none); nobody watches: no spectators' copy.
        assert sorted(log[i][2] for i in made) == seats, f"batch {batch.n}"
        assert ("made", batch.n, SPECTATOR) not in log
        assert max(made) < out, f"batch {batch.n}: out before it was made"
        checked += 1
    assert checked > 5


def test_frames_sent_for_later_keep_their_place_and_their_numbers() -> None:
    me, other = Identity.generate(), Identity.generate()
    sender = Sender(me, "t")
    bodies: list[str] = []

    def body(name: str) -> dict[str, Any]:
        bodies.append(name)
        return {"name": name}

    sender.send("a", "first", {"name": "first"})
    sender.send_later("a", "second", lambda: body("second"))
    sender.send_sealed_later("b", other.key, "third", lambda: body("third"))
    sender.send("a", "fourth", {"name": "fourth"})
    urgent = sender.urgent()
    assert [out.topic for out in urgent] == ["a"] and bodies == []  # nothing made yet
    rest = sender.drain()
    assert bodies == ["second", "third"]
    assert sender.drain() == [] and sender.urgent() == []
    frames = [decode(out.payload, opener=other) for out in urgent + rest]
    assert [(f.type, f.body["name"]) for f in frames] == [
        ("first", "first"), ("second", "second"), ("third", "third"), ("fourth", "fourth")]
    # Numbered in the order sent, made late or not: a receiver's replay guard sees them rise.
    seqs = [f.seq for f in frames]
    assert seqs == sorted(seqs) and len(set(seqs)) == 4
    assert [out.topic for out in rest] == ["a", "b", "a"]
    assert all(isinstance(out, Outgoing) for out in rest)


def test_a_later_frame_is_signed_with_the_number_it_was_given() -> None:
    me = Identity.generate()
    sequencer = Sequencer()
    early = sequencer.next()
    later = decode(encode(me, sequencer, "x", "t", {}))
    assert decode(encode(me, sequencer, "x", "t", {}, seq=early)).seq == early < later.seq
