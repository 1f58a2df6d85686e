"""Classic Sequence between separate processes: the game named in the announcement.

The host (``stacks host --headless --game sequence``) seats ``stacks bot`` processes that
learn the game from the table's announcement, a ``stacks watch --headless`` spectator
looks on; every peer must verify the deal, all final public hashes must agree, and
``stacks verify`` must accept the record (and refuse a tampered one).
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from tests.e2e.conftest import ROOT, SCALE, stacks_command, wait_for_table
from tests.e2e.test_full_games import HASH
from tests.e2e.test_full_games import _finish as finish
from tests.e2e.test_full_games import _spawn as spawn


@pytest.mark.parametrize(("players", "host_bots"), [(2, 0), (4, 1)])
def test_bot_processes_play_classic_sequence_and_everyone_verifies(
    mosquitto: str, tmp_path: Path, players: int, host_bots: int
) -> None:
    table = f"classic{players}"
    record = tmp_path / f"{table}.json"
    host = spawn("host", "--headless", "--game", "sequence", "--players", str(players),
                  "--bots", str(host_bots), "--table", table, "--broker", mosquitto,
                  "--record", str(record), "--verify-wait", str(10 * SCALE))
    wait_for_table(mosquitto, table, host)
    watcher = spawn("watch", table, "--headless", "--broker", mosquitto)
    strategies = ["medium", "easy", "greedy"]  # greedy: a Stacks name, plays medium here
    bots = [spawn("bot", table, "--broker", mosquitto, "--name", f"bot{i}",
                   "--strategy", strategies[i % 3]) for i in range(players - host_bots)]
    timeout = 120 * SCALE
    results = [finish(bot, timeout) for bot in bots]
    watch_rc, watch_out, watch_err = finish(watcher, timeout)
    host_rc, host_out, host_err = finish(host, timeout)
    assert host_rc == 0, host_out + host_err
    assert "game over:" in host_out
    if players == 4:
        assert re.search(r"game over: (Blue|Green) \(.+, .+\) win", host_out), host_out
    hashes = set(HASH.findall(host_out))
    for rc, out, err in results:
        assert rc == 0, out + err
        assert "deal verified" in out
        hashes |= set(HASH.findall(out))
    assert watch_rc == 0, watch_err
    lines = [json.loads(line) for line in watch_out.splitlines()]
    events = [line["event"]["type"] for line in lines if "event" in line]
    assert "placed" in events and "sequence" in events  # (the deal may precede its join)
    verification = lines[-1]["verification"]
    assert verification["ok"] is True
    hashes.add(verification["hash"])
    assert len(hashes) == 1, f"final public hashes differ: {hashes}"
    data = json.loads(record.read_text())
    assert data["game"] == "sequence"
    verify = subprocess.run(stacks_command("verify", str(record)), cwd=ROOT,
                            capture_output=True, text=True, timeout=60 * SCALE)
    assert verify.returncode == 0, verify.stdout + verify.stderr
    assert verify.stdout.startswith("verified")
    # A chip moved in the record is caught by the replay.
    for batch in data["batches"][1:]:
        placed = [e for e in batch["events"] if e["type"] == "placed"]
        if placed:
            placed[0]["cell"] = (placed[0]["cell"] + 1) % 100
            break
    tampered = tmp_path / "tampered.json"
    tampered.write_text(json.dumps(data))
    result = subprocess.run(stacks_command("verify", str(tampered)), cwd=ROOT,
                            capture_output=True, text=True, timeout=60 * SCALE)
    assert result.returncode == 1 and "NOT verified" in result.stdout
