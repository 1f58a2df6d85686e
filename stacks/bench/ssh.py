"""``stacks bench ssh``: the built-in ssh server, measured.

Starts ``stacks serve`` in its own process on 127.0.0.1 and a free port (a temporary
config dir, throw-away keys), then measures what a player feels:

- **connect to first frame**: from starting the OpenSSH client (in a pty of its own) to
  the main menu on its screen, one connection after another; falls back to an asyncssh
  client without OpenSSH; and the same (asyncssh) while the N sessions arrive, five at a
  time;
- **memory per session**: of each connected session's process tree, read from
  /proc/PID/smaps_rollup: RSS, PSS (which splits each shared page between the processes
  that share it) and USS (the pages only that session has); the fork server the sessions
  are forked from (`sshserver.zygote`) is reported apart, and its PSS is also shared out
  between the sessions;
- **key press to repaint with many sessions**: N asyncssh clients sit at the menu and
  each presses ↓/↑ at random intervals; the time from sending a key to the first bytes of
  the repainted screen, over all presses.

The server runs in a session of its own, as a service does, apart from the clients (Linux
schedules each session as one group: sharing one with the hundred clients, the server
would be given the CPU of one process for both).

Every account exists before its key connects (a returning player: a new key is asked for
a name before the menu). ``--no-fork`` measures sessions started as new interpreters.

Nothing here is imported by the ``stacks`` parser but `add_bench_ssh_arguments`.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import platform
import random
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from stacks.argtypes import percentile, positive_int

if TYPE_CHECKING:
    import asyncssh

#: Text of the main menu: its first frame is on the screen once this shows.
MENU_MARK = "Play against bots"
FIRST_FRAME_WAIT_S = 30.0
"""How long a connection may take to show the menu before the bench gives up."""
IDLE_S = 3.0
"""How long the bench watches the CPU of the sessions sitting at the menu."""
ARRIVAL_WAIT_S = 60.0
"""The same while many connections arrive at once."""
TARGET_FIRST_FRAME_S = 0.3
"""p50 of connect to first frame, one connection after another."""
TARGET_SESSION_MIB = 20.0
"""PSS a session, its share of the fork server included."""
TARGET_REPAINT_MS = 50.0
"""p99 of key press to repaint with the sessions pressing keys."""
_CSI = re.compile(rb"\x1b\[[0-9;?<>=]*[ -/]*[@-~]|\x1b[()][A-Za-z0-9]|\x1b[=>78]")
_KEYS = (b"\x1b[B", b"\x1b[A")  # down, up: moves the menu's highlight, repaints it


def add_bench_ssh_arguments(targets: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Add ``ssh`` to the ``stacks bench`` targets."""
    bench = targets.add_parser(
        "ssh",
        help="ssh server: connect to first frame, memory per session, key to repaint "
        "with many sessions",
        description="Starts `stacks serve` on 127.0.0.1 and a free port, then measures: ssh "
        "connect to the first frame of the menu (OpenSSH client in a pty), the memory of "
        "each connected session's process tree, and key press to repaint while many "
        "sessions press keys at once.",
    )
    bench.add_argument("--json", action="store_true", help="print one JSON object")
    bench.add_argument("--connects", type=positive_int, default=5,
                       help="connections to time, one after the other (5)")
    bench.add_argument("--sessions", type=positive_int, default=20,
                       help="sessions connected at once (20)")
    bench.add_argument("--seconds", type=float, default=15.0,
                       help="how long the sessions press keys (15)")
    bench.add_argument("--no-fork", action="store_true",
                       help="start the server with --no-fork: each session a new interpreter")


# -- helpers ---------------------------------------------------------------------------------------


def _tail(data: bytes, chars: int = 300) -> str:
    """The end of a screen's text, on one line, for an error message."""
    text = " ".join(screen_text(data).split())
    return repr(text[-chars:]) if text else "(nothing)"


def screen_text(data: bytes) -> str:
    """Terminal output without its escape sequences (each line's text runs together)."""
    return _CSI.sub(b"", data).decode("utf-8", errors="replace")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _proc_kib(pid: int, field_name: str, file: str = "status") -> int:
    try:
        text = Path(f"/proc/{pid}/{file}").read_text()
    except OSError:
        return 0
    for line in text.splitlines():
        if line.startswith(field_name + ":"):
            return int(line.split()[1])
    return 0


