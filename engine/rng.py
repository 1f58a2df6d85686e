"""The specified random generator (see docs/rng.md): SHA-256 in counter mode.

Any implementation can re-derive a deal from a seed: block ``i`` is
``SHA-256(seed || i as 8-byte big-endian)``; each block yields four 64-bit big-endian
words, used in order. ``below(n)`` rejects words at or above the largest multiple of
``n`` that fits in 64 bits; ``shuffle`` is Fisher-Yates from the last index down.
"""

from __future__ import annotations

import hashlib
from typing import Final, TypeVar

T = TypeVar("T")

_TWO_64: Final = 1 << 64


class Rng:
    """A deterministic stream of 64-bit words derived from a seed."""

    __slots__ = ("_block", "_seed", "_words")

    def __init__(self, seed: bytes) -> None:
        if not isinstance(seed, bytes | bytearray):
            raise TypeError("seed must be bytes")
        self._seed = bytes(seed)
        self._block = 0
        self._words: list[int] = []

    @classmethod
    def from_int(cls, seed: int, *, label: str = "") -> Rng:
        """A generator for an integer seed: ``seed = SHA-256("stacks:" label ":" decimal)``."""
        return cls(derive_seed(seed, label=label))

    @property
    def position(self) -> int:
        """How many words have been drawn so far."""
        return self._block * 4 - len(self._words)

    def next_word(self) -> int:
        """The next 64-bit word of the stream."""
        words = self._words
        if not words:
            digest = hashlib.sha256(self._seed + self._block.to_bytes(8, "big")).digest()
            self._block += 1
            # Stored reversed so that pop() yields word 0, 1, 2, 3 of the block in order.
            words.extend(
                int.from_bytes(digest[i : i + 8], "big") for i in (24, 16, 8, 0)
            )
        return words.pop()

    def below(self, n: int) -> int:
        """A uniform integer in ``0..n-1`` (rejection sampling, no modulo bias)."""
        if n <= 0:
            raise ValueError(f"below() needs a positive bound, not {n}")
        limit = _TWO_64 - (_TWO_64 % n)
        while True:
            word = self.next_word()
            if word < limit:
                return word % n

    def shuffle(self, items: list[T]) -> None:
        """Shuffle in place: for i from len-1 down to 1, swap items[i] with items[below(i+1)]."""
        below = self.below
        for i in range(len(items) - 1, 0, -1):
            j = below(i + 1)
            items[i], items[j] = items[j], items[i]


def derive_seed(seed: int, *, label: str = "") -> bytes:
    """Turn an integer seed (and an optional label) into the 32-byte seed of :class:`Rng`."""
    return hashlib.sha256(f"stacks:{label}:{seed}".encode()).digest()
