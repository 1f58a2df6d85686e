"""``stacks ratings`` as a user runs it: add records (verified, counted once, a refused
one named with its reason), the leaderboard as a table and as JSON, export to another
database and import there; on SQLite and PostgreSQL."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from netplay.record import write_record

from .games import stacks_records

ROOT = Path(__file__).resolve().parents[2]


def stacks(*words: str, home: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "STACKS_HOME": str(home)}
    return subprocess.run([sys.executable, "-m", "stacks.cli", *words], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)


def leaderboard(database: str, home: Path) -> list[dict[str, Any]]:
    shown = stacks("ratings", "--json", "--database", database, home=home)
    assert shown.returncode == 0, shown.stderr
    players: list[dict[str, Any]] = json.loads(shown.stdout)["players"]
    return players


def test_ratings_add_and_the_leaderboard(database: str, tmp_path: Path) -> None:
    files = []
    for index, record in enumerate(stacks_records()):
        files.append(tmp_path / f"game{index}.json")
        write_record(files[-1], record)
    bad = stacks_records()[0]
    bad["batches"] = bad["batches"][:-1]
    write_record(tmp_path / "cut.json", bad)
    (tmp_path / "junk.json").write_text("not json")

    added = stacks("ratings", "add", *map(str, files[:2]), "--database", database, home=tmp_path)
    assert added.returncode == 0, added.stdout + added.stderr
    assert added.stdout.count("rated ") == 2
    refused = stacks("ratings", "add", str(tmp_path / "cut.json"), str(files[0]), "--database",
                     database, home=tmp_path)
    assert refused.returncode == 1
    assert "refused" in refused.stdout and "cut.json: it does not verify" in refused.stdout
    assert f"already rated {files[0]}" in refused.stdout
    junk = stacks("ratings", "add", str(tmp_path / "junk.json"), "--database", database,
                  home=tmp_path)
    assert junk.returncode == 2 and "can't read game record" in junk.stdout
    players = leaderboard(database, tmp_path)
    assert sum(p["games"] for p in players if p["fingerprint"] == "bot-medium") == 1
    assert sum(p["games"] for p in players if p["fingerprint"] == "bot-easy") == 1
    assert {"name", "fingerprint", "games", "wins", "rating", "uncertainty"} <= players[0].keys()
    assert [p["rating"] for p in players] == sorted((p["rating"] for p in players), reverse=True)

    table = stacks("ratings", "--database", database, home=tmp_path)
    assert table.returncode == 0 and "bot-medium" in table.stdout and "ann" in table.stdout

    # Export and import into a fresh SQLite database: the same leaderboard.
    stacks("ratings", "add", *map(str, files), "--database", database, home=tmp_path)
    export = stacks("ratings", "export", str(tmp_path / "all.jsonl"), "--database", database,
                    home=tmp_path)
    assert export.returncode == 0 and "exported 5 games" in export.stdout
    other = f"sqlite:///{tmp_path / 'other.sqlite'}"
    imported = stacks("ratings", "import", str(tmp_path / "all.jsonl"), "--database", other,
                      home=tmp_path)
    assert imported.returncode == 0 and "imported 5 games" in imported.stdout, imported.stdout
    assert leaderboard(other, tmp_path) == leaderboard(database, tmp_path)


def test_the_default_database_is_in_the_data_directory(tmp_path: Path) -> None:
    path = tmp_path / "g.json"
    write_record(path, stacks_records()[3])
    assert stacks("ratings", "add", str(path), home=tmp_path).returncode == 0
    assert (tmp_path / "data" / "ratings.sqlite").exists()
    shown = stacks("ratings", "--json", home=tmp_path)
    assert len(json.loads(shown.stdout)["players"]) == 2
    empty = stacks("ratings", "--game", "sequence", home=tmp_path)
    assert "No rated sequence games yet" in empty.stdout


def test_an_unusable_database_is_said_in_words(tmp_path: Path) -> None:
    shown = stacks("ratings", "--database", "mysql://x@127.0.0.1/db", home=tmp_path)
    assert shown.returncode == 2 and "use sqlite:///PATH or postgresql://" in shown.stderr
    down = stacks("ratings", "--database", "postgresql://nobody@127.0.0.1:1/none",
                  home=tmp_path)
    assert down.returncode == 2 and "can't open the database" in down.stderr
    assert "Traceback" not in down.stderr
