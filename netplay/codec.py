"""Frames: msgpack envelopes, signed or sealed, decoded strictly from untrusted bytes.

A signed frame is ``msgpack([inner, signature])``; ``inner`` is
``msgpack([version, type, table, sender, seq, body])`` and the signature covers exactly
those bytes. A sealed frame, readable by one recipient only, is ``msgpack([inner])``
with ``type`` ``sealed`` and ``body`` ``{"box": box}``: the box (a ``crypto_box`` from
the sender to the recipient) holds ``msgpack([table, seq, type, body])``, and it is what
authenticates the frame, header included. See docs/protocol.md.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import msgpack

from netplay.errors import FrameError
from netplay.identity import Identity, peer_id, verify

PROTOCOL_VERSION = 1
"""The frame's own format (the signed envelope), which journals and records keep too."""
TABLE_PROTOCOL = 9
"""What a table's peers must agree on beyond the frame format, named in the host's
announcement (``protocol``): 9 since a table a server took over from another carries its
host's epoch in every frame (``epoch``) and peers refuse frames of an older one (a
program of 8 would take a fenced host's late frames); 8 since a seated player the table
does not wait for beats every 8 s instead of 4 and the host counts it away after 20 s (a
host of 7 would count such a seat away between its beats); 7 since the host's presence
may rest on the broker's last wills (a host that found its broker fires them says
``rest`` in its beats and beats after 10 s of silence; a seat of 6 would take it for
silent) and a will, ``online`` or announcement names its connection (``conn``: a peer of
6 would take a replayed will); 6 since the host's heartbeats reach the seats in a
``boxes`` frame (a box per seat) instead of signed (a program of 5 would drop them and
count its host silent, and a seat of 6 drops a host of 5's signed ones); 5 since a batch
reaches the seats in one ``boxes`` frame on ``table`` (a box per seat) and peers beat
every 4 s (a program of 4 would wait on its ``in`` for batches that never come there,
and be counted away between its beats); 4 since a spectator's catch-up comes in bulk
(``history`` frames, which a program of 3 would drop, waiting for its history for ever);
3 since a sealed frame is authenticated by its box alone (2: a ``crypto_box`` in a
signed frame; 1: anonymous ``SealedBox``es to the recipient)."""
SEALED = "sealed"
"""The type of a sealed frame's header (its own type is inside the box)."""
BOXES = "boxes"
"""The type of a frame for every seat at once: a box per seat, each sealed as a sealed
frame's is (its own type and body inside), in seat order."""
MAX_BOXES = 16
"""Seats a ``boxes`` frame may hold a box for."""
MAX_FRAME = 64 * 1024

MAX_STR = 4096
MAX_ARRAY = 512
MAX_MAP = 64


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
    sealed: bool = False
    """It came sealed to the receiver: its box, not a signature, vouches for it."""

    @property
    def sender_id(self) -> str:
        return peer_id(self.sender)


def unpack(data: bytes) -> Any:
    """msgpack-decode untrusted bytes with explicit limits; ``FrameError`` on any problem."""
    if len(data) > MAX_FRAME:
        raise FrameError(f"frame of {len(data)} bytes is over the {MAX_FRAME}-byte limit")
    try:
        # The limits as literal keywords: a ``**limits`` dict would cost more than
        # decoding a small frame (a peer unpacks some 25 per action).
        return msgpack.unpackb(
            data, raw=False, strict_map_key=True, max_str_len=MAX_STR,
            max_bin_len=MAX_FRAME, max_array_len=MAX_ARRAY, max_map_len=MAX_MAP,
            max_ext_len=0,
        )
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

    def after(self, seq: int) -> None:
        """Number every later frame above ``seq`` (a host taken over from another machine
        whose clock may be behind the old one's)."""
        self._last = max(self._last, seq)


def encode(
    identity: Identity, sequencer: Sequencer, type_: str, table: str, body: dict[str, Any],
    *, seq: int | None = None,
) -> bytes:
    """A signed frame; its ``seq`` the sequencer's next, or one taken from it earlier."""
    if seq is None:
        seq = sequencer.next()
    inner = pack([PROTOCOL_VERSION, type_, table, identity.key, seq, body])
    return pack([inner, identity.sign(inner)])


def encode_sealed(
    identity: Identity, sequencer: Sequencer, recipient: bytes, type_: str, table: str,
    body: dict[str, Any], *, seq: int | None = None,
) -> bytes:
    """A frame only ``recipient`` (a key) can read, authenticated by its box: only the
    sender and the recipient can make such a box, and the box names its sender (see
    ``Identity.seal_for``), so the recipient knows who sent it without a signature. The
    header's table and seq are repeated inside, where they can't be changed.
    ``ValueError`` if ``recipient`` is not a usable key."""
    if seq is None:
        seq = sequencer.next()
    box = identity.seal_for(recipient, pack([table, seq, type_, body]))
    return pack([pack([PROTOCOL_VERSION, SEALED, table, identity.key, seq, {"box": box}])])


