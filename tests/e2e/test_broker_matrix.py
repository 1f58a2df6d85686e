"""The broker matrix: one full game between separate processes on every broker we claim.

Embedded (amqtt), Mosquitto, NATS's MQTT server (one node, and the shipped three-node
cluster with the peers spread over the nodes) and RabbitMQ's MQTT plugin (a node of the
test's own). On each: `stacks tables` finds the waiting table (through the node the
host is *not* on, in a cluster), a `stacks host --headless` with two host bots seats two
`stacks bot` peers, a `stacks watch --headless` spectator looks on, every peer verifies
the deal and every final public hash is the host's. One broker per module: start-up is
the cost (NATS cluster ~7 s, RabbitMQ ~10 s).
"""

from __future__ import annotations

import asyncio
import json
import re
import subprocess
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import aiomqtt
import pytest

from broker.mosquitto_runner import render_config
from broker.nats_runner import NatsNotInstalled, NatsServers, find_nats
from netplay.probe import PROBE_KEEPALIVE, Probe, go_silent, probe_deadline
from netplay.transport import BrokerAddress
from tests.e2e.conftest import ROOT, SCALE, free_port, mosquitto_exe, stacks_command, wait_for_port
from tests.e2e.rabbitmq import RabbitNode, rabbitmq_available
from tests.e2e.test_full_games import HASH, _finish, _spawn

BROKERS = ["embedded", "mosquitto", "nats", "nats-cluster", "rabbitmq"]


def _stop(proc: subprocess.Popen[bytes]) -> None:
    proc.terminate()
    try:
        proc.wait(5)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(5)


@pytest.fixture(scope="module")
def rabbitmq() -> Iterator[str]:
    """A RabbitMQ node of the module's own with the MQTT plugin (stock settings)."""
    if not rabbitmq_available():
        pytest.skip("rabbitmq-server is not installed (.ci/run installs it)")
    node = RabbitNode()
    node.start(timeout=90 * SCALE)
    try:
        yield node.url
    finally:
        node.stop()


@pytest.fixture(scope="module")
def nodes(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
          ) -> Iterator[list[str]]:
    """The MQTT URL of each node of the broker named by the parameter."""
    kind: str = request.param
    if kind in ("nats", "nats-cluster"):
        try:
            find_nats()
        except NatsNotInstalled:
            pytest.skip("nats-server is not installed (apt-get install nats-server; .ci/run "
                        "does)")
        with NatsServers(3 if kind == "nats-cluster" else 1) as servers:
            _NATS[tuple(servers.urls)] = servers
            yield servers.urls
            del _NATS[tuple(servers.urls)]
        return
    if kind == "rabbitmq":
        yield [request.getfixturevalue("rabbitmq")]
        return
    port = free_port()
    if kind == "mosquitto":
        exe = mosquitto_exe()
        if exe is None:
            pytest.skip("mosquitto is not installed")
        conf = tmp_path_factory.mktemp("mosquitto") / "mosquitto.conf"
        conf.write_text(render_config(bind="127.0.0.1", port=port, secure=False))
        cmd = [exe, "-c", str(conf)]
    else:
        cmd = stacks_command("broker", "--bind", f"127.0.0.1:{port}")
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    try:
        wait_for_port(port, proc)
        yield [f"mqtt://127.0.0.1:{port}"]
    finally:
        _stop(proc)


def _listed(url: str, table: str, timeout: float) -> dict[str, object]:
    """`stacks tables --broker url --json`'s line for ``table``, once it shows up."""
    deadline = time.monotonic() + timeout
    seen = ""
    while time.monotonic() < deadline:
        done = subprocess.run(stacks_command("tables", "--broker", url, "--json",
                                             "--timeout", "1.5"),
                              cwd=ROOT, capture_output=True, text=True, timeout=60 * SCALE)
        seen = done.stdout + done.stderr
        for line in done.stdout.splitlines():
            entry = json.loads(line)
            if entry["table"] == table:
                return dict(entry)
    raise AssertionError(f"table {table!r} never listed on {url}: {seen}")


_NATS: dict[tuple[str, ...], NatsServers] = {}
"""The NATS nodes behind each NATS parameter's URLs (to read their logs)."""


@pytest.mark.parametrize("nodes", BROKERS, indirect=True)
def test_a_full_game_on_every_broker(nodes: list[str], tmp_path: Path) -> None:
    servers = _NATS.get(tuple(nodes))
    stalls = servers.stalls() if servers is not None else 0
    try:
        _a_full_game(nodes, tmp_path / "first", "matrix")
    except AssertionError as first:
        # NATS 2.9's MQTT stalls 4 s at a time in a cluster (docs/deploy.md, "Stalls of
        # NATS 2.9's MQTT in a cluster"; nats-server#3116) and may drop a peer's
        # connection or hold its frames past the deal's window; and twice a bot on the
        # three-node cluster heard nothing more of the game with no stall in the nodes'
        # logs (cause unknown, see docs/deploy.md). So on the cluster after any
        # failure, and on one node after a logged stall, the game is played once more,
        # on a new table, and must then pass.
        if servers is None or (servers.stalls() == stalls and len(nodes) == 1):
            raise
        try:
            _a_full_game(nodes, tmp_path / "again", "matrix2")
        except AssertionError as again:
            raise AssertionError(f"failed twice; the first time, during a NATS stall: "
                                 f"{first}") from again


