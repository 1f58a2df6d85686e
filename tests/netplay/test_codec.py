"""Frames: encoding, strict decoding, signatures over exact bytes, replay guard."""

from __future__ import annotations

import contextlib
from typing import Any

import msgpack
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from netplay.codec import MAX_FRAME, Frame, ReplayGuard, Sequencer, decode, encode, pack, unpack
from netplay.errors import FrameError
from netplay.identity import Identity, peer_id

from .harness import TABLE, forge, identity_for

ALICE = identity_for(7, "alice")
BOB = identity_for(7, "bob")
BODY: dict[str, Any] = {"action": {"type": "end_turn", "seat": 0}, "at": 3}


def signed(inner: bytes, identity: Identity = ALICE) -> bytes:
    return pack([inner, identity.sign(inner)])


def test_round_trip() -> None:
    sequencer = Sequencer()
    data = encode(ALICE, sequencer, "action", TABLE, BODY)
    frame = decode(data)
    assert frame == Frame("action", TABLE, ALICE.key, frame.seq, BODY, data)
    assert frame.raw == data
    assert frame.sender_id == ALICE.peer_id == peer_id(ALICE.key)
    assert len(frame.sender_id) == 32
    second = decode(encode(ALICE, sequencer, "action", TABLE, BODY))
    assert second.seq > frame.seq


def test_sequencer_is_strictly_increasing_even_within_one_microsecond() -> None:
    sequencer = Sequencer()
    numbers = [sequencer.next() for _ in range(1000)]
    assert numbers == sorted(set(numbers))


def test_every_flipped_byte_is_rejected() -> None:
    data = encode(ALICE, Sequencer(), "action", TABLE, BODY)
    for index in range(len(data)):
        for mask in (0x01, 0x80):
            mutated = bytearray(data)
            mutated[index] ^= mask
            with pytest.raises(FrameError):
                decode(bytes(mutated))


def test_signature_covers_the_exact_inner_bytes_not_a_re_encoding() -> None:
    fields = [1, "action", TABLE, ALICE.key, 5, BODY]
    canonical = pack(fields)
    # The same values with the seq as a uint64 instead of a fixint: same meaning, other bytes.
    packer = msgpack.Packer(use_bin_type=True)
    loose = b"\x96" + b"".join(
        packer.pack(v) if i != 4 else b"\xcf" + (5).to_bytes(8, "big")
        for i, v in enumerate(fields)
    )
    assert loose != canonical and unpack(loose) == unpack(canonical)
    # Signed as sent: accepted, and the raw bytes are kept as they came.
    frame = decode(signed(loose))
    assert frame.seq == 5 and frame.body == BODY
    # Signed over the canonical re-encoding but sent loose: rejected.
    with pytest.raises(FrameError, match="bad signature"):
        decode(pack([loose, ALICE.sign(canonical)]))


def test_a_signature_by_another_key_is_rejected() -> None:
    inner = pack([1, "action", TABLE, ALICE.key, 5, BODY])
    with pytest.raises(FrameError, match="bad signature"):
        decode(pack([inner, BOB.sign(inner)]))


def test_oversized_frames_are_dropped_before_decoding(monkeypatch: pytest.MonkeyPatch) -> None:
    big = encode(ALICE, Sequencer(), "chat", TABLE, {"text": "x" * 100, "pad": b"\0" * MAX_FRAME})
    assert len(big) > MAX_FRAME

    def boom(*args: object, **kwargs: object) -> object:
        raise AssertionError("msgpack was asked to decode an oversized frame")

    monkeypatch.setattr(msgpack, "unpackb", boom)
    with pytest.raises(FrameError, match="over the 65536-byte limit"):
        decode(big)
    with pytest.raises(FrameError, match="limit"):
        decode(b"\x00" * (MAX_FRAME + 1))


def test_a_frame_at_the_limit_is_not_rejected_for_its_size() -> None:
    data = b"\x00" * MAX_FRAME
    with pytest.raises(FrameError) as caught:
        decode(data)
    assert "limit" not in caught.value.reason


