"""Running NATS's MQTT server with the configs shipped in ``broker/nats/``.

One node (``single.conf``) or the three-node cluster (``cluster-a/b/c.conf``), on free
loopback ports and a throw-away JetStream directory: for the broker matrix tests and
``stacks bench load --broker nats-cluster``. The shipped files are what a deployment
starts with ``nats-server -c``; here only their ports and store directory change.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import socket
import subprocess
import tempfile
import time
from importlib import resources
from pathlib import Path
from types import TracebackType
from typing import Self

NODES = ("a", "b", "c")
#: The shipped files' ports: client 4222+i, cluster 6222+i, MQTT 1883+i for node i.
_SHIPPED_CLIENT, _SHIPPED_CLUSTER, _SHIPPED_MQTT = 4222, 6222, 1883


class NatsNotInstalled(RuntimeError):
    def __init__(self) -> None:
        super().__init__("nats-server is not installed (Debian/Ubuntu: apt-get install "
                         "nats-server)")


def find_nats() -> str:
    for candidate in (shutil.which("nats-server"), "/usr/sbin/nats-server",
                      "/usr/local/bin/nats-server"):
        if candidate and Path(candidate).exists():
            return candidate
    raise NatsNotInstalled()


def shipped(name: str) -> str:
    return resources.files("broker").joinpath("nats", name).read_text()


def _free_ports(count: int) -> list[int]:
    sockets = [socket.socket() for _ in range(count)]
    try:
        for sock in sockets:
            sock.bind(("127.0.0.1", 0))
        return [sock.getsockname()[1] for sock in sockets]
    finally:
        for sock in sockets:
            sock.close()


def render(text: str, ports: dict[int, int], store_dir: Path, bind: str = "127.0.0.1") -> str:
    """A shipped config with its ports mapped by ``ports`` and its JetStream directory."""
    def port(match: re.Match[str]) -> str:
        number = int(match.group(2))
        return f"{bind}:{ports.get(number, number)}"

    text = re.sub(r"(127\.0\.0\.1|0\.0\.0\.0):(\d+)", port, text)
    return re.sub(r"(?m)^(\s*store_dir:).*$", rf"\1 {store_dir}", text)


_SHM = "/dev/shm" if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK) else None
"""Where the nodes' JetStream lives: in memory where the machine has a tmpfs. These nodes
are throwaway (tests, benchmarks), and on disk every fsync of the cluster's consensus
queued behind the machine's other writes."""


class NatsServers:
    """One NATS node or the shipped three-node cluster, as child processes.

    ``urls`` lists each node's MQTT address, in node order.
    """

    def __init__(self, nodes: int = 1) -> None:
        if nodes not in (1, 3):
            raise ValueError("the shipped configs are for one node or three")
        self.nodes = nodes
        self.urls: list[str] = []
        self._procs: list[subprocess.Popen[bytes]] = []
        self._dir: tempfile.TemporaryDirectory[str] | None = None

    def start(self, timeout: float = 20.0) -> None:
        exe = find_nats()
        self._dir = tempfile.TemporaryDirectory(prefix="stacks-nats-", dir=_SHM)
        folder = Path(self._dir.name)
        free = iter(_free_ports(3 * self.nodes))
        ports: dict[int, int] = {}
        for i in range(self.nodes):
            for base in (_SHIPPED_CLIENT, _SHIPPED_CLUSTER, _SHIPPED_MQTT):
                ports[base + i] = next(free)
        names = ["single.conf"] if self.nodes == 1 else [f"cluster-{n}.conf" for n in NODES]
        mqtt_ports = []
        for i, name in enumerate(names):
            store = folder / f"js-{i}"
            conf = folder / name
            conf.write_text(render(shipped(name), ports, store))
            mqtt_ports.append(ports[_SHIPPED_MQTT + i])
            log = (folder / f"{name}.log").open("wb")
            self._procs.append(subprocess.Popen([exe, "-c", str(conf)], stdout=log,
                                                stderr=subprocess.STDOUT))
        self.urls = [f"mqtt://127.0.0.1:{port}" for port in mqtt_ports]
        try:
            self._wait_ready(mqtt_ports, timeout)
        except BaseException:
            self.stop()
            raise

    def _wait_ready(self, mqtt_ports: list[int], timeout: float) -> None:
        """Every node takes an MQTT client (a cluster's JetStream needs its peers first)."""
        deadline = time.monotonic() + timeout
        pending = list(mqtt_ports)
        while pending:
            for proc in self._procs:
                if proc.poll() is not None:
                    raise RuntimeError(f"nats-server exited with {proc.returncode}: "
                                       f"{self.log_tail()}")
            if time.monotonic() > deadline:
                raise RuntimeError(f"NATS MQTT not ready within {timeout} s: {self.log_tail()}")
            if _mqtt_accepts(pending[0]):
                pending.pop(0)
            else:
                time.sleep(0.1)

    @property
    def pids(self) -> list[int]:
        return [proc.pid for proc in self._procs]

    def log_tail(self) -> str:
        if self._dir is None:
            return ""
        lines: list[str] = []
        for log in sorted(Path(self._dir.name).glob("*.log")):
            lines += log.read_text(errors="replace").splitlines()[-3:]
        return " | ".join(lines)

    def stalls(self) -> int:
        """How many times the nodes have logged a JetStream request of their MQTT server
        that timed out (NATS 2.9 in a cluster; docs/deploy.md), so far."""
        if self._dir is None:
            return 0
        count = 0
        for log in Path(self._dir.name).glob("*.log"):
            count += log.read_text(errors="replace").count("timeout for request type")
        return count

    def stop(self) -> None:
        procs, self._procs = self._procs, []
        for proc in procs:
            proc.terminate()
        for proc in procs:
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(5)
        if self._dir is not None:
            self._dir.cleanup()
            self._dir = None

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(
        self, t: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()


def _mqtt_accepts(port: int) -> bool:
    """A bare MQTT 3.1.1 CONNECT gets a CONNACK that accepts (return code 0)."""
    connect = (b"\x10\x13\x00\x04MQTT\x04\x02\x00\x0a\x00\x07stacks-")
    with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 1) as sock:
        sock.settimeout(2)
        sock.sendall(connect)
        answer = sock.recv(4)
        return len(answer) == 4 and answer[0] == 0x20 and answer[3] == 0
    return False


