"""Hosts of their own on one machine: a network namespace per host, linked by veth pairs to
a bridge, each with its own address in a private /24.

`Net` makes the bridge (in a namespace of its own, so the machine's own interfaces are
left alone but for one veth that lets the program that made the net, in the root
namespace, reach every host), then `Net.host` adds a host. A host can be cut off from
one address (a blackhole route in its namespace: its packets to that address vanish,
as behind a dead router), or from everything (its link down), and put back. Processes
run in a host's namespace (``ip netns exec``); `Net.kill` sends SIGKILL to every
process in it, as a machine that dies.

Everything is named from one prefix made of the process id, so two runs on one machine
(parallel test workers) never share a name or a subnet, and `Net.close` removes all of
it, processes first; `sweep` removes what a run that died left behind. Needs root and
``ip`` (iproute2); `unavailable` says in words why it can't run here.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import random
import re
import shutil
import signal
import subprocess
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import IO, Self

IP = shutil.which("ip") or "/usr/sbin/ip"
NETNS_DIR = Path("/run/netns")
SUBNET_FIRST = "10.231"
"""The /16 the nets' /24s are taken from (a private range unlikely to be in use)."""
_NAME = re.compile(r"^skc(\d+)x[0-9a-z]+-")
_LOCK = Path("/run/lock/stacks-netns.lock") if Path("/run/lock").is_dir() \
    else Path("/tmp/stacks-netns.lock")
"""Held while a net picks its subnet (`Net.start`)."""
ROOT_ADDRESS = 1
"""The last byte of the root namespace's address on every net (the observer's side)."""


class NetError(RuntimeError):
    """An ``ip`` command failed: its words are in the message."""


def unavailable() -> str | None:
    """Why namespaces can't be made here, in words; ``None`` when they can."""
    if os.geteuid() != 0:
        return "network namespaces need root (ip netns add)"
    if not os.access(IP, os.X_OK):
        return "the ip command is missing (apt-get install iproute2)"
    done = subprocess.run([IP, "netns", "list"], capture_output=True, text=True)
    if done.returncode != 0:
        return f"ip netns doesn't work here: {done.stderr.strip()}"
    return None


def ip(*argv: str, namespace: str | None = None, check: bool = True) -> str:
    """Run ``ip argv`` (in ``namespace``, if given); its output. `NetError` on failure
    when ``check``."""
    command = [IP, *(["-n", namespace] if namespace else []), *argv]
    done = subprocess.run(command, capture_output=True, text=True, timeout=30)
    if check and done.returncode != 0:
        raise NetError(f"{' '.join(command)}: {done.stderr.strip() or done.returncode}")
    return done.stdout


def namespace_pids(namespace: str) -> list[int]:
    """Every process whose network namespace is ``namespace`` now."""
    out = subprocess.run([IP, "netns", "pids", namespace], capture_output=True, text=True,
                         timeout=30).stdout
    return [int(word) for word in out.split() if word.isdigit()]


def _kill_all(namespace: str, keep: Sequence[int] = ()) -> list[int]:
    """SIGKILL every process in ``namespace`` but ``keep``, until none is left (a
    process forking as it dies is caught on the next round); the pids killed."""
    killed: list[int] = []
    for _ in range(50):
        pids = [pid for pid in namespace_pids(namespace) if pid not in keep]
        if not pids:
            break
        for pid in pids:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
            killed.append(pid)
        time.sleep(0.02)
    return killed


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def sweep() -> list[str]:
    """Remove the namespaces (and their processes) of nets whose process is gone (a run
    killed before its cleanup); the names removed. Nets of live processes stay."""
    removed = []
    names = [line.split()[0] for line in ip("netns", "list", check=False).splitlines()
             if line.strip()]
    for name in names:
        match = _NAME.match(name)
        if match and not _alive(int(match.group(1))):
            _kill_all(name)
            ip("netns", "del", name, check=False)
            removed.append(name)
    return removed


def _subnet() -> int:
    """A third byte for ``10.231.X.0/24`` no route of the root namespace uses yet."""
    used = set(re.findall(rf"{re.escape(SUBNET_FIRST)}\.(\d+)\.", ip("route", "show",
                                                                       "table", "all")))
    free = [x for x in range(1, 255) if str(x) not in used]
    if not free:
        raise NetError(f"every {SUBNET_FIRST}.X.0/24 is in use")
    return random.Random(os.getpid() ^ time.monotonic_ns()).choice(free)


@dataclass
class Host:
    """One host of a `Net`: its namespace, address and link."""

    name: str
    namespace: str
    address: str
    link: str = "eth0"
    blackholed: set[str] = field(default_factory=set)
    link_down: bool = False


