"""``stacks verify`` on files that are not good records: a clear word, never a traceback."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def verify(path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "stacks.cli", "verify", str(path)], cwd=ROOT,
                          capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize(
    ("content", "status", "words"),
    [
        ("not json at all", 2, "not a sequence-stacks game record (not JSON"),
        (json.dumps([1, 2, 3]), 2, "is not a sequence-stacks game record"),
        (json.dumps({"format": "sequence-stacks-record"}), 1, "malformed"),
        (json.dumps({"format": "sequence-stacks-record", "players": 2, "table": "t",
                     "keys": [None, None], "rules": {}, "commit": {"hex": "00" * 32},
                     "entropies": [], "secret": None, "batches": []}), 1, "no revealed secret"),
    ],
    ids=["garbage", "not-a-record", "missing-fields", "unfinished"],
)
def test_bad_records_get_a_clear_answer(
    tmp_path: Path, content: str, status: int, words: str
) -> None:
    path = tmp_path / "record.json"
    path.write_text(content)
    result = verify(path)
    assert result.returncode == status, result.stdout + result.stderr
    assert words in result.stdout + result.stderr
    assert "Traceback" not in result.stderr


def test_a_missing_file_is_named(tmp_path: Path) -> None:
    result = verify(tmp_path / "nope.json")
    assert result.returncode == 2
    assert "nope.json: No such file or directory" in result.stderr
    assert "Traceback" not in result.stderr


def test_a_binary_file_or_a_folder_is_named_for_what_it_is(tmp_path: Path) -> None:
    binary = tmp_path / "game.bin"
    binary.write_bytes(bytes(range(256)) * 4)
    result = verify(binary)
    assert result.returncode == 2
    assert "not a sequence-stacks game record (not text)" in result.stderr, result.stderr
    result = verify(tmp_path)
    assert result.returncode == 2
    assert f"{tmp_path}: Is a directory" in result.stderr, result.stderr
    assert "Traceback" not in result.stderr