def _children(pid: int) -> list[int]:
    out = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            stat = Path(f"/proc/{name}/stat").read_text()
        except OSError:
            continue
        if int(stat[stat.rindex(")") + 2:].split()[1]) == pid:
            out.append(int(name))
    return out


def tree(pid: int) -> list[int]:
    """``pid`` and all its descendants."""
    found, todo = [pid], [pid]
    while todo:
        kids = _children(todo.pop())
        found += kids
        todo += kids
    return found


@dataclass(frozen=True)
class Memory:
    """A process tree's memory in KiB."""

    rss: int
    pss: int
    uss: int
    """Private pages: what ending the tree gives back."""


def tree_memory_kib(pid: int) -> Memory:
    """The memory of ``pid``'s process tree, from /proc/PID/smaps_rollup."""
    rss = pss = uss = 0
    for one in tree(pid):
        rss += _proc_kib(one, "Rss", "smaps_rollup")
        pss += _proc_kib(one, "Pss", "smaps_rollup")
        uss += _proc_kib(one, "Private_Clean", "smaps_rollup") + \
            _proc_kib(one, "Private_Dirty", "smaps_rollup")
    return Memory(rss, pss, uss)


def _stat_fields(pid: int) -> list[str]:
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return []
    return text[text.rindex(")") + 2:].split()


def session_programs(server: int) -> list[int]:
    """The sessions' programs under ``server``: each leads a session of its own with the
    pty as its controlling terminal (the fork server leads a session too, with none)."""
    found = []
    for pid in tree(server):
        fields = _stat_fields(pid)
        # fields[3]: the session id; fields[4]: the controlling terminal (0: none)
        if len(fields) > 4 and int(fields[3]) == pid and int(fields[4]) != 0:
            found.append(pid)
    return found


def _cpu_s(pid: int) -> float:
    """CPU seconds (user + system) ``pid`` used so far, 0 if it's gone."""
    fields = _stat_fields(pid)
    if len(fields) < 13:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _cpu(server: int, programs: list[int]) -> dict[str, float]:
    """CPU seconds so far of the server itself, of the sessions' programs (and their
    fork server), and of this process, the clients."""
    forkers = {_parent(pid) for pid in programs} - {server}
    times = os.times()
    return {
        "server": _cpu_s(server),
        "sessions": sum(_cpu_s(pid) for pid in [*programs, *forkers]),
        "clients": times.user + times.system,
    }


def _cpu_percent(before: dict[str, float], after: dict[str, float],
                 seconds: float) -> dict[str, float]:
    """Each part's CPU over ``seconds``, in percent of one core."""
    return {part: round((after[part] - before[part]) * 100 / seconds, 1) for part in after}


def _parent(pid: int) -> int:
    fields = _stat_fields(pid)
    return int(fields[1]) if len(fields) > 1 else 0


# -- the server under test ------------------------------------------------------------------------


@dataclass
class _Setup:
    folder: Path
    port: int
    server: subprocess.Popen[bytes]
    key_files: list[Path] = field(default_factory=list)


async def _register_accounts(home: Path, keys: list[tuple[str, asyncssh.SSHKey]]) -> None:
    """An account for each (name, key), as the server makes one on a first login, so that
    every session goes straight to the menu (a key without an account is asked for a
    name first, `tui.screens.account.NameScreen`): the bench measures returning players."""
    from netplay.hosts import fingerprint
    from netplay.identity import load_profile
    from ratings.store import Store, default_database
    from sshserver.request import profile_for_key

    store = await Store.open(default_database(home / "data"))
    try:
        for name, key in keys:
            profile = profile_for_key(key.public_data)
            identity = load_profile(profile, base=home / "profiles")
            await store.create_account(name, key.get_fingerprint("sha256"), profile,
                                       fingerprint(identity.key))
    finally:
        await store.close()


def _user(n: int) -> str:
    """The player name of key ``n``: key 0 times the connects, the others are the crowd."""
    return "bench" if n == 0 else f"p{n - 1}"


