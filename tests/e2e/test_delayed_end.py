"""The end of a game with a spectator delay, with real processes on a real Mosquitto:
the headless host keeps its table up until its spectators have seen the end (every batch
once, the outcome and the deal check, the last batch at least the delay after a player's
game over); two Ctrl-C during that tail close it now (the spectators then get the rest at
once); a host killed during the tail and resumed releases the rest."""

from __future__ import annotations

import json
import signal
import subprocess
import time
from pathlib import Path

from tests.e2e.conftest import ROOT, SCALE, stacks_command
from tests.e2e.timed import Timed, spectator_saw_every_batch_once

SLACK = 0.4
"""Seconds the player's and the spectator's own delivery and printing may differ by (on a
loaded 2-core machine: the spectator delay itself is seconds)."""


def _host(home: Path, url: str, table: str, delay: float, *more: str) -> Timed:
    return Timed(home, "host", "--headless", "--players", "2", "--bots", "1",
                 "--bot-delay", "0.05", "--table", table, "--broker", url, "--profile", "host",
                 "--record", str(home / f"{table}.json"), "--block-window", "0.5",
                 "--turn-clock", "0", "--spectator-delay", f"{delay:g}", *more)


def _peers(home: Path, url: str, table: str) -> tuple[Timed, Timed]:
    watcher = Timed(home, "watch", table, "--headless", "--broker", url, "--profile", "watcher")
    bot = Timed(home, "bot", table, "--broker", url, "--think", "0.05", "--profile", "bot")
    return watcher, bot


def _tables(home: Path, url: str) -> list[dict[str, object]]:
    done = subprocess.run(stacks_command("tables", "--broker", url, "--json", "--timeout", "1"),
                          cwd=ROOT, capture_output=True, text=True, timeout=30 * SCALE,
                          check=True)
    return [json.loads(line) for line in done.stdout.splitlines()]


def test_a_delayed_spectator_sees_the_whole_game_to_its_end(
    mosquitto: str, tmp_path: Path,
) -> None:
    delay = 2.5
    host = _host(tmp_path, mosquitto, "tv", delay)
    watcher, bot = _peers(tmp_path, mosquitto, "tv")
    try:
        over = bot.said("game over:")
        assert watcher.finish() == 0, watcher.text()
        assert host.finish() == 0, host.text()
        assert bot.finish() == 0, bot.text()
        last = spectator_saw_every_batch_once(watcher, tmp_path / "tv.json")
        assert last - over >= delay - SLACK, (last - over, watcher.text())
        host.said("game over for the players; spectators are")
        host.said("spectators have seen the end")
        host.said("a spectator: deal verified")  # it waited for the spectator's check too
        assert "closed" not in "\n".join(line for _, line in watcher.err), watcher.text()
    finally:
        for proc in (host, watcher, bot):
            proc.stop()


def test_two_ctrl_c_during_the_tail_close_now_and_spectators_get_the_rest_at_once(
    mosquitto: str, tmp_path: Path,
) -> None:
    delay = 8.0
    host = _host(tmp_path, mosquitto, "rush", delay)
    watcher, bot = _peers(tmp_path, mosquitto, "rush")
    try:
        over = bot.said("game over:")
        host.said("game over for the players")
        listed = [t for t in _tables(tmp_path, mosquitto) if t["table"] == "rush"]
        assert [(t["status"], t["catching_up"]) for t in listed] == [("over", True)], listed
        host.proc.send_signal(signal.SIGINT)
        host.said("waiting for them to see the end; Ctrl-C again to close now", err=True)
        assert host.proc.poll() is None  # one Ctrl-C only says what it waits for
        host.proc.send_signal(signal.SIGINT)
        host.said("closing now", err=True)
        assert host.finish() == 0, host.text()
        assert watcher.finish() == 0, watcher.text()
        assert bot.finish() == 0, bot.text()
        last = spectator_saw_every_batch_once(watcher, tmp_path / "rush.json")
        assert last - over < delay, "the spectator was not given the rest at once"
        assert "closed" not in "\n".join(line for _, line in watcher.err), watcher.text()
        # Closed now, the table is done: nothing to resume.
        again = Timed(tmp_path, "host", "--headless", "--resume", "rush", "--broker",
                      mosquitto)
        assert again.finish() == 2 and "no unfinished table" in again.text(), again.text()
    finally:
        for proc in (host, watcher, bot):
            proc.stop()


def test_a_host_killed_during_the_tail_and_resumed_releases_the_rest(
    mosquitto: str, tmp_path: Path,
) -> None:
    delay = 4.0
    host = _host(tmp_path, mosquitto, "phoenix", delay)
    watcher, bot = _peers(tmp_path, mosquitto, "phoenix")
    resumed: Timed | None = None
    try:
        # The end as first seen by either (each says it a little after it happened; on a
        # loaded machine one may say it late).
        over = min(bot.said("game over:"), host.said("game over for the players"))
        host.proc.kill()
        host.finish()
        started = time.monotonic()
        resumed = Timed(tmp_path, "host", "--headless", "--resume", "phoenix", "--broker",
                        mosquitto, "--profile", "host")
        resumed.said("resuming table 'phoenix'")
        assert watcher.finish() == 0, watcher.text() + "\n" + resumed.text()
        assert resumed.finish() == 0, resumed.text()
        last = spectator_saw_every_batch_once(watcher, tmp_path / "phoenix.json")
        # Resumed within the delay, the host still kept it; resumed later, it had no more
        # to keep back. Either way the spectator never saw the end before its time.
        assert last - over >= delay - SLACK or started - over >= delay, (
            last - over, watcher.text())
        assert last > started
        again = Timed(tmp_path, "host", "--headless", "--resume", "phoenix", "--broker",
                      mosquitto)
        assert again.finish() == 2 and "no unfinished table" in again.text(), again.text()
    finally:
        for proc in (host, watcher, bot, *([resumed] if resumed else [])):
            proc.stop()