def _a_full_game(nodes: list[str], tmp_path: Path, table: str) -> None:
    tmp_path.mkdir()
    record = tmp_path / "record.json"
    host_url, watch_url = nodes[0], nodes[-1]
    bot_urls = [nodes[1 % len(nodes)], nodes[2 % len(nodes)]]
    host = _spawn("host", "--headless", "--players", "4", "--bots", "2", "--table", table,
                  "--broker", host_url, "--block-window", "0.3", "--record", str(record),
                  "--verify-wait", str(30 * SCALE))
    try:
        # Found from the node farthest from the host: retained announcement or live answer.
        entry = _listed(watch_url, table, 30 * SCALE)
        assert entry["players"] == 4 and entry["free"] == 2 and entry["status"] == "lobby"
        # Verbose: should it fail, its log says what it heard (stdout stays JSON lines).
        watcher = _spawn("watch", table, "--headless", "--broker", watch_url, "--verbose")
        bots = [_spawn("bot", table, "--broker", url, "--name", f"peer{i}")
                for i, url in enumerate(bot_urls)]
        timeout = 120 * SCALE
        results = [_finish(bot, timeout) for bot in bots]
        watch_rc, watch_out, watch_err = _finish(watcher, timeout)
        host_rc, host_out, host_err = _finish(host, timeout)
    finally:
        if host.poll() is None:
            host.kill()
            host.communicate()
    assert host_rc == 0, host_out + host_err
    for seat in (1, 2):  # "seat 1: deal verified" or "NAME, seat 1: deal verified"
        assert re.search(rf"seat {seat}\)?: deal verified", host_out), host_out
    hashes = set(HASH.findall(host_out))
    for rc, out, err in results:
        assert rc == 0, out + err
        assert "deal verified" in out, out
        hashes |= set(HASH.findall(out))
    assert watch_rc == 0, watch_out[-2000:] + watch_err[-6000:]
    lines = [json.loads(line) for line in watch_out.splitlines()]
    batches = sorted({line["batch"] for line in lines if "event" in line})
    # From where it came in (a snapshot if it joined after the deal) to the end, no gap.
    assert batches == list(range(batches[0], batches[-1] + 1)), "the spectator's stream has a gap"
    verification = lines[-1]["verification"]
    assert verification["ok"] is True
    hashes.add(verification["hash"])
    assert len(hashes) == 1, f"final public hashes differ: {hashes}"


def test_a_refused_login_is_reported_as_a_refusal(rabbitmq: str) -> None:
    url = rabbitmq.replace("mqtt://", "mqtt://guest:wrong@")
    started = time.monotonic()
    done = subprocess.run(stacks_command("bot", "refusal", "--broker", url), cwd=ROOT,
                          capture_output=True, text=True, timeout=60 * SCALE)
    assert done.returncode == 1
    assert "refused the connection: bad user name or password" in done.stderr, done.stderr
    assert "Check the user name and password" in done.stderr
    assert "Is the host running" not in done.stderr
    assert "guest:wrong" not in done.stderr  # the password is never echoed
    assert time.monotonic() - started < 14 * SCALE  # said at once, not after the reach timeout


IN_TIME = {"embedded": False, "mosquitto": True, "nats": True, "nats-cluster": True,
           "rabbitmq": True}
"""Whether each broker fires a silent client's will in time (``netplay.probe``), so that
a host there lets presence rest on it. Measured (keepalive 2 s, from the
CONNACK): amqtt in its own process 11.0 s (past the 10 s deadline), Mosquitto 2.0.11
5.4 s, NATS 2.9 3.0 s (one node and a cluster), RabbitMQ 3.10 6.0 s."""


@pytest.mark.parametrize("nodes", BROKERS, indirect=True)
def test_the_probe_finds_out_whether_a_broker_fires_a_silent_clients_will(
    nodes: list[str], request: pytest.FixtureRequest,
) -> None:
    delay = asyncio.run(_probe(nodes[0]))
    kind = request.node.callspec.params["nodes"]
    said = "never" if delay is None else f"after {delay:.2f} s"
    print(f"\n{kind}: the will of a silent client came {said}")
    in_time = delay is not None and delay <= probe_deadline(PROBE_KEEPALIVE)
    assert in_time == IN_TIME[kind], said


async def _probe(url: str) -> float | None:
    """Seconds from the probe's CONNACK to its will (``None``: not within the deadline and
    5 s more)."""
    address = BrokerAddress.parse(url)
    probe = Probe.new(f"sstacks/v1/probe/peer/{uuid.uuid4().hex}/out")
    async with aiomqtt.Client(address.host, address.port, username=address.username,
                              password=address.password) as client:
        await client.subscribe(probe.topic, qos=0)
        loop = asyncio.get_running_loop()
        silent: asyncio.Future[float] = loop.create_future()
        holding = asyncio.create_task(go_silent(
            probe, address.host, address.port, username=address.username,
            password=address.password, connected=silent, hold=probe_deadline() + 5))
        try:
            since = await asyncio.wait_for(silent, 30 * SCALE)
            async with asyncio.timeout(probe_deadline(probe.keepalive) + 5):
                async for message in client.messages:
                    if message.payload == probe.will:
                        return loop.time() - since
        except TimeoutError:
            return None
        finally:
            holding.cancel()
    return None