@contextlib.asynccontextmanager
async def _server(clients: int, *, fork: bool = True) -> AsyncIterator[_Setup]:
    import asyncssh

    with tempfile.TemporaryDirectory(prefix="stacks-bench-ssh-") as tmp:
        folder = Path(tmp)
        home = folder / "home"
        home.mkdir()
        keys: list[Path] = []
        public: list[bytes] = []
        made: list[tuple[str, asyncssh.SSHKey]] = []
        for n in range(clients):
            key = asyncssh.generate_private_key("ssh-ed25519", comment=f"bench{n}")
            path = folder / f"key{n}"
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "wb") as handle:
                handle.write(key.export_private_key())
            keys.append(path)
            public.append(key.export_public_key())
            made.append((_user(n), key))
        (home / "authorized_keys").write_bytes(b"".join(public))
        await _register_accounts(home, made)
        port = _free_port()
        env = {**os.environ, "STACKS_HOME": str(home)}
        env.pop("SSH_AUTH_SOCK", None)
        server = subprocess.Popen(
            [sys.executable, "-m", "stacks.cli", "serve", "--bind", "127.0.0.1", "--ssh-port",
             str(port), "--max-sessions", str(clients + 4),
             *([] if fork else ["--no-fork"])],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            env=env,
            # A session of its own, as a service has: Linux schedules each session as a
            # group (autogroup), and the server is then not one group with the hundred
            # clients of this process, whose CPU it would share (the players' ssh runs on
            # their own machines).
            start_new_session=True,
        )
        try:
            deadline = time.monotonic() + 30
            while True:
                if server.poll() is not None:
                    raise RuntimeError(f"stacks serve exited with {server.returncode} before "
                                       "it listened")
                with contextlib.suppress(OSError), socket.create_connection(
                    ("127.0.0.1", port), 0.5
                ):
                    break
                if time.monotonic() > deadline:
                    raise RuntimeError(f"stacks serve does not listen on 127.0.0.1:{port} "
                                       "30 s after it started")
                await asyncio.sleep(0.05)
            yield _Setup(folder, port, server, keys)
        finally:
            server.send_signal(signal.SIGTERM)
            try:
                server.wait(30)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait()


# -- 1. connect to first frame, with OpenSSH -------------------------------------------------------


async def _openssh_first_frame(setup: _Setup, key: Path, user: str) -> float:
    """Seconds from starting ``ssh`` to the menu on its screen; then quits with q."""
    import pty

    from sshserver.pty import WindowSize, set_window_size

    ssh = shutil.which("ssh") or "/usr/bin/ssh"
    master, slave = pty.openpty()
    set_window_size(slave, WindowSize(100, 30))
    loop = asyncio.get_running_loop()
    seen = bytearray()
    shown = asyncio.Event()

    def readable() -> None:
        try:
            data = os.read(master, 65536)
        except OSError:
            data = b""
        if not data:
            loop.remove_reader(master)
            shown.set()
            return
        seen.extend(data)
        if MENU_MARK in screen_text(bytes(seen)):
            shown.set()

    started = time.perf_counter()
    proc = await asyncio.create_subprocess_exec(
        ssh, "-F", "/dev/null", "-tt", "-p", str(setup.port), "-i", str(key),
        "-o", "IdentitiesOnly=yes", "-o", "IdentityAgent=none", "-o", "BatchMode=yes",
        "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null",
        "-o", "LogLevel=ERROR", f"{user}@127.0.0.1",
        stdin=slave, stdout=slave, stderr=slave, start_new_session=True,
        env={**os.environ, "TERM": "xterm-256color"},
    )
    os.close(slave)
    loop.add_reader(master, readable)
    try:
        try:
            await asyncio.wait_for(shown.wait(), FIRST_FRAME_WAIT_S)
        except TimeoutError:
            raise RuntimeError(
                f"the main menu ({MENU_MARK!r}) did not show within {FIRST_FRAME_WAIT_S:g} s "
                f"of starting ssh as {user}; its screen's last text: "
                f"{_tail(bytes(seen))}") from None
        elapsed = time.perf_counter() - started
        if MENU_MARK not in screen_text(bytes(seen)):
            raise RuntimeError(f"the ssh client of {user} ended before the menu showed; "
                               f"its screen's last text: {_tail(bytes(seen))}")
        os.write(master, b"q")
        try:
            await asyncio.wait_for(proc.wait(), 15)
        except TimeoutError:
            proc.kill()
            await proc.wait()
        return elapsed
    finally:
        with contextlib.suppress(Exception):
            loop.remove_reader(master)
        os.close(master)
        if proc.returncode is None:
            proc.kill()
            await proc.wait()


# -- 2 and 3. many sessions: memory, key to repaint ------------------------------------------


