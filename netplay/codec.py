"""Frames: signed msgpack envelopes, decoded strictly from untrusted bytes.

A frame is ``msgpack([inner, signature])``; ``inner`` is
``msgpack([version, type, table, sender, seq, body])`` and the signature covers exactly
those bytes. See docs/protocol.md.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import msgpack

from netplay.errors import FrameError
from netplay.identity import Identity, peer_id, verify

PROTOCOL_VERSION = 1
"""The frame's own format (the signed envelope), which journals and records keep too."""
TABLE_PROTOCOL = 2
"""What a table's peers must agree on beyond the frame format, named in the host's
announcement (``protocol``): 2 since sealed boxes are ``crypto_box``es between two keys
(1: anonymous ``SealedBox``es to the recipient)."""
MAX_FRAME = 64 * 1024

_LIMITS: dict[str, Any] = {
    "max_str_len": 4096,
    "max_bin_len": MAX_FRAME,
    "max_array_len": 512,
    "max_map_len": 64,
    "max_ext_len": 0,
}


@dataclass(frozen=True, slots=True)
class Frame:
    """A decoded, signature-checked frame."""

    type: str
    table: str
    sender: bytes
    seq: int
    body: dict[str, Any]
    raw: bytes
    """The exact bytes received (kept as a proof, e.g. of a player's action)."""

    @property
    def sender_id(self) -> str:
        return peer_id(self.sender)


def unpack(data: bytes) -> Any:
    """msgpack-decode untrusted bytes with explicit limits; ``FrameError`` on any problem."""
    if len(data) > MAX_FRAME:
        raise FrameError(f"frame of {len(data)} bytes is over the {MAX_FRAME}-byte limit")
    try:
        return msgpack.unpackb(data, raw=False, strict_map_key=True, **_LIMITS)
    except (ValueError, msgpack.ExtraData, msgpack.FormatError, msgpack.StackError,
            UnicodeDecodeError, TypeError, RecursionError) as exc:
        raise FrameError(f"undecodable frame: {type(exc).__name__}") from None


def pack(value: Any) -> bytes:
    return msgpack.packb(value, use_bin_type=True)  # type: ignore[no-any-return]


class Sequencer:
    """Strictly increasing sequence numbers, starting from the clock (microseconds)."""

    def __init__(self) -> None:
        self._last = 0

    def next(self) -> int:
        self._last = max(self._last + 1, time.time_ns() // 1000)
        return self._last


def encode(
    identity: Identity, sequencer: Sequencer, type_: str, table: str, body: dict[str, Any]
) -> bytes:
    inner = pack([PROTOCOL_VERSION, type_, table, identity.key, sequencer.next(), body])
    return pack([inner, identity.sign(inner)])


def frame_type(data: bytes) -> str | None:
    """The type a frame claims, unverified (to skip what a peer would ignore anyway
    without paying for its signature); ``None`` if it is not shaped like a frame."""
    try:
        outer = unpack(data)
        if isinstance(outer, list) and len(outer) == 2 and isinstance(outer[0], bytes):
            fields = unpack(outer[0])
            if isinstance(fields, list) and len(fields) == 6 and isinstance(fields[1], str):
                return fields[1]
    except FrameError:
        pass
    return None


def decode(
    data: bytes, *, expected: bytes | None = None, sender_id: str | None = None
) -> Frame:
    """Decode and verify a frame. Checks shape and signature; not table, topic or seq.

    ``expected`` (a key) / ``sender_id`` (a peer id): who must have sent it, checked
    before the signature (the costly part), so a flood from anyone else costs little.
    """
    outer = unpack(data)
    if not isinstance(outer, list) or len(outer) != 2:
        raise FrameError("a frame is [inner, signature]")
    inner, signature = outer
    if not isinstance(inner, bytes) or not isinstance(signature, bytes) or len(signature) != 64:
        raise FrameError("a frame is [inner bytes, 64-byte signature]")
    fields = unpack(inner)
    if not isinstance(fields, list) or len(fields) != 6:
        raise FrameError("inner frame is [version, type, table, sender, seq, body]")
    version, type_, table, sender, seq, body = fields
    if version != PROTOCOL_VERSION or type(version) is not int:
        raise FrameError(f"protocol version {version!r} is not {PROTOCOL_VERSION}")
    if not isinstance(type_, str) or not isinstance(table, str):
        raise FrameError("type and table must be strings")
    if not isinstance(sender, bytes) or len(sender) != 32:
        raise FrameError("sender must be a 32-byte key")
    if type(seq) is not int or not 0 < seq < 1 << 63:
        raise FrameError("seq must be a positive integer")
    if not isinstance(body, dict):
        raise FrameError("body must be a map")
    if sender_id is not None and peer_id(sender) != sender_id:
        raise FrameError("the sender's key does not match its topic")
    if expected is not None and sender != expected:
        raise FrameError("a frame not signed by this table's host")
    verify(sender, inner, signature)
    return Frame(type_, table, sender, seq, body, data)


class ReplayGuard:
    """Drops frames whose seq is not above the last one accepted from the same sender on
    the same topic (a broker keeps order per topic, not necessarily across topics)."""

    def __init__(self) -> None:
        self._last: dict[tuple[bytes, str], int] = {}

    def check(self, frame: Frame, topic: str) -> None:
        key = (frame.sender, topic)
        last = self._last.get(key, 0)
        if frame.seq <= last:
            raise FrameError(f"replayed or duplicate frame (seq {frame.seq} <= {last})")
        self._last[key] = frame.seq
