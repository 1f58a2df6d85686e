"""A headless host given house rules on its command line plays by them: it says so when
it opens, the game ends as those rules say, and the record carries them for
``stacks verify``."""

from __future__ import annotations

from pathlib import Path

from engine.config import RulesConfig, TwoPlayerDeck
from engine.games import STACKS
from engine.state import Termination
from netplay.batch import Batch
from netplay.record import read_record
from tests.e2e.conftest import SCALE
from tests.e2e.test_full_games import _finish as finish
from tests.e2e.test_full_games import _spawn as spawn


def test_a_headless_host_plays_by_the_rules_its_command_line_gives(
    mosquitto: str, tmp_path: Path,
) -> None:
    record = tmp_path / "house.json"
    host = spawn("host", "--headless", "--players", "2", "--bots", "2", "--table", "house",
                 "--broker", mosquitto, "--block-window", "0.2", "--record", str(record),
                 "--rule", "win_chips=3", "--rule", "win-min-each-colour=0",
                 "--rule", "two_player_deck=full")
    rc, out, err = finish(host, 120 * SCALE)
    assert rc == 0, out + err
    assert "house rules: two_player_deck=full, win_chips=3, win_min_each_colour=0" in out
    data = read_record(record)
    rules = RulesConfig.from_wire(data["rules"])
    assert (rules.win_chips, rules.win_min_each_colour, rules.two_player_deck) == \
        (3, 0, TwoPlayerDeck.FULL)
    # Replayed, the game was won with three chips (the usual rules want five).
    state = STACKS.new_state(rules, data["players"])
    for body in data["batches"]:
        for event in Batch.from_body(body, STACKS).events:
            STACKS.apply(state, event)
    assert state.outcome is not None and state.outcome.termination == Termination.WIN
    assert state.outcome.winner is not None and sum(state.chips[state.outcome.winner]) == 3
    verified = spawn("verify", str(record))
    rc, out, err = finish(verified, 60 * SCALE)
    assert rc == 0 and "verified" in out, out + err
