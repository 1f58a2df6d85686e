"""``stacks tournament --game sequence``: classic bots against each other, seats rotated."""

from __future__ import annotations

import json

import pytest

from stacks.cli import main


def test_a_sequence_tournament_rotates_seats_and_counts_every_game(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code = main(["tournament", "--game", "sequence", "--games", "6", "--bots", "medium,random",
                 "--json"])
    assert code == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["game"] == "sequence" and summary["games"] == 6
    bots = summary["bots"]
    assert bots["medium"]["games"] == bots["random"]["games"] == 6
    assert bots["medium"]["wins"] + bots["random"]["wins"] + summary["draws"] == 6
    # Seats rotate: each bot sat in each seat, and the seats' wins add up.
    assert [s["seat"] for s in summary["seats"]] == [0, 1]
    assert sum(s["wins"] for s in summary["seats"]) + summary["draws"] == 6


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--players", "4"], "between individuals: 2 or 3 players (not 4"),
        (["--bots", "grandmaster,medium"], "Sequence has no 'grandmaster' bot"),
    ],
)
def test_a_sequence_tournament_refuses_in_words(
    capsys: pytest.CaptureFixture[str], args: list[str], words: str
) -> None:
    assert main(["tournament", "--game", "sequence", "--games", "2", *args]) == 2
    assert words in capsys.readouterr().err


def test_a_stacks_tournament_with_an_unknown_bot_is_refused_in_words(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["tournament", "--games", "2", "--bots", "grandmaster"]) == 2
    assert "unknown bot 'grandmaster'" in capsys.readouterr().err
