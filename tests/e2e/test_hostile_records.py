"""Hostile game records, as ``stacks verify``, ``stacks ratings add`` and ``stacks ratings
import`` meet them: an edited name or end time fails verification in words; a malformed,
deep or huge file is refused in words (exit 1 or 2, never a traceback) within a bound of
time and memory; an import stores the good records of a file and names the bad ones."""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from netplay.record import MAX_RECORD_BYTES, to_json, write_record
from tests.ratings.games import stacks_records

ROOT = Path(__file__).resolve().parents[2]
PEAK_MB = 400
"""What refusing a hostile record may cost at most (a real record: well under 1 MB)."""


def stacks(*words: str, home: Path, limit_mb: int | None = None,
           ) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "STACKS_HOME": str(home)}

    def bounded() -> None:
        if limit_mb is not None:
            size = limit_mb * 1024 * 1024
            resource.setrlimit(resource.RLIMIT_AS, (size, size))

    return subprocess.run([sys.executable, "-m", "stacks.cli", *words], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120, preexec_fn=bounded)


def leaderboard(database: str, home: Path) -> list[dict[str, Any]]:
    shown = stacks("ratings", "--json", "--database", database, home=home)
    assert shown.returncode == 0, shown.stderr
    players: list[dict[str, Any]] = json.loads(shown.stdout)["players"]
    return players


def _written(tmp_path: Path, name: str, record: dict[str, Any]) -> Path:
    path = tmp_path / name
    write_record(path, record)
    return path


def test_an_edited_name_fails_verification_and_is_not_rated(tmp_path: Path) -> None:
    record = stacks_records()[3]  # ann and bob, no bots
    real = record["names"][0]
    record["names"][0] = "ALICE THE GREAT"
    path = _written(tmp_path, "edited.json", record)
    verified = stacks("verify", str(path), home=tmp_path)
    assert verified.returncode == 1, verified.stdout + verified.stderr
    assert "NOT verified" in verified.stdout
    assert "ALICE THE GREAT" in verified.stdout and repr(real) in verified.stdout, \
        verified.stdout
    assert "Traceback" not in verified.stderr

    database = f"sqlite:///{tmp_path / 'r.sqlite'}"
    added = stacks("ratings", "add", str(path), "--database", database, home=tmp_path)
    assert added.returncode == 1 and "refused" in added.stdout, added.stdout + added.stderr
    assert "ALICE THE GREAT" not in json.dumps(leaderboard(database, tmp_path))


def test_a_name_can_not_be_given_by_dropping_the_signed_joins(tmp_path: Path) -> None:
    """Without the players' signed joins, a record's names are nobody's word: the game is
    rated under the identities, and a stored name is never renamed by it."""
    database = f"sqlite:///{tmp_path / 'r.sqlite'}"
    first, later = stacks_records()[3], stacks_records()[0]
    assert stacks("ratings", "add", str(_written(tmp_path, "a.json", first)), "--database",
                  database, home=tmp_path).returncode == 0
    later["names"][0] = "ALICE THE GREAT"
    del later["joins"]
    path = _written(tmp_path, "b.json", later)
    stacks("ratings", "add", str(path), "--database", database, home=tmp_path)
    board = leaderboard(database, tmp_path)
    assert "ALICE THE GREAT" not in json.dumps(board)
    assert "ann" in {p["name"] for p in board}


@pytest.mark.parametrize("ended_at", [4_102_444_800.0, 1.0], ids=["year-2100", "1970"])
def test_an_end_time_out_of_the_game_fails_verification(
        tmp_path: Path, ended_at: float) -> None:
    record = stacks_records()[3]
    record["ended_at"] = ended_at
    path = _written(tmp_path, "when.json", record)
    verified = stacks("verify", str(path), home=tmp_path)
    assert verified.returncode == 1, verified.stdout + verified.stderr
    assert "NOT verified" in verified.stdout and "ended" in verified.stdout, verified.stdout
    database = f"sqlite:///{tmp_path / 'r.sqlite'}"
    added = stacks("ratings", "add", str(path), "--database", database, home=tmp_path)
    assert added.returncode == 1 and "refused" in added.stdout, added.stdout + added.stderr


def _deep() -> str:
    return "[" * 100_000 + "]" * 100_000


def _bad_records() -> dict[str, str]:
    good = to_json(stacks_records()[3])
    players = {**good, "players": "2"}
    outcome = {**good, "outcome": 5}
    batches = {**good, "batches": [5, "x"]}
    return {
        "deep": _deep(),
        "deep-field": json.dumps({**good, "rules": "@"}).replace('"@"', _deep()),
        "players-text": json.dumps(players),
        "outcome-number": json.dumps(outcome),
        "batches-junk": json.dumps(batches),
    }


