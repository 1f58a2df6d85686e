"""Identities: an Ed25519 key pair per profile, kept in the user's config directory.

The same key pair seals and opens private messages (libsodium converts Ed25519 keys to
X25519), so a profile is one secret of 32 bytes.

A private message is a ``crypto_box`` between the sender's X25519 key and the
recipient's: only those two can open it. The key the pair shares is computed once per
pair and kept, so sealing and opening a frame costs microseconds (a ``SealedBox``, with
a fresh key pair and an exchange per box, cost 70-110 µs each way, four to six times per
action). Each box names its sender inside, so a box can't be sent back to the identity
that made it as if it came from the other side.

A box's nonce (24 bytes) is this process's random prefix (16 bytes from ``os.urandom``,
drawn afresh in every process and again in every child forked from it) followed by a
counter (8 bytes) that only goes up, instead of 24 fresh random bytes per box (a
``getrandom`` system call, ~20 µs each under load, a box or more per frame). See
:class:`_Nonces` for why a nonce never comes twice for one pair of keys.
"""

from __future__ import annotations

import functools
import hashlib
import itertools
import os
from dataclasses import dataclass
from pathlib import Path

from nacl import bindings
from nacl.exceptions import BadSignatureError, CryptoError
from nacl.signing import SigningKey, VerifyKey

from netplay.errors import FrameError, ProfileError
from netplay.names import is_profile_name
from netplay.paths import APP_NAME as APP_NAME
from netplay.paths import profiles_dir as profiles_dir

KEY_FILE = "identity.key"


class _Nonces:
    """Nonces for ``crypto_box``: a random prefix of this process and a counter.

    Why one never repeats for the same pair of keys (the pair shares one key both ways,
    so the rule covers both directions and every process that holds either key: a
    profile played from two terminals, a host resumed after ``kill -9``, the sessions an
    ssh server forks from one warm process):

    - within a process, every nonce carries the same prefix and a counter that is taken
      once (``itertools.count``, atomic under the GIL) and never reused; at 2**64 it
      would start a new prefix, which no process lives to see;
    - a process started afresh (``--resume`` after ``kill -9`` included) draws its own
      prefix when it imports this module, and a forked child draws a new one at once
      (``os.register_at_fork``), before it can seal anything: so a zygote's children,
      or a ``multiprocessing`` worker, never continue their parent's counter;
    - two processes share a prefix with probability 2**-128 per pair: for a million
      processes ever, about 2**-89, as unlikely as a repeat among random 24-byte nonces.

    What this does not cover, as random nonces from the kernel would: a copy of a whole
    running process's memory (a virtual machine restored twice from one snapshot).
    """

    PREFIX = 16
    COUNTER = 8

    def __init__(self) -> None:
        self._reseed()

    def _reseed(self) -> None:
        # One tuple, replaced whole: a thread never pairs a new prefix with an old count.
        self._state = (os.urandom(self.PREFIX), itertools.count())

    def next(self) -> bytes:
        prefix, counter = self._state
        n = next(counter)
        if n >= 1 << (8 * self.COUNTER):
            self._reseed()
            return self.next()
        return prefix + n.to_bytes(self.COUNTER, "big")


_NONCES = _Nonces()
os.register_at_fork(after_in_child=_NONCES._reseed)


@functools.lru_cache(maxsize=4096)
def peer_id(key: bytes) -> str:
    """The 32-hex-character id of a public key: the first 16 bytes of its SHA-256 (kept
    for the keys a process meets: a host names each seat's topic for every frame)."""
    return hashlib.sha256(key).digest()[:16].hex()


