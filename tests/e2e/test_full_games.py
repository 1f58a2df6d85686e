"""Full games between separate processes over real brokers (Mosquitto and the embedded one).

Every seat is a ``stacks bot`` process, the host a ``stacks host --headless`` process, and
a ``stacks watch --headless`` process looks on. At the end every peer must report the deal
verified, every peer's final public hash must be the host's, and ``stacks verify`` must
accept the host's record.
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from tests.e2e.conftest import ROOT, SCALE, stacks_command, wait_for_table

HASH = re.compile(r"final public hash: ([0-9a-f]{32})")


def _spawn(*args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        stacks_command(*args), cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True,
    )


def _finish(proc: subprocess.Popen[str], timeout: float) -> tuple[int, str, str]:
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
        raise AssertionError(f"{proc.args} did not finish:\n{out}\n{err}") from None
    return proc.returncode, out, err


def play_table(url: str, players: int, tmp_path: Path, table: str) -> dict[str, object]:
    record = tmp_path / f"{table}.json"
    host = _spawn("host", "--headless", "--players", str(players), "--table", table,
                  "--broker", url, "--block-window", "0.5", "--record", str(record),
                  "--verify-wait", str(10 * SCALE))
    wait_for_table(url, table, host)
    watcher = _spawn("watch", table, "--headless", "--broker", url)
    bots = [_spawn("bot", table, "--broker", url, "--name", f"bot{i}") for i in range(players)]
    timeout = 120 * SCALE
    results = [_finish(bot, timeout) for bot in bots]
    watch_rc, watch_out, watch_err = _finish(watcher, timeout)
    host_rc, host_out, host_err = _finish(host, timeout)
    return {
        "record": record, "bots": results, "watch": (watch_rc, watch_out, watch_err),
        "host": (host_rc, host_out, host_err),
    }


@pytest.mark.parametrize("players", [2, 4, 6])
def test_bot_peers_play_a_full_game_and_everyone_verifies_the_deal(
    broker_url: str, players: int, tmp_path: Path
) -> None:
    table = f"e2e{players}"
    run = play_table(broker_url, players, tmp_path, table)
    host_rc, host_out, host_err = run["host"]  # type: ignore[misc]
    assert host_rc == 0, host_out + host_err
    assert "game over:" in host_out
    for seat in range(players):
        assert f"seat {seat + 1}: deal verified" in host_out, host_out  # counted from 1
    hashes = set(HASH.findall(host_out))
    for rc, out, err in run["bots"]:  # type: ignore[attr-defined]
        assert rc == 0, out + err
        assert "deal verified" in out
        hashes |= set(HASH.findall(out))
    watch_rc, watch_out, watch_err = run["watch"]  # type: ignore[misc]
    assert watch_rc == 0, watch_err
    lines = [json.loads(line) for line in watch_out.splitlines()]
    assert any("event" in line for line in lines)
    verification = lines[-1]["verification"]
    assert verification["ok"] is True
    hashes.add(verification["hash"])
    assert len(hashes) == 1, f"final public hashes differ: {hashes}"
    verify = subprocess.run(stacks_command("verify", str(run["record"])), cwd=ROOT,
                            capture_output=True, text=True, timeout=60 * SCALE)
    assert verify.returncode == 0, verify.stdout + verify.stderr
    assert verify.stdout.startswith("verified")


def test_stacks_verify_rejects_a_tampered_record(mosquitto: str, tmp_path: Path) -> None:
    run = play_table(mosquitto, 2, tmp_path, "tamper")
    record_path: Path = run["record"]  # type: ignore[assignment]
    data = json.loads(record_path.read_text())
    # Give the first card drawn in the second batch to somebody else's hand face.
    for batch in data["batches"][1:]:
        drawn = [e for e in batch["events"] if e["type"] == "drawn"]
        if drawn:
            drawn[0]["cards"][0] = (drawn[0]["cards"][0] + 1) % 120
            break
    tampered = tmp_path / "tampered.json"
    tampered.write_text(json.dumps(data))
    result = subprocess.run(stacks_command("verify", str(tampered)), cwd=ROOT,
                            capture_output=True, text=True, timeout=60 * SCALE)
    assert result.returncode == 1
    assert "NOT verified" in result.stdout