class _Screen:
    """An asyncssh session that records when output arrives."""

    def __init__(self) -> None:
        self.data = bytearray()
        self.last_at = 0.0  # when the latest output arrived
        self.got = asyncio.Event()
        self.closed = asyncio.Event()

    def session_factory(self) -> asyncssh.SSHClientSession[bytes]:
        import asyncssh

        screen = self

        class _Session(asyncssh.SSHClientSession[bytes]):
            def data_received(self, data: bytes, datatype: asyncssh.DataType) -> None:
                screen.data += data
                screen.last_at = time.perf_counter()
                screen.got.set()

            def connection_lost(self, exc: Exception | None) -> None:
                screen.closed.set()
                screen.got.set()

        return _Session()


@dataclass
class _Client:
    conn: asyncssh.SSHClientConnection
    chan: asyncssh.SSHClientChannel[bytes]
    screen: _Screen
    first_frame: float


async def _connect(setup: _Setup, key: Path, user: str) -> _Client:
    import asyncssh

    started = time.perf_counter()
    conn = await asyncssh.connect(
        "127.0.0.1", setup.port, username=user, client_keys=[str(key)], known_hosts=None,
        agent_path=None, config=None, encoding=None,
    )
    screen = _Screen()
    chan, _ = await conn.create_session(
        screen.session_factory, term_type="xterm-256color", term_size=(100, 30),
        encoding=None,
    )
    deadline = started + ARRIVAL_WAIT_S
    while MENU_MARK not in screen_text(bytes(screen.data)):
        screen.got.clear()
        if screen.closed.is_set():
            raise RuntimeError(f"the session of {user} closed before its menu showed; its "
                               f"screen's last text: {_tail(bytes(screen.data))}")
        try:
            await asyncio.wait_for(screen.got.wait(), max(0.0, deadline - time.perf_counter()))
        except TimeoutError:
            raise RuntimeError(
                f"the main menu ({MENU_MARK!r}) did not show within {ARRIVAL_WAIT_S:g} s of "
                f"connecting as {user}; its screen's last text: "
                f"{_tail(bytes(screen.data))}") from None
    return _Client(conn, chan, screen, time.perf_counter() - started)


async def _quiet(screen: _Screen, seconds: float = 0.3) -> None:
    """Wait until the session has sent nothing for ``seconds``."""
    while True:
        screen.got.clear()
        try:
            await asyncio.wait_for(screen.got.wait(), seconds)
        except TimeoutError:
            return


async def _press_keys(client: _Client, until: float, rng: random.Random) -> tuple[
    list[float], list[float], int
]:
    """Press ↓/↑ at random intervals until ``until``: the latencies to the first and to
    the last byte of each repaint, and the presses that brought no repaint within 2 s."""
    samples: list[float] = []
    complete: list[float] = []
    missed = 0
    n = 0
    await _quiet(client.screen)
    while time.perf_counter() < until:
        await asyncio.sleep(rng.uniform(0.2, 0.6))
        client.screen.got.clear()
        sent = time.perf_counter()
        client.chan.write(_KEYS[n % 2])
        n += 1
        try:
            await asyncio.wait_for(client.screen.got.wait(), 2.0)
        except TimeoutError:
            missed += 1
            continue
        samples.append(time.perf_counter() - sent)
        await _quiet(client.screen, 0.05)  # the rest of this repaint is not the next one's
        complete.append(client.screen.last_at - sent)
    return samples, complete, missed