@dataclass(frozen=True)
class Identity:
    """A profile's key pair."""

    signing_key: SigningKey

    @classmethod
    def generate(cls) -> Identity:
        return cls(SigningKey.generate())

    @classmethod
    def from_seed(cls, seed: bytes) -> Identity:
        return cls(SigningKey(seed))

    @functools.cached_property
    def key(self) -> bytes:
        """The public key (32 bytes) that names this identity on the wire."""
        return bytes(self.signing_key.verify_key)

    @functools.cached_property
    def peer_id(self) -> str:
        return peer_id(self.key)

    @functools.cached_property
    def _seed(self) -> bytes:
        return bytes(self.signing_key)

    @functools.cached_property
    def _secret(self) -> bytes:
        """libsodium's 64-byte signing key (seed and public key), for ``crypto_sign``."""
        return bindings.crypto_sign_seed_keypair(self._seed)[1]

    def sign(self, data: bytes) -> bytes:
        """The detached Ed25519 signature (64 bytes) of ``data``: what
        ``signing_key.sign(data).signature`` is, without its ``SignedMessage``."""
        return bindings.crypto_sign(data, self._secret)[:SIGNATURE]

    def seal_for(self, key: bytes, data: bytes) -> bytes:
        """``data`` sealed so that only the holder of Ed25519 public key ``key`` (and this
        identity) can read it; ``ValueError`` if ``key`` is not a usable public key.

        The box is ``nonce + crypto_box_easy_afternm(...)``, what PyNaCl's
        ``Box.encrypt`` makes, through its bindings: the high-level wrapper's objects
        (an ``EncryptedMessage`` per box, its encoders) cost as much as the cipher."""
        nonce = _NONCES.next()
        return nonce + bindings.crypto_box_easy_afternm(
            self.key + data, nonce, _shared(self._seed, key))

    def open_from(self, key: bytes, box: bytes) -> bytes:
        """Open a box that identity ``key`` sealed for this one; ``FrameError`` if it
        isn't one."""
        try:
            if len(box) < NONCE + MAC:
                raise ValueError("too short")
            plain = bindings.crypto_box_open_easy_afternm(
                box[NONCE:], box[:NONCE], _shared(self._seed, key))
        except (CryptoError, ValueError, TypeError):
            raise FrameError("a sealed box that does not open with our key") from None
        if plain[:32] != key:
            raise FrameError("a sealed box that its sender did not seal")
        return plain[32:]


NONCE = bindings.crypto_box_NONCEBYTES
MAC = bindings.crypto_box_ZEROBYTES - bindings.crypto_box_BOXZEROBYTES  # 16: the tag
SIGNATURE = bindings.crypto_sign_BYTES
PUBLIC_KEY = bindings.crypto_sign_PUBLICKEYBYTES


def verify(key: bytes, data: bytes, signature: bytes) -> None:
    """Raise ``FrameError`` unless ``signature`` is ``key``'s signature of ``data``
    (``VerifyKey(key).verify(data, signature)``, through PyNaCl's bindings: their
    lengths checked here, as ``VerifyKey`` would)."""
    if (type(key) is not bytes or len(key) != PUBLIC_KEY or type(signature) is not bytes
            or len(signature) != SIGNATURE or not isinstance(data, bytes)):
        raise FrameError("bad signature")
    try:
        bindings.crypto_sign_open(signature + data, key)
    except (BadSignatureError, ValueError, TypeError):
        raise FrameError("bad signature") from None


@functools.lru_cache(maxsize=4096)
def _shared(seed: bytes, key: bytes) -> bytes:
    """The key shared by the identity of ``seed`` and public key ``key``
    (``crypto_box_beforenm``): the Ed25519 -> X25519 conversions and the key exchange
    once per pair (enough pairs kept for a process hosting hundreds of tables)."""
    private = bytes(SigningKey(seed).to_curve25519_private_key())
    try:
        public = bytes(VerifyKey(key).to_curve25519_public_key())
        return bindings.crypto_box_beforenm(public, private)
    except (ValueError, TypeError, CryptoError) as exc:
        raise ValueError(f"not a usable public key: {exc}") from exc


def load_profile(name: str, *, create: bool = True, base: Path | None = None) -> Identity:
    """The identity of profile ``name``; created (0600) on first use when ``create``."""
    if not is_profile_name(name):
        raise ProfileError(
            f"profile name {name!r}: use 1-32 letters, digits, '.', '_' or '-'"
        )
    folder = (base or profiles_dir()) / name
    path = folder / KEY_FILE
    if path.exists():
        try:
            seed = bytes.fromhex(path.read_text().strip())
            return Identity.from_seed(seed)
        except (ValueError, OSError) as exc:
            raise ProfileError(f"profile {name!r}: can't read {path}: {exc}") from exc
    if not create:
        raise ProfileError(f"no profile {name!r} in {folder.parent}")
    identity = Identity.generate()
    try:
        folder.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as handle:
            handle.write(bytes(identity.signing_key).hex() + "\n")
        os.replace(tmp, path)
    except OSError as exc:
        raise ProfileError(f"profile {name!r}: can't write {path}: {exc}") from exc
    return identity
