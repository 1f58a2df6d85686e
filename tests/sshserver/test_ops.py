"""What the operator of ``stacks serve`` sees and does: the metrics scraped during games
of held tables and checked against what happened, the health check with the database
stopped, the JSON log read line by line, the authorized keys reloaded on SIGHUP.

Each server is a real ``stacks serve`` in its own process (`tests.sshserver.conftest`);
the players are OpenSSH clients whose sessions run ``held_bot.py`` (a headless player
of a held table, as in ``test_kill_trial``).
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest

from netplay.record import read_record
from sshserver.metrics import parse_samples
from tests.postgres import Cluster
from tests.ratings.conftest import postgres  # noqa: F401  (the cluster fixture)
from tests.sshserver.conftest import (
    TIMEOUT,
    Keys,
    Server,
    ServerFactory,
    Tmux,
    alive,
    cmdline,
    eventually,
    processes_with_env,
)
from tests.sshserver.test_kill_trial import HELD_BOT, Players
from tests.sshserver.test_play import GAME_TIMEOUT
from tests.support import SCALE, free_port, wait_until


@pytest.fixture
def players(keys: Keys, tmp_path: Path) -> Iterator[Players]:
    made = Players(keys, tmp_path)
    try:
        yield made
    finally:
        made.close()


def _get(port: int, path: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}",
                                    timeout=TIMEOUT) as reply:
            return reply.status, reply.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


def _scrape(port: int) -> Mapping[str, float]:
    status, text = _get(port, "/metrics")
    assert status == 200, text
    return parse_samples(text)


def _tables(samples: Mapping[str, float]) -> float:
    return sum(v for k, v in samples.items() if k.startswith("stacks_tables{"))


def _until(condition: object, what: str, server: Server) -> None:
    wait_until(condition, what, GAME_TIMEOUT / SCALE, interval=0.1,  # type: ignore[arg-type]
               diagnostics=lambda: f"the server's log:\n{server.output()}")


# -- the metrics -----------------------------------------------------------------------------------


def test_the_metrics_count_the_sessions_tables_games_and_answers_of_held_tables(
    serve: ServerFactory, keys: Keys, players: Players, broker: str, tmp_path: Path,
) -> None:
    who, names = ["p0", "p1"], ["t0", "t1"]
    metrics = free_port()
    server = serve("--broker", broker, "--session-command", f"{sys.executable} {HELD_BOT}",
                   "--metrics-port", str(metrics),
                   authorized="".join(keys.public(name) for name in who), accounts=False)
    before = _scrape(metrics)
    assert before["stacks_sessions"] == 0 and _tables(before) == 0
    assert before["stacks_games_finished_total"] == 0

    # A key the server does not know is refused, and counted by its cause.
    stranger = server.ssh_argv(keys.path("stranger"), "stranger", tty=False)
    assert subprocess.run(stranger, capture_output=True, timeout=TIMEOUT).returncode != 0
    for name, table in zip(who, names, strict=True):
        players.join(server, name, table)

    # During the games: both sessions connected, both tables held, their programs'
    # memory read.
    during: dict[str, Mapping[str, float]] = {}

    def both_playing() -> bool:
        samples = _scrape(metrics)
        during["samples"] = samples
        return samples["stacks_sessions"] == 2 and _tables(samples) == 2
    _until(both_playing, "two sessions at two held tables", server)
    samples = during["samples"]
    assert samples['stacks_logins_refused_total{cause="unknown_key"}'] == 1
    assert samples['stacks_logins_refused_total{cause="server_full"}'] == 0
    assert samples["stacks_session_processes_measured"] == 2
    assert samples["stacks_session_memory_bytes"] > 2 * 5 * 2**20  # two Python programs

    # After: both games finished, the players gone; every action a player's frame
    # brought (each batch its signed frame made) had its answer timed.
    _until(lambda: server.output().count(": game over") == 2, "both games over", server)
    records = tmp_path / "home" / "data" / "records"
    _until(lambda: len(list(records.glob("*.json"))) == 2, "both records", server)
    _until(lambda: _scrape(metrics)["stacks_sessions"] == 0, "the players to leave", server)
    _until(lambda: _scrape(metrics)["stacks_ratings_pending"] == 0, "the games stored",
           server)
    after = _scrape(metrics)
    assert after["stacks_games_finished_total"] == 2
    # The tables stay a while for players coming back (the keeper's linger), ended.
    assert _tables(after) == 2
    assert after['stacks_tables{state="over"}'] + after['stacks_tables{state="public_over"}'] \
        == 2
    signed = sum(1 for path in records.glob("*.json")
                 for batch in read_record(path)["batches"] if batch.get("proof"))
    answered = after["stacks_action_own_view_seconds_count"]
    assert signed > 0
    assert signed <= answered <= signed + 8, (signed, answered)  # + a few refused presses
    assert after['stacks_action_own_view_seconds_bucket{le="+Inf"}'] == answered
    assert 0 < after["stacks_action_own_view_seconds_sum"] < answered * 5.0
    print(f"\n{answered:.0f} actions answered at the host, mean "
          f"{after['stacks_action_own_view_seconds_sum'] / answered * 1000:.2f} ms")
    assert after["stacks_database_errors_total"] == 0
    assert after["process_resident_memory_bytes"] > 0


# -- the health check ------------------------------------------------------------------------------


def test_the_health_check_names_the_database_when_it_is_stopped_and_recovers(
    serve: ServerFactory, broker: str, request: pytest.FixtureRequest,
) -> None:
    cluster: Cluster = request.getfixturevalue("postgres")
    url = cluster.create()
    metrics = free_port()
    serve("--open", "--broker", broker, "--database", url, "--metrics-port", str(metrics))
    status, body = _get(metrics, "/healthz")
    assert (status, json.loads(body)) == (200, {"database": "ok", "broker": "ok"})

    cluster.pause()  # the test run's own cluster, started again below whatever happens
    try:
        status, body = _get(metrics, "/healthz")
        said = json.loads(body)
        assert status == 503, body
        assert said["failing"] == ["database"] and said["broker"] == "ok"
        assert "the database does not answer" in said["database"], said
    finally:
        cluster.resume()
    eventually(lambda: _get(metrics, "/healthz")[0] == 200, "the database back")


def test_the_health_check_names_a_broker_that_does_not_answer() -> None:
    from sshserver.health import broker_health

    nobody = f"mqtt://127.0.0.1:{free_port()}"
    said = asyncio.run(broker_health(nobody))
    assert said != "ok" and "does not answer" in said
    assert asyncio.run(broker_health(None)) == "not started"


# -- the JSON log and SIGHUP -----------------------------------------------------------------------


def _can_log_in(server: Server, key: Path) -> bool:
    import asyncssh

    async def attempt() -> bool:
        try:
            conn = await asyncssh.connect(
                "127.0.0.1", server.port, username="someone", known_hosts=None,
                client_keys=[str(key)], agent_path=None, config=[],
                connect_timeout=TIMEOUT)
        except asyncssh.PermissionDenied:
            return False
        conn.close()
        await conn.wait_closed()
        return True

    return asyncio.run(attempt())


def test_sighup_reloads_the_authorized_keys_and_the_json_log_is_one_object_a_line(
    serve: ServerFactory, keys: Keys,
) -> None:
    alice, bob = keys.public("alice"), keys.public("bobby")  # the same length of line
    assert len(alice) == len(bob)
    server = serve("--log-format", "json", authorized=alice, accounts=False)
    assert _can_log_in(server, keys.path("alice"))
    assert not _can_log_in(server, keys.path("bobby"))

    # Bob's key in Alice's place, the file's size and time kept: only the signal tells.
    path = server.home / "authorized_keys"
    stamp = path.stat()
    path.write_text(bob)
    os.utime(path, ns=(stamp.st_atime_ns, stamp.st_mtime_ns))
    assert _can_log_in(server, keys.path("alice"))  # not re-read by itself
    os.kill(server.pid, signal.SIGHUP)
    eventually(lambda: '"keys_reloaded"' in server.output(), "the keys reloaded")
    assert not _can_log_in(server, keys.path("alice"))
    assert _can_log_in(server, keys.path("bobby"))
    assert server.stop() == 0

    lines = server.output().splitlines()
    assert lines
    parsed = [json.loads(line) for line in lines]  # every line, whatever logged it
    for record in parsed:
        assert {"time", "level", "logger", "message", "event"} <= set(record), record
    events = [record["event"] for record in parsed]
    assert events[0] == "listening" and events[-1] == "stopped"
    refused = [r for r in parsed if r["event"] == "key_refused"]
    assert len(refused) == 2 and all(r["peer"] == "127.0.0.1" for r in refused)
    reloaded = [r for r in parsed if r["event"] == "keys_reloaded"]
    assert [r["keys"] for r in reloaded] == [1]
    assert "status" in events


def test_a_server_in_a_terminal_stops_when_the_terminal_closes(
    tmux: Tmux, tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    port = free_port()
    tmux.open("serve", ["env", f"STACKS_HOME={home}", sys.executable, "-m", "stacks.cli",
                        "serve", "--open", "--bind", "127.0.0.1", "--ssh-port", str(port),
                        "--no-fork"])
    tmux.wait_for("serve", "Ctrl-C to stop")
    found = [pid for pid in processes_with_env(f"STACKS_HOME={home}")
             if "stacks.cli" in cmdline(pid)]
    assert len(found) == 1, found
    try:
        tmux.run("kill-session", "-t", "serve")  # the terminal hangs up: SIGHUP
        eventually(lambda: not alive(found[0]), "the server to stop with its terminal")
    finally:
        if alive(found[0]):
            os.kill(found[0], signal.SIGKILL)