async def _many(setup: _Setup, sessions: int, seconds: float) -> dict[str, Any]:
    clients: list[_Client] = []
    try:
        # Connect a few at a time, as players arriving would.
        for start in range(0, sessions, 5):
            batch = range(start, min(start + 5, sessions))
            clients += await asyncio.gather(
                *(_connect(setup, setup.key_files[n + 1], f"p{n}") for n in batch)
            )
        await asyncio.gather(*(_quiet(c.screen, 0.5) for c in clients))
        programs = session_programs(setup.server.pid)
        memory = [tree_memory_kib(pid) for pid in programs]
        parents = {_parent(pid) for pid in programs}
        forkers = sorted(parents - {setup.server.pid})
        # The fork server's own memory (not its children's): its PSS is the sessions' too.
        forker_pss = sum(_proc_kib(pid, "Pss", "smaps_rollup") for pid in forkers)
        server_rss = _proc_kib(setup.server.pid, "VmRSS")
        # CPU while all sit at the menu, then while they press keys: the server, the
        # sessions' programs (with the fork server), and this process (the clients).
        idle_before, idle_at = _cpu(setup.server.pid, programs), time.perf_counter()
        await asyncio.sleep(IDLE_S)
        idle_cpu = _cpu_percent(idle_before, _cpu(setup.server.pid, programs),
                                time.perf_counter() - idle_at)
        until = time.perf_counter() + seconds
        rng = random.Random(7)
        busy_before, busy_at = _cpu(setup.server.pid, programs), time.perf_counter()
        results = await asyncio.gather(
            *(_press_keys(c, until, random.Random(rng.random())) for c in clients)
        )
        busy_after, busy_s = _cpu(setup.server.pid, programs), time.perf_counter() - busy_at
        pressed = sum(len(found) for found, _, _ in results)
        samples = sorted(s for found, _, _ in results for s in found)
        complete = sorted(s for _, found, _ in results for s in found)
        missed = sum(m for _, _, m in results)
        first = sorted(c.first_frame for c in clients)
        n = len(memory)

        def mean_mib(values: list[int]) -> float | None:
            return round(statistics.fmean(values) / 1024, 1) if values else None

        return {
            "sessions": len(clients),
            "session_processes": n,
            "sessions_forked": bool(forkers) and n > 0,
            "connect_to_menu_under_arrivals_p50_s": round(percentile(first, 0.5), 3),
            "connect_to_menu_under_arrivals_p99_s": round(percentile(first, 0.99), 3),
            "connect_to_menu_under_arrivals_max_s": round(first[-1], 3),
            "rss_per_session_mean_mib": mean_mib([m.rss for m in memory]),
            "rss_per_session_max_mib": round(max(m.rss for m in memory) / 1024, 1)
            if memory else None,
            "pss_per_session_mean_mib": mean_mib([m.pss for m in memory]),
            "uss_per_session_mean_mib": mean_mib([m.uss for m in memory]),
            "fork_server_pss_mib": round(forker_pss / 1024, 1),
            "pss_per_session_with_fork_server_mib":
                round((sum(m.pss for m in memory) + forker_pss) / n / 1024, 1) if n else None,
            "server_rss_mib": round(server_rss / 1024, 1),
            "idle_cpu_percent": idle_cpu,
            "keys_cpu_percent": _cpu_percent(busy_before, busy_after, busy_s),
            "cpu_ms_per_press": {
                part: round((busy_after[part] - busy_before[part]) * 1000 / max(1, pressed), 2)
                for part in busy_after
            },
            "presses": len(samples) + missed,
            "repaint_p50_ms": round(percentile(samples, 0.5) * 1000, 1) if samples else None,
            "repaint_p95_ms": round(percentile(samples, 0.95) * 1000, 1) if samples else None,
            "repaint_p99_ms": round(percentile(samples, 0.99) * 1000, 1) if samples else None,
            "repaint_max_ms": round(samples[-1] * 1000, 1) if samples else None,
            "repaint_complete_p50_ms": round(percentile(complete, 0.5) * 1000, 1)
            if complete else None,
            "repaint_complete_p99_ms": round(percentile(complete, 0.99) * 1000, 1)
            if complete else None,
            "no_repaint": missed,
        }
    finally:
        for client in clients:
            client.conn.close()
        await asyncio.gather(*(c.conn.wait_closed() for c in clients),
                             return_exceptions=True)


def _raise_fd_limit(sessions: int) -> None:
    """Room for the sessions' connections (and the server's, which inherits it)."""
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = 16 * sessions + 256
    if soft != resource.RLIM_INFINITY and soft < want:
        new = want if hard == resource.RLIM_INFINITY else min(want, hard)
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (new, hard))


async def _measure(args: argparse.Namespace) -> dict[str, Any]:
    sessions = args.sessions
    _raise_fd_limit(sessions)
    async with _server(sessions + 1, fork=not args.no_fork) as setup:
        first: list[float] = []
        client = "openssh" if shutil.which("ssh") or os.path.exists("/usr/bin/ssh") else "asyncssh"
        for n in range(args.connects):
            if client == "openssh":
                first.append(await _openssh_first_frame(setup, setup.key_files[0], "bench"))
            else:
                one = await _connect(setup, setup.key_files[0], "bench")
                first.append(one.first_frame)
                one.conn.close()
                await one.conn.wait_closed()
            await asyncio.sleep(0.3 if n < args.connects - 1 else 1.0)
        first.sort()
        many = await _many(setup, sessions, args.seconds)
    return {
        "benchmark": "ssh",
        "python": platform.python_version(),
        "cpus": os.cpu_count(),
        "first_frame_client": client,
        "connects": len(first),
        "first_frame_p50_s": round(percentile(first, 0.5), 3),
        "first_frame_p99_s": round(percentile(first, 0.99), 3),
        "first_frame_max_s": round(first[-1], 3),
        **many,
        "targets": {
            "first_frame_s": TARGET_FIRST_FRAME_S,
            "session_mib": TARGET_SESSION_MIB,
            "repaint_ms": TARGET_REPAINT_MS,
        },
    }


