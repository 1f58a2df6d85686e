"""Identities: Ed25519 keys, sealed boxes, profiles on disk."""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from netplay.codec import decode, pack
from netplay.errors import FrameError, ProfileError
from netplay.identity import KEY_FILE, Identity, load_profile, peer_id, profiles_dir
from netplay.wire import Sender

from .harness import TABLE, identity_for

ALICE = identity_for(8, "alice")
BOB = identity_for(8, "bob")


def test_peer_id_is_the_first_16_bytes_of_sha256_in_hex() -> None:
    assert peer_id(ALICE.key) == hashlib.sha256(ALICE.key).digest()[:16].hex()
    assert ALICE.peer_id == peer_id(ALICE.key)
    assert len(ALICE.peer_id) == 32 and ALICE.peer_id == ALICE.peer_id.lower()
    assert ALICE.peer_id != BOB.peer_id


def test_seal_round_trip() -> None:
    for message in (b"", b"x", os.urandom(5000)):
        box = BOB.seal_for(ALICE.key, message)
        assert len(message) < 16 or message not in box  # a long plaintext never shows
        assert ALICE.open_from(BOB.key, box) == message


def test_sealing_is_randomised() -> None:
    assert BOB.seal_for(ALICE.key, b"same") != BOB.seal_for(ALICE.key, b"same")


def _nonce(box: bytes) -> bytes:
    return box[:24]  # a crypto_box travels as nonce + ciphertext


def test_nonces_never_repeat_for_a_pair_either_way() -> None:
    # The pair shares one key both ways: Alice's boxes to Bob and Bob's to Alice must
    # never share a nonce either.
    nonces = [_nonce(BOB.seal_for(ALICE.key, b"x")) for _ in range(5000)]
    nonces += [_nonce(ALICE.seal_for(BOB.key, b"x")) for _ in range(5000)]
    assert len(set(nonces)) == len(nonces)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_a_forked_child_never_reuses_its_parents_nonces() -> None:
    # An ssh server forks its sessions from one warm process, which may have sealed
    # before: a child that went on with the parent's counter would seal its first box
    # with the very nonce the parent uses next, under the same key pair.
    BOB.seal_for(ALICE.key, b"before the fork")
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: its first nonces, to the parent, and out at once
        try:
            os.write(write, b"".join(_nonce(BOB.seal_for(ALICE.key, b"c")) for _ in range(4)))
        finally:
            os._exit(0)
    os.close(write)
    child = b""
    while len(child) < 4 * 24:
        chunk = os.read(read, 4 * 24)
        if not chunk:
            break
        child += chunk
    os.close(read)
    os.waitpid(pid, 0)
    assert len(child) == 4 * 24
    theirs = {child[i:i + 24] for i in range(0, len(child), 24)}
    ours = {_nonce(BOB.seal_for(ALICE.key, b"p")) for _ in range(4)}
    assert not theirs & ours
    assert {n[:16] for n in theirs}.isdisjoint({n[:16] for n in ours})


def test_a_box_for_another_key_does_not_open() -> None:
    box = BOB.seal_for(ALICE.key, b"for alice only")
    carol = Identity.generate()
    with pytest.raises(FrameError):
        carol.open_from(BOB.key, box)  # a third party, told who sealed it
    with pytest.raises(FrameError):
        carol.open_from(ALICE.key, box)
    with pytest.raises(FrameError):
        ALICE.open_from(carol.key, box)  # the right reader, the wrong sender named


def test_a_box_sent_back_to_its_sealer_does_not_open() -> None:
    # Both ends of a pair share one key: the box names its sender, so the host can't be
    # handed its own box for a seat as if the seat had sealed it.
    box = BOB.seal_for(ALICE.key, b"for alice only")
    with pytest.raises(FrameError, match="did not seal"):
        BOB.open_from(ALICE.key, box)


@pytest.mark.parametrize("box", [b"", b"x", b"x" * 48, b"x" * 200])
def test_junk_boxes_do_not_open(box: bytes) -> None:
    with pytest.raises(FrameError):
        ALICE.open_from(BOB.key, box)


