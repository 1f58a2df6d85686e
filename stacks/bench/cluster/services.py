"""The services of a cluster on a `netns.Net`: PostgreSQL on a host of its own, and a
NATS cluster (MQTT listener on, JetStream for it) with one node on each of some hosts.

Both are throwaway: their files live in a temporary folder removed on `stop`, and they
listen only on their hosts' addresses, so the machine's own services are never touched.
In a namespace every port is free, so the ports are the usual ones.
"""

from __future__ import annotations

import contextlib
import glob
import os
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from broker.nats_runner import find_nats, place_mqtt_messages, replicate_mqtt_sessions
from stacks.bench.cluster.netns import Net

PG_PORT = 5432
NATS_CLIENT, NATS_CLUSTER, NATS_MQTT = 4222, 6222, 1883


def _wait(condition: Callable[[], bool], what: str, timeout: float,
          words: Callable[[], str] = lambda: "") -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise RuntimeError(f"{what} not within {timeout:g} s {words()}".rstrip())
        time.sleep(0.05)


def _pg_bin(tool: str) -> str:
    found = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{tool}"),
                   key=lambda p: int(Path(p).parts[4]) if Path(p).parts[4].isdigit() else 0)
    if not found:
        raise RuntimeError(f"PostgreSQL's {tool} is missing: apt-get install postgresql")
    return found[-1]


class Postgres:
    """A PostgreSQL cluster of its own on ``host`` of ``net``, listening on the host's
    address (as root it runs as user ``postgres``); trusts every client (a test's)."""

    def __init__(self, net: Net, host: str) -> None:
        self.net = net
        self.host = host
        self.address = net.hosts[host].address
        self.root = Path(tempfile.mkdtemp(prefix="stacks-cluster-pg-"))
        self.data = self.root / "data"
        self.sock = self.root / "sock"
        self.log = self.root / "server.log"
        self.as_root = os.geteuid() == 0

    def _argv(self, *argv: str) -> list[str]:
        return ["runuser", "-u", "postgres", "--", *argv] if self.as_root else list(argv)

    def _run(self, *argv: str, in_net: bool = True) -> None:
        command = self._argv(*argv)
        done = (self.net.run(self.host, command, timeout=120) if in_net else
                subprocess.run(command, capture_output=True, text=True, timeout=120))
        if done.returncode != 0:
            log = self.log.read_text(errors="replace") if self.log.exists() else ""
            raise RuntimeError(f"{' '.join(argv[:2])} failed ({done.returncode}): "
                               f"{done.stdout}{done.stderr}{log[-2000:]}")

    def start(self) -> None:
        self.sock.mkdir()
        if self.as_root:
            shutil.chown(self.root, "postgres", "postgres")
            shutil.chown(self.sock, "postgres", "postgres")
        self._run(_pg_bin("initdb"), "-D", str(self.data), "-A", "trust", "-U", "postgres",
                  "--no-sync", "-E", "UTF8", in_net=False)
        with (self.data / "pg_hba.conf").open("a") as hba:
            hba.write(f"host all all {self.net.address(0)}/24 trust\n")
        self.resume()

    def resume(self) -> None:
        """Start the server (again), on the host's address."""
        self._run(_pg_bin("pg_ctl"), "-D", str(self.data), "-l", str(self.log), "-o",
                  f"-p {PG_PORT} -k {self.sock} -h {self.address} -c fsync=off "
                  "-c max_connections=200", "-w", "start")

    def pause(self, mode: str = "fast") -> None:
        """Stop the server, keeping its data (``mode``: pg_ctl's ``-m``)."""
        self._run(_pg_bin("pg_ctl"), "-D", str(self.data), "-m", mode, "-w", "stop")

    def restart(self, mode: str = "fast") -> None:
        self.pause(mode)
        self.resume()

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://postgres@{self.address}:{PG_PORT}/{database}"

    def create(self, name: str) -> str:
        """A fresh, empty database's URL."""
        import psycopg

        with psycopg.connect(self.url(), autocommit=True, connect_timeout=10) as conn:
            conn.execute(f"CREATE DATABASE {name}")
        return self.url(name)

    def stop(self) -> None:
        try:
            if (self.data / "postmaster.pid").exists():
                with contextlib.suppress(RuntimeError, subprocess.TimeoutExpired):
                    self._run(_pg_bin("pg_ctl"), "-D", str(self.data), "-m", "immediate",
                              "-w", "stop", in_net=False)
        finally:
            shutil.rmtree(self.root, ignore_errors=True)