@pytest.mark.parametrize("kind", list(_bad_records()))
def test_a_malformed_record_is_refused_in_words(tmp_path: Path, kind: str) -> None:
    path = tmp_path / f"{kind}.json"
    path.write_text(_bad_records()[kind])
    verified = stacks("verify", str(path), home=tmp_path)
    assert verified.returncode in (1, 2), verified.stdout + verified.stderr
    assert "Traceback" not in verified.stderr, verified.stderr
    assert not verified.stdout.startswith("verified")
    database = f"sqlite:///{tmp_path / 'r.sqlite'}"
    added = stacks("ratings", "add", str(path), "--database", database, home=tmp_path)
    assert added.returncode in (1, 2), added.stdout + added.stderr
    assert "Traceback" not in added.stderr and f"refused {path}" in added.stdout, \
        added.stdout + added.stderr


@pytest.mark.slow
def test_a_huge_record_is_refused_before_it_is_read_whole(tmp_path: Path) -> None:
    junk = to_json(stacks_records()[3])
    junk["junk"] = "x" * (50 * 1024 * 1024)
    big = tmp_path / "junk.json"
    big.write_text(json.dumps(junk))
    many = tmp_path / "many.json"
    many.write_text("[" + ",".join(["{}"] * 12_500_000) + "]")  # 37.5 MB
    database = f"sqlite:///{tmp_path / 'r.sqlite'}"
    for path in (big, many):
        began = time.monotonic()
        for words in (("verify", str(path)),
                      ("ratings", "add", str(path), "--database", database)):
            result = stacks(*words, home=tmp_path, limit_mb=PEAK_MB)
            assert result.returncode in (1, 2), result.stdout + result.stderr
            assert "Traceback" not in result.stderr and "MemoryError" not in result.stderr
            assert "too big" in result.stdout + result.stderr, result.stdout + result.stderr
        assert time.monotonic() - began < 30
    assert leaderboard(database, tmp_path) == []


def test_only_a_records_known_fields_are_stored(tmp_path: Path) -> None:
    record = stacks_records()[3]
    record["junk"] = "x" * 1_000_000
    record["batches"][0]["junk"] = "z" * 1_000_000
    record["verdicts"]["spectator eve"] = {"ok": True, "detail": "v" * 1_000_000}
    path = _written(tmp_path, "padded.json", record)
    database = tmp_path / "r.sqlite"
    added = stacks("ratings", "add", str(path), "--database", f"sqlite:///{database}",
                   home=tmp_path)
    assert added.returncode == 0, added.stdout + added.stderr
    assert database.stat().st_size < 500_000
    exported = tmp_path / "all.jsonl"
    stacks("ratings", "export", str(exported), "--database", f"sqlite:///{database}",
           home=tmp_path)
    assert "junk" not in exported.read_text() and "v" * 300 not in exported.read_text()
    # What is kept is the game, whole: it verifies as the record did.
    again = tmp_path / "again.sqlite"
    imported = stacks("ratings", "import", str(exported), "--database", f"sqlite:///{again}",
                      home=tmp_path)
    assert imported.returncode == 0 and "imported 1 games" in imported.stdout, imported.stdout


def test_an_import_keeps_the_good_records_and_names_the_bad(tmp_path: Path) -> None:
    records = stacks_records()
    lines = [json.dumps({"record": to_json(records[0])}),
             '{"record": ' + _deep() + "}",
             json.dumps({"record": {**to_json(records[1]), "players": "2"}}),
             json.dumps({"record": {**to_json(records[2]), "outcome": 5}}),
             json.dumps({"record": to_json(records[3])})]
    source = tmp_path / "mixed.jsonl"
    source.write_text("\n".join(lines) + "\n")
    database = f"sqlite:///{tmp_path / 'r.sqlite'}"
    imported = stacks("ratings", "import", str(source), "--database", database, home=tmp_path)
    assert "Traceback" not in imported.stderr, imported.stderr
    assert imported.returncode == 1, imported.stdout + imported.stderr
    assert "imported 2 games" in imported.stdout and "3 refused" in imported.stdout, \
        imported.stdout
    for line in (2, 3, 4):
        assert f"line {line}: refused" in imported.stdout, imported.stdout
    assert sum(p["games"] for p in leaderboard(database, tmp_path)) > 0


def test_the_size_bound_holds_a_long_real_game() -> None:
    longest = max(len(json.dumps(to_json(r), indent=1)) for r in stacks_records())
    assert longest * 20 < MAX_RECORD_BYTES