MQTT_SESSIONS = "$MQTT_sess"
"""The JetStream stream where NATS's MQTT keeps its sessions (one record per client)."""
SESSIONS_CONFIG: dict[str, object] = {
    "name": MQTT_SESSIONS, "subjects": ["$MQTT.sess.>"], "retention": "limits",
    "storage": "file", "max_msgs_per_subject": 1, "discard": "old",
}
"""The stream as NATS 2.9's MQTT makes it, but for its replicas (`replicate_mqtt_sessions`)."""


class JetStreamError(RuntimeError):
    """The JetStream API said no, or did not answer."""


def jetstream_request(host: str, port: int, subject: str, body: dict[str, object],
                      timeout: float = 5.0) -> dict[str, object]:
    """One request to the JetStream API of the NATS server at ``host``:``port`` (its client
    port) over the NATS protocol; its JSON answer."""
    payload = json.dumps(body).encode()
    inbox = f"_INBOX.stacks{os.getpid()}x{time.monotonic_ns()}"
    try:
        with socket.create_connection((host, port), timeout) as sock:
            sock.settimeout(timeout)
            lines = sock.makefile("rb")
            if not lines.readline().startswith(b"INFO "):
                raise JetStreamError(f"{host}:{port} is not a NATS server")
            sock.sendall(b'CONNECT {"verbose":false,"pedantic":false,"protocol":1}\r\n'
                         + f"SUB {inbox} 1\r\nPUB {subject} {inbox} {len(payload)}\r\n"
                         .encode() + payload + b"\r\n")
            while True:
                line = lines.readline()
                if not line:
                    raise JetStreamError(f"{host}:{port} closed the connection")
                if line.startswith(b"PING"):
                    sock.sendall(b"PONG\r\n")
                elif line.startswith(b"-ERR"):
                    raise JetStreamError(line.decode(errors="replace").strip())
                elif line.startswith(b"MSG "):
                    data = lines.read(int(line.split()[-1]) + 2)[:-2]
                    answer = json.loads(data or b"{}")
                    if not isinstance(answer, dict):
                        raise JetStreamError(f"not a JetStream answer: {data[:200]!r}")
                    return answer
    except (OSError, ValueError) as exc:
        raise JetStreamError(f"{host}:{port}: {exc}") from None


MESSAGE_STREAMS: dict[str, dict[str, object]] = {
    "$MQTT_msgs": {"name": "$MQTT_msgs", "subjects": ["$MQTT.msgs.>"],
                   "retention": "interest", "storage": "file"},
    "$MQTT_rmsgs": {"name": "$MQTT_rmsgs", "subjects": ["$MQTT.rmsgs"],
                    "retention": "limits", "storage": "file"},
}
"""NATS 2.9's MQTT streams of QoS 1 messages and of retained messages, as it makes them."""


def place_mqtt_messages(host: str, port: int, tag: str, timeout: float = 60.0) -> None:
    """Make NATS's MQTT message streams (one replica each, as ``stream_replicas: 1``) on
    the node whose ``server_tags`` has ``tag``, on a cluster no MQTT client has reached
    yet: where they live, QoS 1 and retained publishes of every node wait on that node
    (4 s, then fail, while it is cut off)."""
    for name, config in MESSAGE_STREAMS.items():
        _make_stream(host, port, name, {**config, "num_replicas": 1,
                                        "placement": {"tags": [tag]}}, timeout)


def _make_stream(host: str, port: int, name: str, body: dict[str, object],
                 timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    last = ""
    while time.monotonic() < deadline:
        try:
            answer = jetstream_request(host, port, f"$JS.API.STREAM.CREATE.{name}", body)
        except JetStreamError as exc:
            last = str(exc)
        else:
            error = answer.get("error")
            if not error:
                return True
            if isinstance(error, dict) and error.get("err_code") == 10058:  # name in use
                return False
            last = str(error)
        time.sleep(0.5)
    raise JetStreamError(f"stream {name} was not made within {timeout:.0f} s: {last}")


def replicate_mqtt_sessions(host: str, port: int, replicas: int = 3,
                            timeout: float = 60.0) -> bool:
    """Make NATS's MQTT session stream with ``replicas`` replicas, on a cluster no MQTT
    client has reached yet (its MQTT then uses this stream as it finds it). ``True`` if
    made, ``False`` if it was there already; asks again while JetStream has no leader.

    Why: with ``stream_replicas: 1`` (the shipped configs: QoS 1 publishes wait for no
    consensus) the session stream lives on one node, and while that node is cut off from
    the others no node of the cluster takes a new MQTT session: a table taken over after
    a cut can't be hosted, a player can't reconnect. Session records are written at a
    connect, a subscription and a disconnect only, never per message."""
    return _make_stream(host, port, MQTT_SESSIONS,
                        {**SESSIONS_CONFIG, "num_replicas": replicas}, timeout)
