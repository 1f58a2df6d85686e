"""A headless ``stacks bot`` that joins another machine's table counts the game in this
machine's ratings, as the interface's joiner does: it writes its seat's record beside the
records of games hosted here and adds it (``stacks ratings`` shows it)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from netplay.record import SEAT_FORMAT, read_record
from tests.e2e.conftest import SCALE, mosquitto, stacks_command
from tests.e2e.test_full_games import _finish as finish

__all__ = ["mosquitto"]  # the broker fixture, used here too

ROOT = Path(__file__).resolve().parents[2]


def _spawn(home: Path, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(stacks_command(*args), cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "STACKS_HOME": str(home)})


def test_a_headless_bot_joiner_adds_its_game_to_this_machines_ratings(
    mosquitto: str, tmp_path: Path,
) -> None:
    host_home, bot_home = tmp_path / "host-machine", tmp_path / "bot-machine"
    host = _spawn(host_home, "host", "--headless", "--players", "2", "--bots", "medium",
                  "--table", "away", "--broker", mosquitto, "--block-window", "0.2",
                  "--record", str(tmp_path / "host.json"), "--rule", "win_chips=3",
                  "--rule", "win-min-each-colour=0")
    bot = _spawn(bot_home, "bot", "away", "--strategy", "easy", "--name", "joiner",
                 "--broker", mosquitto)
    rc, out, err = finish(bot, 180 * SCALE)
    assert rc == 0, out + err
    finish(host, 60 * SCALE)
    assert "ratings: added this game" in out, out + err
    [record] = (bot_home / "data" / "records").glob("*.json")
    assert read_record(record)["format"] == SEAT_FORMAT
    assert f"record written to {record}" in out
    shown = _spawn(bot_home, "ratings", "--json")
    rc, out, err = finish(shown, 60 * SCALE)
    assert rc == 0, out + err
    players = json.loads(out)["players"]
    assert {p["name"] for p in players} == {"joiner", "Bot (medium)"}, players
    assert all(p["games"] == 1 for p in players)
