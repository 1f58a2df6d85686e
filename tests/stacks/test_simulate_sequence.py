"""``stacks simulate --game sequence``: classic games between bots, checked and summarised."""

from __future__ import annotations

import json

import pytest

from engine.classic import runner
from stacks.cli import main


def run_json(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict[str, object]]:
    code = main(["simulate", "--game", "sequence", "--json", *args])
    out = capsys.readouterr().out
    return code, json.loads(out) if out.strip() else {}


@pytest.mark.parametrize(("players", "teams"), [("2", 2), ("3", 3), ("4", 2), ("9", 3)])
def test_simulate_sequence_plays_checked_games_by_teams(
    capsys: pytest.CaptureFixture[str], players: str, teams: int
) -> None:
    code, summary = run_json(capsys, "--games", "3", "--players", players, "--bots", "easy,medium")
    assert code == 0
    assert summary["game"] == "sequence" and summary["teams"] == teams
    wins = summary["wins"]
    assert isinstance(wins, list) and len(wins) == teams
    assert sum(wins) + summary["draws"] == 3  # type: ignore[operator]
    assert summary["invariant_violations"] == 0


def test_simulate_sequence_same_seed_same_games(capsys: pytest.CaptureFixture[str]) -> None:
    first = run_json(capsys, "--games", "4", "--seed", "5", "--no-checks")[1]
    second = run_json(capsys, "--games", "4", "--seed", "5", "--no-checks")[1]
    for key in ("wins", "mean_turns", "terminations"):
        assert first[key] == second[key]


def test_simulate_sequence_six_players_in_three_teams(capsys: pytest.CaptureFixture[str]) -> None:
    code, summary = run_json(capsys, "--games", "2", "--players", "6", "--teams", "3")
    assert code == 0 and summary["teams"] == 3
    assert summary["team_bots"] == [["medium"], ["medium"], ["medium"]]


def test_simulate_sequence_reports_invariant_violations_and_fails(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(runner, "check_invariants", lambda state: ["a planted problem"])
    code, summary = run_json(capsys, "--games", "1", "--players", "2")
    assert code == 1 and summary["invariant_violations"] > 0  # type: ignore[operator]
    code, summary = run_json(capsys, "--games", "1", "--players", "2", "--no-checks")
    assert code == 0 and summary["invariant_violations"] == 0


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--game", "sequence", "--players", "5"], "2, 3, 4, 6, 8, 9, 10 or 12 players, not 5"),
        (["--game", "sequence", "--bots", "greedy"], "unknown bot 'greedy' for sequence"),
        (["--game", "sequence", "--players", "4", "--teams", "3"], "4 players can't form 3"),
        (["--players", "8"], "Sequence Stacks is for"),
        (["--teams", "2"], "--teams is for --game sequence"),
    ],
)
def test_simulate_refuses_what_the_game_does_not_allow_in_words(
    capsys: pytest.CaptureFixture[str], args: list[str], words: str
) -> None:
    assert main(["simulate", "--games", "1", *args]) == 2
    assert words in capsys.readouterr().err


def test_simulate_sequence_prints_a_table_by_team(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", "--game", "sequence", "--games", "2", "--players", "4"]) == 0
    out = capsys.readouterr().out
    assert "Blue (B)" in out and "Green (G)" in out and "0, 2" in out and "games/s" in out


@pytest.mark.parametrize(("players", "teams"), [("2", "2"), ("3", "3"), ("4", "2")])
def test_simulate_sequence_names_the_sides_and_checks_on_or_off(
    capsys: pytest.CaptureFixture[str], players: str, teams: str
) -> None:
    # The usual line-ups: 2 and 3 players alone (teams of one), 4 in two teams.
    code, on = run_json(capsys, "--games", "1", "--players", players, "--teams", teams, "--checks")
    assert code == 0 and on["teams"] == int(teams) and on["checks"] is True
    code, off = run_json(capsys, "--games", "1", "--players", players, "--teams", teams,
                         "--no-checks")
    assert code == 0 and off["checks"] is False
    assert off["wins"] == on["wins"] and off["mean_turns"] == on["mean_turns"]
    code, default = run_json(capsys, "--games", "1", "--players", players)
    assert code == 0 and default["checks"] is True and default["teams"] == int(teams)
