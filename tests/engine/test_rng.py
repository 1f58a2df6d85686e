"""The generator is specified (docs/rng.md): these vectors pin it."""

from __future__ import annotations

import hashlib

import pytest

from engine.rng import Rng, derive_seed

SEED_HEX = "326dc152e2b86eac7eff0bb77221693c40ab22a649bf15f1ed9f23779e800037"


def test_derive_seed_is_sha256_of_label_and_decimal() -> None:
    assert derive_seed(0, label="game0").hex() == SEED_HEX
    assert derive_seed(0, label="game0") == hashlib.sha256(b"stacks:game0:0").digest()


def test_words_are_sha256_counter_blocks_read_big_endian() -> None:
    rng = Rng(bytes.fromhex(SEED_HEX))
    assert [rng.next_word() for _ in range(5)] == [
        4846610174419009619,
        14540317939497050416,
        6008965243865579391,
        12862282227011035619,
        792543597713724420,
    ]
    block1 = hashlib.sha256(bytes.fromhex(SEED_HEX) + (1).to_bytes(8, "big")).digest()
    assert int.from_bytes(block1[:8], "big") == 792543597713724420


def test_shuffle_of_the_full_deck_matches_the_documented_vector() -> None:
    rng = Rng(bytes.fromhex(SEED_HEX))
    cards = list(range(120))
    rng.shuffle(cards)
    assert cards[-10:] == [113, 77, 53, 63, 32, 24, 86, 115, 23, 59]
    assert sorted(cards) == list(range(120))


def test_below_rejects_words_that_would_bias_the_result() -> None:
    class Scripted(Rng):
        def __init__(self, words: list[int]) -> None:
            super().__init__(b"x")
            self.script = words

        def next_word(self) -> int:
            return self.script.pop(0)

    top = (1 << 64) - 1  # 2^64 - 1 is >= the limit for n = 3 (2^64 mod 3 = 1)
    rng = Scripted([top, 7])
    assert rng.below(3) == 7 % 3
    assert rng.script == []


def test_below_needs_a_positive_bound() -> None:
    with pytest.raises(ValueError, match="positive"):
        Rng(b"s").below(0)


def test_position_counts_words_drawn() -> None:
    rng = Rng(b"s")
    for _ in range(6):
        rng.next_word()
    assert rng.position == 6