def test_opening_from_a_key_that_is_not_a_point_is_a_frame_error() -> None:
    with pytest.raises(FrameError):
        ALICE.open_from(b"\x02" + b"\xff" * 31, b"x" * 80)


def test_a_tampered_box_does_not_open() -> None:
    box = bytearray(BOB.seal_for(ALICE.key, b"secret"))
    for index in (0, 23, 24, len(box) - 1):
        mutated = bytearray(box)
        mutated[index] ^= 1
        with pytest.raises(FrameError):
            ALICE.open_from(BOB.key, bytes(mutated))


def test_seal_refuses_a_key_that_is_not_a_point() -> None:
    with pytest.raises(ValueError):
        BOB.seal_for(b"\x02" + b"\xff" * 31, b"data")


def test_sealed_frames_through_the_wire_layer() -> None:
    sender = Sender(BOB, TABLE)
    sender.send_sealed("topic", ALICE.key, "events", {"n": 3, "cards": [1, 2]})
    (out,) = sender.drain()
    frame = decode(out.payload, opener=ALICE)
    assert frame.sealed and frame.sender == BOB.key and frame.table == TABLE
    assert (frame.type, frame.body) == ("events", {"n": 3, "cards": [1, 2]})
    # Nobody else reads it: not its sealer, not a third party, not a peer with no opener.
    for reader in (BOB, identity_for(8, "carol")):
        with pytest.raises(FrameError):
            decode(out.payload, opener=reader)
    with pytest.raises(FrameError, match="someone else"):
        decode(out.payload)
    # Its header and its box agree on the sequence number, which a replay guard checks.
    sender.send_sealed("topic", ALICE.key, "events", {"n": 4, "cards": []})
    (later,) = sender.drain()
    assert decode(later.payload, opener=ALICE).seq > frame.seq


def _sealed(box: object, *, sender: bytes = BOB.key, seq: int = 7) -> bytes:
    return pack([pack([1, "sealed", TABLE, sender, seq, {"box": box}])])


def _boxed(contents: object, **kwargs: Any) -> bytes:
    return _sealed(BOB.seal_for(ALICE.key, pack(contents)), **kwargs)


# Built in the test (a box's nonce is random: every pytest-xdist worker must collect the
# same tests), named by what is wrong.
_MALFORMED: dict[str, Callable[[], bytes]] = {
    "no box": lambda: pack([pack([1, "sealed", TABLE, BOB.key, 7, {}])]),
    "a text box": lambda: _sealed("text"),
    "a null box": lambda: _sealed(None),
    "three items": lambda: _boxed([TABLE, 7, "events"]),
    "a list body": lambda: _boxed([TABLE, 7, "events", []]),
    "a number for a type": lambda: _boxed([TABLE, 7, 5, {}]),
    "sealed twice": lambda: _boxed([TABLE, 7, "sealed", {}]),
    "another seq inside": lambda: _boxed([TABLE, 8, "events", {}]),
    "another table inside": lambda: _boxed(["t2", 7, "events", {}]),
    "not msgpack inside": lambda: _sealed(BOB.seal_for(ALICE.key, b"\xc1")),
    "the wrong sender named": lambda: _boxed([TABLE, 7, "events", {}], sender=ALICE.key),
    "unsigned and not sealed": lambda: pack([pack([1, "events", TABLE, BOB.key, 7, {}])]),
}


@pytest.mark.parametrize("what", list(_MALFORMED))
def test_malformed_sealed_frames(what: str) -> None:
    with pytest.raises(FrameError):
        decode(_MALFORMED[what](), opener=ALICE)


def test_a_well_formed_sealed_frame_of_the_same_shape_opens() -> None:
    # The malformed frames above differ from this one in one thing each.
    frame = decode(_boxed([TABLE, 7, "events", {}]), opener=ALICE)
    assert (frame.type, frame.body, frame.seq, frame.sealed) == ("events", {}, 7, True)