def nats_config(name: str, address: str, peers: Sequence[str], store: Path) -> str:
    """One node's config: client, cluster and MQTT listeners on ``address``, routes to
    ``peers`` (the other nodes' addresses), MQTT as the shipped configs set it."""
    routes = "\n".join(f"    nats-route://{peer}:{NATS_CLUSTER}" for peer in peers)
    return f"""server_name: {name}
server_tags: ["{name}"]
listen: {address}:{NATS_CLIENT}
jetstream {{
  store_dir: {store}
  max_memory_store: 256MB
  max_file_store: 1GB
}}
cluster {{
  name: stacks
  listen: {address}:{NATS_CLUSTER}
  routes: [
{routes}
  ]
}}
mqtt {{
  listen: {address}:{NATS_MQTT}
  ack_wait: "30s"
  max_ack_pending: 1000
  consumer_replicas: 1
  consumer_memory_storage: true
  stream_replicas: 1
}}
"""


def mqtt_accepts(address: str, port: int = NATS_MQTT) -> bool:
    """A bare MQTT 3.1.1 CONNECT to ``address`` gets a CONNACK that accepts."""
    connect = b"\x10\x13\x00\x04MQTT\x04\x02\x00\x0a\x00\x07stacks-"
    with contextlib.suppress(OSError), socket.create_connection((address, port), 1) as sock:
        sock.settimeout(3)
        sock.sendall(connect)
        answer = sock.recv(4)
        return len(answer) == 4 and answer[0] == 0x20 and answer[3] == 0
    return False


class NatsCluster:
    """One NATS node on each of ``hosts`` of ``net``, clustered, each with MQTT."""

    def __init__(self, net: Net, hosts: Sequence[str]) -> None:
        self.net = net
        self.hosts = list(hosts)
        shm = "/dev/shm" if os.access("/dev/shm", os.W_OK) else None
        self.root = Path(tempfile.mkdtemp(prefix="stacks-cluster-nats-", dir=shm))
        self.procs: dict[str, subprocess.Popen[bytes]] = {}

    def address(self, host: str) -> str:
        return self.net.hosts[host].address

    def url(self, host: str) -> str:
        """The MQTT URL of the node on ``host``."""
        return f"mqtt://{self.address(host)}:{NATS_MQTT}"

    @property
    def urls(self) -> list[str]:
        return [self.url(host) for host in self.hosts]

    def log(self, host: str) -> Path:
        return self.root / f"{host}.log"

    def start_node(self, host: str) -> None:
        exe = find_nats()
        peers = [self.address(other) for other in self.hosts if other != host]
        conf = self.root / f"{host}.conf"
        conf.write_text(nats_config(f"stacks-{host}", self.address(host), peers,
                                    self.root / f"js-{host}"))
        self.procs[host] = self.net.popen(host, [exe, "-c", str(conf)], log=self.log(host))

    def start(self, timeout: float = 60.0) -> None:
        """Start every node; before any MQTT client, make MQTT's session stream with a
        replica on each (`broker.nats_runner.replicate_mqtt_sessions`, as
        ``docs/deploy.md`` says): else the node it lands on, cut off, would stop every
        new session of the cluster."""
        for host in self.hosts:
            self.start_node(host)
        if len(self.hosts) > 1:
            first = self.address(self.hosts[0])
            replicate_mqtt_sessions(first, NATS_CLIENT, replicas=min(3, len(self.hosts)),
                                    timeout=timeout)
            place_mqtt_messages(first, NATS_CLIENT, f"stacks-{self.hosts[-1]}",
                                timeout=timeout)
        self.wait_ready(timeout)

    def wait_ready(self, timeout: float = 60.0, hosts: Sequence[str] | None = None) -> None:
        """Every node (of ``hosts``) takes an MQTT client: a cluster's JetStream needs its
        peers first."""
        for host in hosts or self.hosts:
            def ready(host: str = host) -> bool:
                proc = self.procs[host]
                if proc.poll() is not None:
                    raise RuntimeError(f"nats-server on {host} exited {proc.returncode}: "
                                       f"{self.tail()}")
                return mqtt_accepts(self.address(host))

            _wait(ready, f"NATS MQTT on {host}", timeout, self.tail)

    def pids(self) -> list[int]:
        return [proc.pid for proc in self.procs.values()]

    def tail(self) -> str:
        lines: list[str] = []
        for host in self.hosts:
            if self.log(host).exists():
                lines += self.log(host).read_text(errors="replace").splitlines()[-3:]
        return " | ".join(lines)

    def stop(self) -> None:
        procs, self.procs = list(self.procs.values()), {}
        for proc in procs:
            if proc.poll() is None:
                proc.terminate()
        for proc in procs:
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(5)
        shutil.rmtree(self.root, ignore_errors=True)
