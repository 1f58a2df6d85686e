"""`stacks host --seed` is refused for a table others join, unless --insecure-seed says so."""

from __future__ import annotations

import argparse

import pytest

from stacks.cli import insecure_seed, main
from stacks.parser import build_parser


def _args(*words: str) -> argparse.Namespace:
    return build_parser("host").parse_args(["host", *words])


def test_a_seeded_table_others_join_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["host", "--headless", "--players", "3", "--bots", "1", "--seed", "7"])
    assert exit_.value.code == 2
    assert "--insecure-seed" in capsys.readouterr().err


@pytest.mark.parametrize(("words", "refused"), [
    (("--headless", "--players", "2", "--seed", "1"), True),
    (("--players", "3", "--bots", "1", "--seed", "1"), True),  # one seat for a guest
    (("--players", "3", "--bots", "2", "--seed", "1"), False),  # you and two bots
    (("--headless", "--players", "2", "--bots", "2", "--seed", "1"), False),
    (("--headless", "--players", "2", "--seed", "1", "--insecure-seed"), False),
    (("--headless", "--players", "2"), False),
])
def test_which_seeded_tables_are_refused(words: tuple[str, ...], refused: bool) -> None:
    assert (insecure_seed(_args(*words)) is not None) is refused
