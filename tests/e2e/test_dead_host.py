"""A dead host is seen by real processes on a real Mosquitto: after ``kill -9`` of the
host, ``stacks tables --json`` says ``"status": "offline"`` (never open seats), and a
headless bot and spectator say "host offline since ..." and exit 4 once the host has been
gone longer than ``--host-timeout``; a host that closes its table makes them exit 3."""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import threading
import time
from pathlib import Path

from tests.e2e.conftest import ROOT, SCALE, stacks_command


def _env(tmp_path: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["HOME"] = str(tmp_path)
    env["XDG_CONFIG_HOME"] = str(tmp_path / "config")
    env["XDG_DATA_HOME"] = str(tmp_path / "data")
    return env


def _spawn(tmp_path: Path, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(stacks_command(*args), cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=_env(tmp_path))


def _finish(proc: subprocess.Popen[str], timeout: float) -> tuple[int, str, str]:
    try:
        out, err = proc.communicate(timeout=timeout * SCALE)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
        raise AssertionError(f"{proc.args} did not finish:\n{out}\n{err}") from None
    return proc.returncode, out, err


def _tables(tmp_path: Path, url: str) -> list[dict[str, object]]:
    done = subprocess.run(stacks_command("tables", "--broker", url, "--json"), cwd=ROOT,
                          capture_output=True, text=True, env=_env(tmp_path),
                          timeout=30 * SCALE, check=True)
    return [json.loads(line) for line in done.stdout.splitlines()]


def _wait_for(what: str, check: object, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout * SCALE
    while time.monotonic() < deadline:
        if callable(check) and check():
            return
        time.sleep(0.1)
    raise AssertionError(f"never: {what}")


def _line_with(proc: subprocess.Popen[str], words: str, timeout: float) -> str:
    """The first line of ``proc``'s stdout holding ``words`` (read in a thread: a blocking
    read can't time out)."""
    assert proc.stdout is not None
    lines: queue.Queue[str] = queue.Queue()
    stdout = proc.stdout

    def read() -> None:
        for line in stdout:
            lines.put(line)
            if words in line:
                return
        lines.put("")

    threading.Thread(target=read, daemon=True).start()
    deadline = time.monotonic() + timeout * SCALE
    seen = []
    while (left := deadline - time.monotonic()) > 0:
        try:
            line = lines.get(timeout=left)
        except queue.Empty:
            break
        if not line:
            break
        seen.append(line)
        if words in line:
            return line
    raise AssertionError(f"never a line with {words!r}: {seen}")


def test_a_killed_host_is_listed_offline_and_its_bot_and_spectator_give_up(
    mosquitto: str, tmp_path: Path,
) -> None:
    host = _spawn(tmp_path, "host", "--headless", "--players", "2", "--bots", "1",
                  "--bot-delay", "0.3", "--table", "doomed", "--broker", mosquitto,
                  "--profile", "host", "--record", str(tmp_path / "doomed.json"))
    bot = _spawn(tmp_path, "bot", "doomed", "--broker", mosquitto, "--think", "0.3",
                 "--profile", "bot", "--host-timeout", "3")
    watch = _spawn(tmp_path, "watch", "doomed", "--headless", "--broker", mosquitto,
                   "--profile", "watch", "--host-timeout", "3")
    try:
        assert watch.stdout is not None
        first = watch.stdout.readline()  # the game is on: the spectator prints events
        assert json.loads(first)["batch"] >= 1, first
        listed = _tables(tmp_path, mosquitto)
        assert [(t["table"], t["status"]) for t in listed] == [("doomed", "playing")]
        os.kill(host.pid, signal.SIGKILL)
        host.wait(10)

        rows: list[dict[str, object]] = []

        def offline() -> bool:
            rows[:] = _tables(tmp_path, mosquitto)
            return bool(rows) and rows[0]["status"] == "offline"

        _wait_for("the table listed offline", offline)
        assert rows[0]["free"] == 0 and rows[0]["seated"] == [] and rows[0]["players"] == 2

        bot_rc, _, bot_err = _finish(bot, 60)
        watch_rc, _, watch_err = _finish(watch, 60)
        for rc, err in ((bot_rc, bot_err), (watch_rc, watch_err)):
            assert rc == 4, err
            assert "host offline since " in err and "waiting for it to come back" in err, err
            assert "longer than 3 s (--host-timeout): giving up" in err, err
    finally:
        for proc in (host, bot, watch):
            if proc.poll() is None:
                proc.kill()
                proc.communicate()


def test_a_table_closed_by_its_host_makes_bot_and_spectator_exit_3(
    mosquitto: str, tmp_path: Path,
) -> None:
    host = _spawn(tmp_path, "host", "--headless", "--players", "3", "--table", "brief",
                  "--broker", mosquitto, "--profile", "host",
                  "--record", str(tmp_path / "brief.json"))
    bot = _spawn(tmp_path, "bot", "brief", "--broker", mosquitto, "--profile", "bot")
    watch = _spawn(tmp_path, "watch", "brief", "--headless", "--broker", mosquitto,
                   "--profile", "watch")
    try:
        def seated() -> bool:
            rows = _tables(tmp_path, mosquitto)
            return bool(rows) and rows[0]["seated"] != []

        _wait_for("the bot seated", seated)
        _line_with(host, "watching", 30)  # the host says when a spectator has joined
        host.send_signal(signal.SIGTERM)  # a clean stop: the host takes the table down
        _finish(host, 30)
        bot_rc, _, bot_err = _finish(bot, 30)
        watch_rc, _, watch_err = _finish(watch, 30)
        assert bot_rc == 3 and "the host closed table 'brief' before the game ended" in bot_err
        assert watch_rc == 3 and "closed table 'brief'" in watch_err, watch_err
        assert _tables(tmp_path, mosquitto) == []  # closed, not offline: no will fired
        # A spectator who comes after it finds the closed table's last word and says so,
        # not "no table announced ... is the name right?".
        late = _spawn(tmp_path, "watch", "brief", "--headless", "--broker", mosquitto,
                      "--profile", "late", "--host-timeout", "2")
        late_rc, _, late_err = _finish(late, 60)
        assert late_rc == 3, late_err
        assert "table 'brief' was closed by its host and has not opened again" in late_err
    finally:
        for proc in (host, bot, watch):
            if proc.poll() is None:
                proc.kill()
                proc.communicate()


def test_a_frozen_host_is_listed_offline_before_any_will_and_its_bot_gives_up(
    mosquitto: str, tmp_path: Path,
) -> None:
    host = _spawn(tmp_path, "host", "--headless", "--players", "2", "--bots", "1",
                  "--bot-delay", "0.3", "--table", "frozen", "--broker", mosquitto,
                  "--profile", "host", "--record", str(tmp_path / "frozen.json"))
    bot = _spawn(tmp_path, "bot", "frozen", "--broker", mosquitto, "--think", "0.3",
                 "--profile", "bot", "--host-timeout", "2")
    try:
        def playing() -> bool:
            rows = _tables(tmp_path, mosquitto)
            return bool(rows) and rows[0]["status"] == "playing"

        _wait_for("the game on", playing)
        os.kill(host.pid, signal.SIGSTOP)  # no will until the broker's keepalive (15 s)
        frozen_at = time.monotonic()
        rows = _tables(tmp_path, mosquitto)  # its heartbeats stopped: offline
        assert [(r["status"], r["free"]) for r in rows] == [("offline", 0)], rows
        bot_rc, _, bot_err = _finish(bot, 60)
        assert bot_rc == 4, bot_err
        assert "host offline since " in bot_err and "giving up" in bot_err, bot_err
        # Silence (5 s) plus the limit (2 s), well before the broker's keepalive would.
        assert time.monotonic() - frozen_at < 14 * SCALE
    finally:
        if host.poll() is None:
            os.kill(host.pid, signal.SIGCONT)
        for proc in (host, bot):
            if proc.poll() is None:
                proc.kill()
                proc.communicate()


def test_bot_and_spectator_wait_for_a_killed_host_that_resumes_and_play_on(
    mosquitto: str, tmp_path: Path,
) -> None:
    """Bots and spectators wait as long as the table can come back (a day by default, not
    120 s, so a host that needs two minutes to come back with ``--resume`` still finds
    them), say so, and play on when it does."""
    short = ("--rule", "win_chips=3", "--rule", "win_min_each_colour=1")
    host = _spawn(tmp_path, "host", "--headless", "--players", "2", "--bots", "1",
                  "--bot-delay", "0.2", "--table", "phoenix", "--broker", mosquitto,
                  "--profile", "host", *short)
    bot = _spawn(tmp_path, "bot", "phoenix", "--broker", mosquitto, "--think", "0.2",
                 "--profile", "bot")
    watch = _spawn(tmp_path, "watch", "phoenix", "--headless", "--broker", mosquitto,
                   "--profile", "watch")
    back: subprocess.Popen[str] | None = None
    try:
        assert watch.stdout is not None and bot.stderr is not None
        first = watch.stdout.readline()  # the game is on
        assert json.loads(first)["batch"] >= 1, first
        os.kill(host.pid, signal.SIGKILL)
        host.wait(10)
        said = bot.stderr.readline()
        while "host offline since" not in said:
            assert said, "the bot ended without a word of the host"
            said = bot.stderr.readline()
        assert "waiting for it to come back" in said and "--resume" in said, said
        assert "giving up after 24 h (--host-timeout)" in said, said
        back = _spawn(tmp_path, "host", "--headless", "--resume", "phoenix",
                      "--broker", mosquitto, "--profile", "host")
        bot_rc, _, bot_err = _finish(bot, 120)
        watch_rc, watch_out, watch_err = _finish(watch, 120)
        assert bot_rc == 0, bot_err
        assert watch_rc == 0, watch_err
        assert "the host is back after" in bot_err, bot_err
        assert '"verification"' in watch_out, watch_out[-2000:]
    finally:
        for proc in (host, bot, watch, back):
            if proc is not None and proc.poll() is None:
                proc.kill()
                proc.communicate()
