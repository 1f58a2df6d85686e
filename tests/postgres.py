"""A PostgreSQL cluster of the test run's own (Debian's ``postgresql`` binaries), on a free
port of 127.0.0.1 and a private socket directory; never the system's on 5432.

As root the cluster runs as user ``postgres`` (``runuser``), as the server refuses root;
otherwise as the user running the tests. If it can't start, the test fails with the
reason: nothing is skipped silently.
"""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from tests.support import free_port


def _bin(tool: str) -> str:
    found = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{tool}"),
                   key=lambda p: int(Path(p).parts[4]) if Path(p).parts[4].isdigit() else 0)
    if not found:
        raise RuntimeError(f"PostgreSQL's {tool} is missing: apt-get install postgresql "
                           "(.ci/run installs it)")
    return found[-1]


class Cluster:
    """``start()`` makes and starts the cluster; ``url(db)`` names a database in it;
    ``create()`` makes a fresh database; ``stop()`` stops it and removes its files."""

    def __init__(self) -> None:
        self.root = Path(tempfile.mkdtemp(prefix="stacks-pg-"))
        self.data = self.root / "data"
        self.sock = self.root / "sock"
        self.log = self.root / "server.log"
        self.port = free_port()
        self.as_root = os.geteuid() == 0
        self.count = 0

    def _run(self, *argv: str) -> None:
        command = (["runuser", "-u", "postgres", "--", *argv] if self.as_root else list(argv))
        done = subprocess.run(command, capture_output=True, text=True, timeout=120)
        if done.returncode != 0:
            log = self.log.read_text() if self.log.exists() else ""
            raise RuntimeError(f"{' '.join(argv[:2])} failed ({done.returncode}): "
                               f"{done.stdout}{done.stderr}{log}")

    def start(self) -> None:
        self.sock.mkdir()
        if self.as_root:
            shutil.chown(self.root, "postgres", "postgres")
            shutil.chown(self.sock, "postgres", "postgres")
        self._run(_bin("initdb"), "-D", str(self.data), "-A", "trust", "-U", "postgres",
                  "--no-sync", "-E", "UTF8")
        self._run(_bin("pg_ctl"), "-D", str(self.data), "-l", str(self.log), "-o",
                  f"-p {self.port} -k {self.sock} -h 127.0.0.1 -c fsync=off", "-w", "start")

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{database}"

    def create(self) -> str:
        """A fresh, empty database's URL."""
        import psycopg

        self.count += 1
        name = f"t{self.count}"
        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(f"CREATE DATABASE {name}")
        return self.url(name)

    def pause(self) -> None:
        """Stop the server, keeping its data (`resume` starts it again): an outage."""
        self._run(_bin("pg_ctl"), "-D", str(self.data), "-m", "fast", "-w", "stop")

    def resume(self) -> None:
        self._run(_bin("pg_ctl"), "-D", str(self.data), "-l", str(self.log), "-o",
                  f"-p {self.port} -k {self.sock} -h 127.0.0.1 -c fsync=off", "-w", "start")

    def stop(self) -> None:
        try:
            if (self.data / "postmaster.pid").exists():
                self._run(_bin("pg_ctl"), "-D", str(self.data), "-m", "immediate", "-w",
                          "stop")
        finally:
            shutil.rmtree(self.root, ignore_errors=True)