def encode_boxes(
    identity: Identity, sequencer: Sequencer, recipients: Sequence[bytes | None], type_: str,
    table: str, bodies: Sequence[dict[str, Any] | None], *, seq: int | None = None,
) -> bytes:
    """One frame holding, for each seat in order, ``(type_, bodies[seat])`` sealed to
    ``recipients[seat]`` (``None`` for a seat that gets nothing: a host's bot). Each box
    is what a sealed frame's box would be, the header's table and seq inside, so each
    recipient opens its own exactly as it would open a sealed frame, and nobody else can.
    ``ValueError`` if a recipient is not a usable key."""
    if seq is None:
        seq = sequencer.next()
    boxes = [None if key is None or body is None
             else identity.seal_for(key, pack([table, seq, type_, body]))
             for key, body in zip(recipients, bodies, strict=True)]
    return pack([pack([PROTOCOL_VERSION, BOXES, table, identity.key, seq, {"boxes": boxes}])])


def frame_type(data: bytes) -> str | None:
    """The type a frame claims, unverified (to skip what a peer would ignore anyway
    without paying for its signature); ``None`` if it is not shaped like a frame.
    A sealed frame says ``sealed``: what it holds is for its recipient alone."""
    try:
        outer = unpack(data)
        if isinstance(outer, list) and len(outer) in (1, 2) and isinstance(outer[0], bytes):
            fields = unpack(outer[0])
            if isinstance(fields, list) and len(fields) == 6 and isinstance(fields[1], str):
                return fields[1]
    except FrameError:
        pass
    return None


def decode(
    data: bytes, *, expected: bytes | None = None, sender_id: str | None = None,
    opener: Identity | None = None, seat: int | None = None,
) -> Frame:
    """Decode and authenticate a frame. Checks shape and signature (or, for a sealed
    frame, its box); not table, topic or seq.

    ``expected`` (a key) / ``sender_id`` (a peer id): who must have sent it, checked
    before the signature or the box (the costly part), so a flood from anyone else costs
    little. ``opener``: the identity a sealed frame may be addressed to; without one a
    sealed frame is refused (it is someone else's). A sealed frame comes back opened,
    with the type and body from inside its box and ``sealed`` set. ``seat``: where a
    ``boxes`` frame may be addressed to ``opener`` (its box at that index is opened, and
    then no plain sealed frame is taken); without it a ``boxes`` frame is refused.
    """
    outer = unpack(data)
    if not isinstance(outer, list) or len(outer) not in (1, 2):
        raise FrameError("a frame is [inner, signature], or [inner] when sealed")
    inner = outer[0]
    sealed = len(outer) == 1
    if not isinstance(inner, bytes):
        raise FrameError("a frame's inner part must be bytes")
    if not sealed and (not isinstance(outer[1], bytes) or len(outer[1]) != 64):
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
        raise FrameError("a frame not from this table's host")
    if (type_ in (SEALED, BOXES)) != sealed:
        raise FrameError("a sealed frame is [inner] with type 'sealed' or 'boxes', and no "
                         "other is" if sealed else f"a signed {type_!r} frame (an older program's)")
    if not sealed:
        verify(sender, inner, outer[1])
        return Frame(type_, table, sender, seq, body, data)
    if opener is None:
        raise FrameError("a sealed frame for someone else")
    if (type_ == BOXES) != (seat is not None):
        raise FrameError("a 'boxes' frame off the seats' stream" if seat is None
                         else "a sealed frame on the seats' stream")
    if seat is None:
        box = body.get("box")
        if len(body) != 1 or not isinstance(box, bytes):
            raise FrameError("a sealed frame's body is {box}")
    else:
        boxes = body.get("boxes")
        if len(body) != 1 or not isinstance(boxes, list) or not 0 < len(boxes) <= MAX_BOXES:
            raise FrameError("a 'boxes' frame's body is {boxes: [box or nil per seat]}")
        if not 0 <= seat < len(boxes):
            raise FrameError(f"a 'boxes' frame without a place for seat {seat}")
        box = boxes[seat]
        if box is None:
            raise FrameError(f"a 'boxes' frame with nothing for seat {seat}")
        if not isinstance(box, bytes):
            raise FrameError("a box is bytes")
    contents = unpack(opener.open_from(sender, box))
    if not isinstance(contents, list) or len(contents) != 4:
        raise FrameError("a sealed box holds [table, seq, type, body]")
    box_table, box_seq, box_type, box_body = contents
    if box_table != table or box_seq != seq or type(box_seq) is not int:
        raise FrameError("a sealed frame whose header is not its box's")
    if not isinstance(box_type, str) or box_type == SEALED or not isinstance(box_body, dict):
        raise FrameError("a sealed box holds a type and a body map")
    return Frame(box_type, table, sender, seq, box_body, data, sealed=True)


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
