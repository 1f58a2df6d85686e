"""Catch-up in bulk: ``history`` frames, each carrying many batches of the public stream.

A late spectator fetches the game it missed as ``history`` frames: each a signed frame
of the host whose body is ``{"batches": [bytes, ...]}``, every entry the msgpack of one
batch's public body (exactly what an ``events`` frame on ``events`` carries as its body).
One signature and one publish carry up to :data:`FRAME_BYTES` of batches, where the
live stream spends one of each per batch; the spectator still checks every batch
against its hash chain (it applies each in order and compares ``public_hash``) and,
at the end, replays the whole game. The host keeps each batch's packed public body
once (:class:`PublicCopies`): answering a spectator costs it a lookup per batch, one
signature per frame, and bytes out, which its per-peer byte budget bounds
(``netplay.budget``). See docs/protocol.md, "Order and repair".
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engine.games import GameDef
from engine.state import SPECTATOR
from netplay.batch import Batch
from netplay.codec import pack, unpack
from netplay.errors import FrameError

FRAME_BYTES = 48 * 1024
"""Packed batches per ``history`` frame at most (the codec refuses frames over 64 KiB; a
single batch, which fits an ``events`` frame, always gets a frame of its own)."""
FRAME_BATCHES = 256
"""Batches per ``history`` frame at most (under the codec's array limit of 512)."""
CHUNK = 512
"""Batches the host sends for one catch-up request at most (a few frames): the peer asks
for the next chunk once this one is in. Small enough that answering one costs the host's
loop a few milliseconds, not a stall of the live table."""


class PublicCopies:
    """Each batch's public body, packed once (the same bytes for every spectator)."""

    __slots__ = ("_copies",)

    def __init__(self) -> None:
        self._copies: list[tuple[Batch, bytes]] = []

    def packed(self, batches: Sequence[Batch], start: int, end: int) -> list[bytes]:
        """The packed public bodies of batches ``start``..``end`` (numbered from 1) of
        ``batches``. A list that is not the one cached (a new game) starts the cache
        again."""
        copies = self._copies
        if copies and (len(copies) > len(batches) or copies[-1][0] is not batches[len(copies) - 1]):
            copies.clear()
        for batch in batches[len(copies) : end]:
            copies.append((batch, pack(batch.redacted_for(SPECTATOR).to_body())))
        return [data for _, data in copies[start - 1 : end]]

    def size(self, batches: Sequence[Batch]) -> int:
        """Bytes of every batch of ``batches`` packed (the whole public history)."""
        return sum(len(data) for data in self.packed(batches, 1, len(batches)))


def frames(packed: Sequence[bytes]) -> list[list[bytes]]:
    """``packed`` batches, in order, split into the bodies' lists of ``history`` frames:
    each at most :data:`FRAME_BYTES` and :data:`FRAME_BATCHES` (one batch at least)."""
    out: list[list[bytes]] = []
    group: list[bytes] = []
    size = 0
    for data in packed:
        if group and (size + len(data) > FRAME_BYTES or len(group) >= FRAME_BATCHES):
            out.append(group)
            group, size = [], 0
        group.append(data)
        size += len(data)
    if group:
        out.append(group)
    return out


def batches(body: dict[str, Any], game: GameDef[Any, Any, Any, Any]) -> list[Batch]:
    """The batches of a ``history`` frame's body (untrusted: ``FrameError`` on any
    problem, before any batch is taken)."""
    entries = body.get("batches")
    if not isinstance(entries, list) or not entries:
        raise FrameError("a history frame carries a non-empty list of batches")
    out: list[Batch] = []
    for entry in entries:
        if not isinstance(entry, bytes):
            raise FrameError("a history frame's batches are packed bodies (bytes)")
        decoded = unpack(entry)
        if not isinstance(decoded, dict):
            raise FrameError("a history frame's batch is not a map")
        out.append(Batch.from_body(decoded, game))
    numbers = [batch.n for batch in out]
    if numbers != list(range(numbers[0], numbers[0] + len(numbers))):
        raise FrameError("a history frame's batches are not consecutive")
    return out