@pytest.mark.parametrize("version", [0, 2, True, 1.0, "1", None])
def test_wrong_version(version: object) -> None:
    inner = pack([version, "action", TABLE, ALICE.key, 5, BODY])
    with pytest.raises(FrameError, match="version"):
        decode(signed(inner))


@pytest.mark.parametrize(
    "outer",
    [
        None,
        1,
        b"bytes",
        {"inner": b"x"},
        [],
        [b"x"],
        [b"x", b"y" * 64, b"z"],
        ["not bytes", b"s" * 64],
        [b"x", b"short signature"],
        [b"x", "s" * 64],
        [b"x", b"s" * 65],
    ],
)
def test_wrong_outer_shapes(outer: object) -> None:
    with pytest.raises(FrameError):
        decode(pack(outer))


@pytest.mark.parametrize(
    "fields",
    [
        None,
        {"version": 1},
        [1, "action", TABLE, ALICE.key, 5],
        [1, "action", TABLE, ALICE.key, 5, BODY, "extra"],
        [1, 7, TABLE, ALICE.key, 5, BODY],
        [1, "action", None, ALICE.key, 5, BODY],
        [1, "action", b"t1", ALICE.key, 5, BODY],
        [1, "action", TABLE, ALICE.key, 5, [BODY]],
        [1, "action", TABLE, ALICE.key, 5, None],
        [1, "action", TABLE, ALICE.key, 5, "body"],
    ],
)
def test_wrong_inner_shapes(fields: object) -> None:
    with pytest.raises(FrameError):
        decode(signed(pack(fields)))


@pytest.mark.parametrize(
    "sender",
    [ALICE.key.hex(), ALICE.key.hex()[:32], ALICE.key[:31], ALICE.key + b"\0", None, 1, [1, 2]],
)
def test_non_key_senders(sender: object) -> None:
    inner = pack([1, "action", TABLE, sender, 5, BODY])
    with pytest.raises(FrameError, match="sender"):
        decode(signed(inner))


@pytest.mark.parametrize("seq", [0, -1, 1 << 63, (1 << 64) - 1, "5", True, 5.0, None, b"5"])
def test_bad_seq(seq: object) -> None:
    inner = pack([1, "action", TABLE, ALICE.key, seq, BODY])
    with pytest.raises(FrameError, match="seq"):
        decode(signed(inner))


def test_largest_seq_is_accepted() -> None:
    assert decode(forge(ALICE, "action", BODY, seq=(1 << 63) - 1)).seq == (1 << 63) - 1


@pytest.mark.parametrize(
    "body",
    [
        {"text": "x" * 4097},
        {"blob": b"x" * (64 * 1024 + 1)},
        {"list": list(range(513))},
        {f"k{i}": i for i in range(65)},
        {1: "integer keys"},
        {"ext": msgpack.ExtType(5, b"data")},
    ],
    ids=["long-str", "long-bin", "long-array", "big-map", "int-key", "ext"],
)
def test_msgpack_limits(body: dict[Any, Any]) -> None:
    with pytest.raises(FrameError):
        decode(forge(ALICE, "chat", body))


def test_limits_apply_to_the_outer_layer_too() -> None:
    with pytest.raises(FrameError):
        decode(pack([b"x", b"s" * 64, *range(600)]))
    with pytest.raises(FrameError):
        decode(pack(msgpack.ExtType(1, b"x")))
    with pytest.raises(FrameError):
        decode(pack([b"x", b"s" * 64]) + b"trailing")


def test_deep_nesting_is_a_frame_error() -> None:
    nested = b"\x91" * 5000 + b"\xc0"  # [[[[...[nil]...]]]], deeper than any stack
    with pytest.raises(FrameError):
        decode(nested)
    deep_inner = pack([1, "chat", TABLE, ALICE.key, 5, {}])[:-1] + b"\x81\xa1x" + nested
    with pytest.raises(FrameError):
        decode(signed(deep_inner))


# -- fuzzing: nothing but FrameError comes out of decode -------------------------------------