def test_load_profile_creates_a_private_key_file_once(tmp_path: Path) -> None:
    first = load_profile("ana", base=tmp_path)
    path = tmp_path / "ana" / KEY_FILE
    assert path.is_file()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert not list((tmp_path / "ana").glob("*.tmp"))
    second = load_profile("ana", base=tmp_path)
    assert second.key == first.key
    assert bytes(second.signing_key) == bytes(first.signing_key)
    assert load_profile("ana", base=tmp_path, create=False).key == first.key
    assert load_profile("bea", base=tmp_path).key != first.key


def test_load_profile_without_create(tmp_path: Path) -> None:
    with pytest.raises(ProfileError):
        load_profile("nobody", base=tmp_path, create=False)
    assert not (tmp_path / "nobody").exists()


def test_profiles_dir_honours_stacks_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("STACKS_HOME", str(tmp_path))
    assert profiles_dir() == tmp_path / "profiles"
    identity = load_profile("ana")
    assert (tmp_path / "profiles" / "ana" / KEY_FILE).is_file()
    assert load_profile("ana").key == identity.key


@pytest.mark.parametrize(
    "name",
    ["", ".", "..", "../evil", "a/b", "a\\b", ".hidden", "-dash", "_under", "x" * 33,
     "sp ace", "tab\t", "new\nline", "ünï", "a\0b"],
)
def test_bad_profile_names(name: str, tmp_path: Path) -> None:
    with pytest.raises(ProfileError):
        load_profile(name, base=tmp_path)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("name", ["a", "Ana", "x" * 32, "ana.b_c-d", "9"])
def test_good_profile_names(name: str, tmp_path: Path) -> None:
    load_profile(name, base=tmp_path)


@pytest.mark.parametrize("content", ["", "not hex", "abcd", "00" * 31, "00" * 33])
def test_unreadable_key_files_are_profile_errors(content: str, tmp_path: Path) -> None:
    folder = tmp_path / "ana"
    folder.mkdir()
    (folder / KEY_FILE).write_text(content)
    with pytest.raises(ProfileError):
        load_profile("ana", base=tmp_path)


def test_a_profile_that_cannot_be_written_is_a_profile_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    with pytest.raises(ProfileError):
        load_profile("ana", base=blocker)


def test_signatures() -> None:
    from netplay.identity import verify

    signature = ALICE.sign(b"data")
    verify(ALICE.key, b"data", signature)
    for key, data, sig in (
        (BOB.key, b"data", signature),
        (ALICE.key, b"datA", signature),
        (ALICE.key, b"data", signature[:-1] + bytes([signature[-1] ^ 1])),
        (ALICE.key[:31], b"data", signature),
        (ALICE.key, b"data", signature[:63]),
    ):
        with pytest.raises(FrameError):
            verify(key, data, sig)


def test_boxes_and_signatures_are_pynacls_own() -> None:
    # Sealing and signing go through PyNaCl's bindings, not its Box and SigningKey
    # objects: what they make must stay what those objects make and take (a box is
    # ``nonce + ciphertext`` of the pair's shared key, a signature Ed25519's detached
    # one), so that peers and records of earlier versions still open and verify them.
    from nacl.public import Box
    from nacl.signing import VerifyKey

    from netplay.identity import verify

    def box_of(me: Identity, them: Identity) -> Box:
        return Box(me.signing_key.to_curve25519_private_key(),
                   them.signing_key.verify_key.to_curve25519_public_key())

    sealed = BOB.seal_for(ALICE.key, b"hand")
    assert box_of(ALICE, BOB).decrypt(sealed) == BOB.key + b"hand"
    theirs = box_of(BOB, ALICE).encrypt(BOB.key + b"hand")
    assert ALICE.open_from(BOB.key, bytes(theirs)) == b"hand"

    assert ALICE.sign(b"data") == ALICE.signing_key.sign(b"data").signature
    VerifyKey(ALICE.key).verify(b"data", ALICE.sign(b"data"))
    verify(ALICE.key, b"data", ALICE.signing_key.sign(b"data").signature)
    with pytest.raises(FrameError):
        verify(ALICE.key, b"data", bytearray(ALICE.sign(b"data")))  # type: ignore[arg-type]