def _verdict(ok: bool) -> str:
    return "[green]ok[/]" if ok else "[red]over target[/]"


def run(args: argparse.Namespace) -> int:
    try:
        import asyncssh
    except ImportError:
        print("stacks bench ssh: asyncssh is not installed (pip install asyncssh)",
              file=sys.stderr)
        return 2
    try:
        report = asyncio.run(_measure(args))
    except (RuntimeError, OSError, TimeoutError, asyncssh.Error) as exc:
        print(f"stacks bench ssh: {str(exc) or type(exc).__name__}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(report))
        return 0
    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"stacks serve on 127.0.0.1, {report['cpus']} CPUs, "
                  f"Python {report['python']}")
    for column in ("measure", "value", "target", ""):
        table.add_column(column, justify="right" if column in ("value", "target") else "left")
    first_p50 = report["first_frame_p50_s"]
    table.add_row(
        f"ssh connect to first frame ({report['first_frame_client']}, "
        f"{report['connects']} connects one after another)",
        f"p50 {first_p50:.3f} s, p99 {report['first_frame_p99_s']:.3f} s, "
        f"max {report['first_frame_max_s']:.3f} s",
        f"p50 ≤ {TARGET_FIRST_FRAME_S:g} s", _verdict(first_p50 <= TARGET_FIRST_FRAME_S),
    )
    table.add_row(
        f"… while {report['sessions']} sessions arrive, 5 at a time (asyncssh)",
        f"p50 {report['connect_to_menu_under_arrivals_p50_s']:.3f} s, "
        f"p99 {report['connect_to_menu_under_arrivals_p99_s']:.3f} s, "
        f"max {report['connect_to_menu_under_arrivals_max_s']:.3f} s", "", "",
    )
    shared = report["pss_per_session_with_fork_server_mib"]
    how = "forked from the fork server" if report["sessions_forked"] else "new interpreters"
    table.add_row(
        f"memory per session ({report['sessions']} connected, {how})",
        (f"PSS {shared} MiB with the fork server's share (its own "
         f"{report['pss_per_session_mean_mib']} MiB); " if report["sessions_forked"]
         else f"PSS {shared} MiB; ")
        + f"USS {report['uss_per_session_mean_mib']} MiB; "
        f"RSS {report['rss_per_session_mean_mib']} MiB",
        f"PSS ≤ {TARGET_SESSION_MIB:g} MiB",
        _verdict(shared is not None and shared <= TARGET_SESSION_MIB),
    )
    p99 = report["repaint_p99_ms"] or float("inf")
    table.add_row(
        f"key press to repaint, {report['sessions']} sessions pressing keys "
        f"({report['presses']} presses)",
        f"p50 {report['repaint_p50_ms']} ms, p95 {report['repaint_p95_ms']} ms, "
        f"p99 {report['repaint_p99_ms']} ms, max {report['repaint_max_ms']} ms"
        + (f", {report['no_repaint']} without repaint" if report["no_repaint"] else ""),
        f"p99 ≤ {TARGET_REPAINT_MS:g} ms", _verdict(p99 <= TARGET_REPAINT_MS),
    )
    idle, busy = report["idle_cpu_percent"], report["keys_cpu_percent"]
    per = report["cpu_ms_per_press"]
    table.add_row(
        "CPU (% of a core): server, sessions, clients",
        f"at the menu {idle['server']}, {idle['sessions']}, {idle['clients']}; pressing keys "
        f"{busy['server']}, {busy['sessions']}, {busy['clients']} ({per['server']}, "
        f"{per['sessions']}, {per['clients']} ms a press)", "", "",
    )
    table.add_row(
        "… to the last byte of the repaint",
        f"p50 {report['repaint_complete_p50_ms']} ms, "
        f"p99 {report['repaint_complete_p99_ms']} ms", "", "",
    )
    if report["sessions_forked"]:
        table.add_row("the fork server", f"PSS {report['fork_server_pss_mib']} MiB", "", "")
    table.add_row("the server itself", f"RSS {report['server_rss_mib']} MiB", "", "")
    Console().print(table)
    return 0