_leaves = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(1 << 63), max_value=(1 << 64) - 1)
    | st.floats(allow_nan=True)
    | st.text(max_size=20)
    | st.binary(max_size=80)
)
_values = st.recursive(
    _leaves,
    lambda inner: st.lists(inner, max_size=8)
    | st.dictionaries(st.text(max_size=8) | st.binary(max_size=8), inner, max_size=6),
    max_leaves=12,
)


def _decode_or_frame_error(data: bytes) -> None:
    with contextlib.suppress(FrameError):
        decode(data)


@settings(max_examples=400, deadline=None)
@given(st.binary(max_size=300))
def test_fuzz_random_bytes(data: bytes) -> None:
    _decode_or_frame_error(data)


@settings(max_examples=120, deadline=None)
@given(_values)
def test_fuzz_packed_structures(value: Any) -> None:
    _decode_or_frame_error(pack(value))


_small = _leaves | st.dictionaries(st.text(max_size=6), _leaves, max_size=4)
_nearly_valid = st.tuples(
    st.sampled_from([1, 1, 1, 0, 2, True, 1.0]),
    st.text(max_size=10) | _leaves,
    st.just(TABLE) | _leaves,
    st.just(ALICE.key) | st.binary(min_size=32, max_size=32) | _leaves,
    st.integers(min_value=-2, max_value=(1 << 64) - 1) | _leaves,
    st.dictionaries(st.text(max_size=6), _small, max_size=4) | _leaves,
).map(list)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(_small, max_size=7) | _nearly_valid,
    st.binary(min_size=64, max_size=64) | _values,
    st.booleans(),
)
def test_fuzz_structured_frames(fields: list[Any], signature: Any, sign: bool) -> None:
    """Random inner fields, signed or not: decode accepts only what is well formed."""
    inner = pack(fields)
    if sign:
        signature = ALICE.sign(inner)
    try:
        frame = decode(pack([inner, signature]))
    except FrameError:
        return
    assert sign and len(fields) == 6
    assert fields[0] == 1 and type(fields[0]) is int
    assert frame.sender == fields[3] == ALICE.key
    assert type(frame.seq) is int and 0 < frame.seq < 1 << 63
    assert isinstance(frame.type, str) and isinstance(frame.table, str)
    assert isinstance(frame.body, dict)


@settings(max_examples=200, deadline=None)
@given(st.binary(min_size=1, max_size=200), st.integers(min_value=0))
def test_fuzz_truncated_and_extended_frames(tail: bytes, cut: int) -> None:
    data = encode(ALICE, Sequencer(), "action", TABLE, BODY)
    cut %= len(data)
    for candidate in (data[:cut], data + tail, data[:cut] + tail):
        if candidate == data:
            continue
        with pytest.raises(FrameError):
            decode(candidate)


# -- the replay guard ------------------------------------------------------------------------


def _frame(identity: Identity, seq: int) -> Frame:
    return decode(forge(identity, "heartbeat", {"at": 0}, seq=seq))


def test_replay_guard_drops_equal_and_lower_seq() -> None:
    guard = ReplayGuard()
    guard.check(_frame(ALICE, 10), "a")
    with pytest.raises(FrameError, match="replayed"):
        guard.check(_frame(ALICE, 10), "a")
    with pytest.raises(FrameError, match="replayed"):
        guard.check(_frame(ALICE, 9), "a")
    guard.check(_frame(ALICE, 11), "a")
    with pytest.raises(FrameError):
        guard.check(_frame(ALICE, 10), "a")


def test_replay_guard_is_per_sender_and_per_topic() -> None:
    guard = ReplayGuard()
    guard.check(_frame(ALICE, 10), "a")
    guard.check(_frame(BOB, 3), "a")
    guard.check(_frame(ALICE, 4), "b")
    with pytest.raises(FrameError):
        guard.check(_frame(BOB, 3), "a")
    with pytest.raises(FrameError):
        guard.check(_frame(ALICE, 4), "b")


def test_a_rejected_frame_does_not_advance_the_guard() -> None:
    guard = ReplayGuard()
    guard.check(_frame(ALICE, 10), "a")
    with pytest.raises(FrameError):
        guard.check(_frame(ALICE, 5), "a")
    guard.check(_frame(ALICE, 6 + 5), "a")