class Net:
    """A bridge and the hosts on it; a context manager that removes everything on exit."""

    def __init__(self) -> None:
        tag = "".join(random.choices("abcdefghijklmnopqrstuvwxyz0123456789", k=3))
        self.prefix = f"skc{os.getpid()}x{tag}"
        # Interface names are at most 15 characters: short ones from a short tag.
        self.short = f"sk{tag}{os.getpid() % 10000}"
        self.third = 0
        self.hub = f"{self.prefix}-hub"
        self.hosts: dict[str, Host] = {}
        self.procs: list[subprocess.Popen[bytes]] = []
        self._root_link = f"{self.short}r"
        self._up = False

    # -- making and removing ------------------------------------------------------------------

    def start(self) -> None:
        """The hub namespace with its bridge, and the root namespace's link to it."""
        self._up = True
        try:
            # One run at a time picks its subnet and takes it (its root link's route):
            # parallel test workers never pick the same.
            with _LOCK.open("a") as lock:
                fcntl.flock(lock, fcntl.LOCK_EX)
                sweep()
                self.third = _subnet()
                ip("link", "add", self._root_link, "type", "veth", "peer", "name",
                   f"{self.short}h")
                ip("addr", "add", f"{self.address(ROOT_ADDRESS)}/24", "dev",
                   self._root_link)
            ip("netns", "add", self.hub)
            ip("link", "add", "br0", "type", "bridge", namespace=self.hub)
            ip("link", "set", "br0", "up", namespace=self.hub)
            ip("link", "set", "lo", "up", namespace=self.hub)
            self._plug(f"{self.short}h", "root")
            ip("link", "set", self._root_link, "up")
        except BaseException:
            self.close()
            raise

    def address(self, last: int) -> str:
        return f"{SUBNET_FIRST}.{self.third}.{last}"

    @property
    def observer(self) -> str:
        """The root namespace's address on the net (where the test's own clients are)."""
        return self.address(ROOT_ADDRESS)

    def _plug(self, hub_end: str, name: str) -> None:
        """Move ``hub_end`` into the hub, as port ``name`` of its bridge."""
        ip("link", "set", hub_end, "netns", self.hub)
        ip("link", "set", hub_end, "name", f"p-{name}"[:15], namespace=self.hub)
        ip("link", "set", f"p-{name}"[:15], "master", "br0", "up", namespace=self.hub)

    def host(self, name: str, last: int) -> Host:
        """A new host ``name`` at address ``10.231.X.last``, its link up."""
        namespace = f"{self.prefix}-{name}"
        ip("netns", "add", namespace)
        host = Host(name, namespace, self.address(last))
        self.hosts[name] = host
        outer, inner = f"{self.short}{name}"[:13] + "a", f"{self.short}{name}"[:13] + "b"
        ip("link", "add", outer, "type", "veth", "peer", "name", inner)
        self._plug(outer, name)
        ip("link", "set", inner, "netns", namespace)
        ip("link", "set", inner, "name", host.link, namespace=namespace)
        ip("addr", "add", f"{host.address}/24", "dev", host.link, namespace=namespace)
        ip("link", "set", host.link, "up", namespace=namespace)
        ip("link", "set", "lo", "up", namespace=namespace)
        return host

    def close(self) -> None:
        """Kill every process of every host, remove the namespaces and the root link.
        Safe to call twice, and after a failed start."""
        if not self._up:
            return
        for proc in self.procs:
            with contextlib.suppress(ProcessLookupError):
                proc.kill()
        for host in self.hosts.values():
            _kill_all(host.namespace)
        for proc in self.procs:
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(10)
        for host in self.hosts.values():
            ip("netns", "del", host.namespace, check=False)
        ip("link", "del", self._root_link, check=False)
        ip("netns", "del", self.hub, check=False)
        self.hosts.clear()
        self._up = False

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(self, t: type[BaseException] | None, e: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()

    # -- processes ------------------------------------------------------------------------------

    def popen(self, host: str, argv: Sequence[str], *, log: Path | IO[bytes] | None = None,
              env: dict[str, str] | None = None, cwd: Path | str | None = None,
              ) -> subprocess.Popen[bytes]:
        """Start ``argv`` in ``host``'s namespace, in a session of its own, its output
        (both streams) to ``log`` (a file path or an open file). Killed by `close`."""
        out: IO[bytes] | int = subprocess.DEVNULL
        opened = None
        if isinstance(log, Path):
            out = opened = log.open("ab")
        elif log is not None:
            out = log
        try:
            proc = subprocess.Popen(
                [IP, "netns", "exec", self.hosts[host].namespace, *argv], stdout=out,
                stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env, cwd=cwd,
                start_new_session=True)
        finally:
            if opened is not None:
                opened.close()
        self.procs.append(proc)
        return proc

    def run(self, host: str, argv: Sequence[str], timeout: float = 60
            ) -> subprocess.CompletedProcess[str]:
        """Run ``argv`` in ``host``'s namespace to its end; its output, as text."""
        return subprocess.run([IP, "netns", "exec", self.hosts[host].namespace, *argv],
                              capture_output=True, text=True, timeout=timeout)

    def pids(self, host: str) -> list[int]:
        return namespace_pids(self.hosts[host].namespace)

    def kill(self, host: str, keep: Sequence[int] = ()) -> list[int]:
        """``kill -9`` of every process of ``host`` but ``keep`` (the pids killed)."""
        return _kill_all(self.hosts[host].namespace, keep)

    # -- cutting off ----------------------------------------------------------------------------

    def cut(self, host: str, *addresses: str) -> None:
        """Cut ``host`` off from ``addresses``: its packets to them vanish (nothing is
        refused: a connection hangs, as behind a dead link). Without addresses, its link
        goes down: cut off from everything."""
        node = self.hosts[host]
        if not addresses:
            ip("link", "set", node.link, "down", namespace=node.namespace)
            node.link_down = True
            return
        for address in addresses:
            if address not in node.blackholed:
                ip("route", "add", "blackhole", f"{address}/32", namespace=node.namespace)
                node.blackholed.add(address)

    def restore(self, host: str) -> None:
        """Undo every cut of ``host``: its link up, its blackhole routes gone."""
        node = self.hosts[host]
        for address in sorted(node.blackholed):
            ip("route", "del", "blackhole", f"{address}/32", namespace=node.namespace,
               check=False)
        node.blackholed.clear()
        if node.link_down:
            ip("link", "set", node.link, "up", namespace=node.namespace)
            node.link_down = False
