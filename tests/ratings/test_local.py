"""A game hosted on this machine is added to this machine's ratings as it ends."""

from __future__ import annotations

import json
import os
from pathlib import Path

from tests.e2e.conftest import SCALE, mosquitto
from tests.e2e.test_full_games import _finish as finish
from tests.e2e.test_full_games import _spawn as spawn

__all__ = ["mosquitto"]  # the broker fixture, used here too


def test_a_game_hosted_here_moves_this_machines_leaderboard(mosquitto: str,
                                                            tmp_path: Path) -> None:
    home = Path(os.environ["STACKS_HOME"])
    host = spawn("host", "--headless", "--players", "2", "--bots", "easy,medium",
                 "--table", "here", "--broker", mosquitto, "--block-window",
                 "0.2", "--record", str(tmp_path / "here.json"), "--rule", "win_chips=3",
                 "--rule", "win-min-each-colour=0")
    rc, out, err = finish(host, 120 * SCALE)
    assert rc == 0, out + err
    assert "ratings: added this game" in out, out
    assert (home / "data" / "ratings.sqlite").exists()
    shown = spawn("ratings", "--json")
    rc, out, err = finish(shown, 60 * SCALE)
    players = json.loads(out)["players"]
    assert {p["fingerprint"] for p in players} == {"bot-easy", "bot-medium"}
    assert sorted(p["wins"] for p in players) == [0, 1]
