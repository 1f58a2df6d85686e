"""A cluster of ``stacks serve`` nodes on hosts of their own, for trials and benchmarks.

`Cluster` makes a `netns.Net` with a database host (``db``, PostgreSQL) and ``nodes``
node hosts (``n1``, ``n2``, …), each running a node of one NATS cluster (MQTT on); the
program that made it reaches every host from the root namespace (`Net.observer`). On
top: `Cluster.serve` starts ``stacks serve --node NAME`` on a node's host, `kill` is
``kill -9`` of every process of a node but its broker node (a server machine whose
stacks processes die), and `cut` cuts a node off from the database, from the broker
(the other nodes' broker nodes: its own broker node is then a cluster of one, cut off
too) or from both (its link down). `restore` undoes a cut.

Closing removes every process, namespace and file. ``python -m stacks bench cluster``
and ``tests/cluster`` use it; it needs root and iproute2 (`netns.unavailable`).
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from types import TracebackType
from typing import Literal, Self

from stacks.bench.cluster.netns import Net
from stacks.bench.cluster.services import NatsCluster, Postgres

Cut = Literal["db", "broker", "both"]
DB_ADDRESS = 2
NODE_ADDRESS = 10
"""Node ``n{i}`` is at ``10.231.X.(10+i)``."""


class Cluster:
    """The hosts, the database and the broker of a trial; a context manager."""

    def __init__(self, nodes: int = 3, folder: Path | None = None) -> None:
        self.count = nodes
        self.net = Net()
        self.folder = folder
        self.pg: Postgres | None = None
        self.nats: NatsCluster | None = None
        self.servers: dict[str, subprocess.Popen[bytes]] = {}

    @property
    def nodes(self) -> list[str]:
        return [f"n{i}" for i in range(1, self.count + 1)]

    def start(self, timeout: float = 90.0) -> None:
        started = time.monotonic()
        try:
            self.net.start()
            self.net.host("db", DB_ADDRESS)
            for i, node in enumerate(self.nodes, 1):
                self.net.host(node, NODE_ADDRESS + i)
            self.pg = Postgres(self.net, "db")
            self.pg.start()
            self.nats = NatsCluster(self.net, self.nodes)
            self.nats.start(max(10.0, timeout - (time.monotonic() - started)))
        except BaseException:
            self.close()
            raise

    def close(self) -> None:
        try:
            for proc in self.servers.values():
                if proc.poll() is None:
                    proc.kill()
            if self.nats is not None:
                self.nats.stop()
            if self.pg is not None:
                self.pg.stop()
        finally:
            self.net.close()  # whatever is left on every host, then the hosts

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(self, t: type[BaseException] | None, e: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()

    # -- where things are ---------------------------------------------------------------------

    @property
    def db(self) -> Postgres:
        assert self.pg is not None, "the cluster is not started"
        return self.pg

    @property
    def broker(self) -> NatsCluster:
        assert self.nats is not None, "the cluster is not started"
        return self.nats

    def address(self, node: str) -> str:
        return self.net.hosts[node].address

    def broker_urls(self, node: str) -> list[str]:
        """The broker nodes ``node`` should use: its own first, then the others."""
        return [self.broker.url(node)] + [self.broker.url(other) for other in self.nodes
                                           if other != node]

    # -- the servers -----------------------------------------------------------------------

    def serve(self, node: str, database: str, *args: str, log: Path,
              env: dict[str, str] | None = None, home: Path | None = None,
              brokers: Sequence[str] | None = None) -> subprocess.Popen[bytes]:
        """``stacks serve --node NODE`` on ``node``'s host, listening on its address,
        with ``database`` and its brokers (`broker_urls`), more ``args`` after."""
        argv = [sys.executable, "-m", "stacks.cli", "serve", "--node", node, "--bind",
                self.address(node), "--database", database]
        for url in brokers or self.broker_urls(node):
            argv += ["--broker", url]
        environ = {**os.environ, **(env or {})}
        if home is not None:
            environ["STACKS_HOME"] = str(home)
        environ.pop("SSH_AUTH_SOCK", None)
        proc = self.net.popen(node, [*argv, *args], log=log, env=environ)
        self.servers[node] = proc
        return proc

    def kill(self, node: str) -> list[int]:
        """``kill -9`` of every process on ``node``'s host but its broker node."""
        keep = [self.broker.procs[node].pid] if node in self.broker.procs else []
        return self.net.kill(node, keep)

    def cut(self, node: str, what: Cut) -> None:
        """Cut ``node`` off from the database, the broker, or both (its link down)."""
        if what == "both":
            self.net.cut(node)
        elif what == "db":
            self.net.cut(node, self.db.address)
        else:
            self.net.cut(node, *[self.address(other) for other in self.nodes
                                 if other != node])

    def restore(self, node: str) -> None:
        self.net.restore(node)

    def reaches(self, node: str, address: str, port: int, timeout: float = 3.0) -> bool:
        """Whether a TCP connection from ``node``'s host to ``address``:``port`` is
        taken within ``timeout`` seconds."""
        probe = ("import socket,sys\n"
                 f"try: socket.create_connection(({address!r}, {port}), {timeout})\n"
                 "except OSError: sys.exit(1)\n")
        done = self.net.run(node, [sys.executable, "-S", "-c", probe], timeout=timeout + 30)
        return done.returncode == 0
