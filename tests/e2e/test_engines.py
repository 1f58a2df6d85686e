"""The example engines (``examples/engines``) at a real table: a headless host on a real
Mosquitto, each example seated by ``stacks bot --engine`` as a peer of its own, in separate
processes, both games to the end. Every peer verifies the deal, the host's record passes
``stacks verify``, and everything a program was told is checked against the record: each
view it got is exactly its seat's view of a moment of the replayed game, so no card it
could not see (another hand, the draw pile's order) ever reached it.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from engine.engine_protocol import view_data
from engine.games import game_def
from netplay.record import read_record, verify_record
from netplay.verify import deal_seed
from tests.e2e.conftest import ROOT, SCALE, stacks_command, wait_for_table
from tests.e2e.test_full_games import HASH
from tests.e2e.test_full_games import _finish as finish
from tests.e2e.test_full_games import _spawn as spawn

EXAMPLES = ROOT / "examples" / "engines"
TEE = Path(__file__).parent / "engines" / "tee_engine.py"


@pytest.mark.parametrize("game", ["stacks", "sequence"])
def test_both_example_engines_play_a_whole_game_at_a_real_table_and_see_no_hidden_card(
    mosquitto: str, tmp_path: Path, game: str
) -> None:
    table = f"engines-{game}"
    record = tmp_path / f"{table}.json"
    host = spawn("host", "--headless", "--game", game, "--players", "3", "--bots", "1",
                 "--table", table, "--broker", mosquitto, "--record", str(record),
                 "--bot-delay", "0", "--block-window", "0.5",
                 "--verify-wait", str(10 * SCALE))
    wait_for_table(mosquitto, table, host)
    told = {"py": tmp_path / "py.jsonl", "js": tmp_path / "js.jsonl"}
    commands = {"py": [sys.executable, str(EXAMPLES / "minimal.py")],
                "js": ["node", str(EXAMPLES / "minimal.js")]}
    bots = [spawn("bot", table, "--broker", mosquitto, "--profile", f"engine-{which}",
                  "--engine", subprocess.list2cmdline(
                      [sys.executable, str(TEE), str(told[which]), *commands[which]]),
                  "--engine-budget", str(2 * SCALE))
            for which in ("py", "js")]
    timeout = 150 * SCALE
    results = [finish(bot, timeout) for bot in bots]
    host_rc, host_out, host_err = finish(host, timeout)
    assert host_rc == 0, host_out + host_err
    hashes = set(HASH.findall(host_out))
    for rc, out, err in results:
        assert rc == 0, out + err
        assert "protocol 1" in out and "deal verified" in out
        assert "stand-in" not in out, out  # the examples answered every decision in time
        hashes |= set(HASH.findall(out))
    assert len(hashes) == 1, f"final public hashes differ: {hashes}"
    verify = subprocess.run(stacks_command("verify", str(record)), cwd=ROOT,
                            capture_output=True, text=True, timeout=60 * SCALE)
    assert verify.returncode == 0, verify.stdout + verify.stderr
    data = read_record(record)
    assert verify_record(data).ok
    moments = _seat_moments(data)
    for which, path in told.items():
        messages = [json.loads(line) for line in path.read_text().splitlines()]
        kinds = [m["type"] for m in messages]
        assert kinds[0] == "hello" and "game" in kinds and "end" in kinds[-2:], (
            which, kinds[:3], kinds[-3:])
        game_line = next(m for m in messages if m["type"] == "game")
        assert game_line["game"] == game
        seat = game_line["seat"]
        decisions = [m for m in messages if m["type"] == "decide"]
        assert decisions, which
        for message in decisions:
            assert _shown_fairly(message["view"], seat, moments[seat]), (
                f"{which}: a view that is not what seat {seat} could see at any moment")
            visible = {int(card) for card in message["view"]["cards"]}
            for choice in message["legal"]:
                card = choice["action"].get("card")
                assert card is None or card in visible


Moment = tuple[str, set[int], list[list[int]]]
"""A seat's view of one moment with the other hands hidden, every card the seat had seen
by then, and the hands as they truly were."""


def _seat_moments(record: dict[str, Any]) -> dict[int, list[Moment]]:
    """Each seat's view of every moment of the recorded game, replayed from its seed."""
    definition = game_def(record["game"])
    seed = deal_seed(record["secret"], record["entropies"])
    game = definition.new_game(record["players"], seed,
                               definition.config_from_wire(record["rules"]), record["dealer"])
    moments: dict[int, list[Moment]] = {seat: [] for seat in range(record["players"])}
    seen: dict[int, set[int]] = {seat: set() for seat in moments}

    def note() -> None:
        for seat in moments:
            view = view_data(definition.view_for(game.state, seat), seat)
            seen[seat] |= {int(card) for card in view["cards"]}
            hands = [list(hand) for hand in game.state.hands]
            moments[seat].append((_others_hidden(view, seat), set(seen[seat]), hands))

    note()
    for batch in record["batches"][1:]:
        game.act(definition.action_from_wire(batch["action"]))
        note()
    return moments


def _shown_fairly(view: dict[str, Any], seat: int, moments: list[Moment]) -> bool:
    """``view`` is the seat's view of some moment, and each card it shows in another
    player's hand truly was there and had been seen by the seat (taken from a discard
    top, stolen from it): never one it could not see."""
    key = _others_hidden(view, seat)
    for shown, seen, hands in moments:
        if shown != key:
            continue
        known = [(other, card) for other, hand in enumerate(view["hands"]) if other != seat
                 for card in hand if card != -1]
        if all(card in seen and card in hands[other] for other, card in known):
            return True
    return False


def _others_hidden(view: dict[str, Any], seat: int) -> str:
    plain = dict(view)
    plain["hands"] = [hand if other == seat else [-1] * len(hand)
                      for other, hand in enumerate(view["hands"])]
    plain.pop("cards")
    return json.dumps(plain, sort_keys=True)




def test_a_slow_and_a_crashing_engine_seated_by_the_host_never_stall_the_table(
    mosquitto: str, tmp_path: Path
) -> None:
    """``stacks host --engine``: one program answers its first and third decisions late,
    another crashes at its second; the table plays on (the stand-in plays those turns, in
    words at the table), the crashed one is started again, and the game ends verified."""
    bad = Path(__file__).parents[1] / "netplay" / "engines" / "misbehaving.py"
    table = "misbehaving"
    record = tmp_path / "misbehaving.json"
    slow = subprocess.list2cmdline([sys.executable, str(bad), "slow"])
    crash = subprocess.list2cmdline([sys.executable, str(bad), "crash_once",
                                     str(tmp_path / "crashed")])
    host = spawn("host", "--headless", "--players", "3", "--bots", "1", "--table", table,
                 "--broker", mosquitto, "--record", str(record), "--bot-delay", "0",
                 "--block-window", "0.5", "--verify-wait", str(10 * SCALE),
                 "--engine", f"slow={slow}", "--engine", f"crashy={crash}",
                 "--engine-budget", str(0.5 * SCALE))
    rc, out, err = finish(host, 150 * SCALE)
    assert rc == 0, out + err
    assert "game over:" in out
    assert "slow: slow took longer than" in out and "the stand-in (medium) played" in out
    assert "crashy: crashy stopped (exit code 3)" in out
    assert "starting it again (1 of 3)" in out
    verify = subprocess.run(stacks_command("verify", str(record)), cwd=ROOT,
                            capture_output=True, text=True, timeout=60 * SCALE)
    assert verify.returncode == 0, verify.stdout + verify.stderr
