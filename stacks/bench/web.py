"""``stacks bench web``: how many browser spectators one machine holds.

For each count N of the sweep, on a Mosquitto of its own (a free port on 127.0.0.1):

- ``--tables`` two-seat tables played by bots at a steady pace (a host with a bot of its
  own, and a bot seat), ten tables a process (``stacks.bench.web_tables``, one event loop
  each, as ``stacks bench load``'s workers): the tables are the load, not what is
  measured, and a host and a bot process a table would take the machine's cores from
  the server it measures;
- the tables' games start spread over one pace (table ``t`` of ``T`` ``t * pace / T``
  seconds after the first), as a real set of tables is not phase-locked: started at once,
  every table's bot acts at the same instant of each pace, so every table's program
  redraws at once, a burst of ``T`` repaints that the last table waits through.
  ``--lockstep`` starts them all at once, for that worst case;
- ``stacks web`` in its own process, the real server (started once for the sweep): one
  ``stacks watch TABLE --kiosk`` per watched table, its screen sent to every visitor;
- N browser-like spectators per table: websocket clients speaking textual-serve's
  protocol to the web server, each decoding every message it receives (the frames, then
  the terminal stream's bytes) and reading it for the table's log lines. No JavaScript
  terminal is run: a real browser would add its own drawing on the visitor's machine, not
  on the server's;
- one real headless Chromium (started once for the run; not with ``--no-browser``), a
  visitor of the first table at each count besides the N, its picture checked against
  the clients' screens and its batch to screen latency measured
  (``stacks.bench.web_browser``);
- a reference spectator per table in this process (a ``netplay`` spectator on the public
  stream), whose arrival time of each batch stands for the host's publish (one broker hop
  later: well under a millisecond on loopback).

The live log numbers the turns (``── 12. Ann's turn ──``), so each batch that starts a
turn has a line no other batch has. Latency = from the reference's arrival of a batch
that starts turn ``k`` to the first websocket message, at each client, that holds ``── k.``
(``── k.`` again later, when the log scrolls, is not counted): the table program's
receipt and drawing, the web server's relay to every visitor, the websocket. Batches that
start no turn are not timed (their lines can repeat). A turn that never shows at a client
within ``MISS_AFTER_S`` counts as a miss, at that value, in the percentiles. Also measured
per N: the CPU of the server (the web server and its tables' programs) over the window;
its memory (RSS, the web server and its children) with one visitor per table and with all
of them, so the memory each further visitor costs; and the load average of the machine.

Every process it starts is stopped by its pid at the end, interrupted or not.
Nothing here is imported by the ``stacks`` parser but `add_bench_web_arguments`.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import platform
import re
import signal
import subprocess
import sys
import tempfile
import time
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Any

from stacks.argtypes import percentile, positive_int

if TYPE_CHECKING:
    import aiohttp

    from netplay.playing.notices import Notice
    from stacks.bench.browser import Chromium
    from stacks.bench.web_browser import BrowserView

TARGET_P99_MS = 250.0
TARGET_MIB_PER_VISITOR = 1.0
TARGET_CORES = 1.0
MISS_AFTER_S = 5.0
"""A turn not shown at a client this long after the reference saw it is a miss."""
WARMUP_S = 2.0
"""Turns in the first seconds of the game (the lobby gives way to the table) not timed."""
CONNECT_AT_ONCE = 50
MAX_SPECTATORS = 2000
MAX_TABLES = 50
_HEADER = re.compile(r"── (\d+)\. ")
_DRAWN = re.compile(r"Players|Seats")
_TOKEN = re.compile(rb"\x1b\[(\d*);?(\d*)H|\x1b\[[0-9;?]*[ -/]*[@-~]"
                    rb"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[^\[\]]|([^\x1b]+)")
"""What the web server sends: cursor moves (rows and columns), other escape sequences
(styles: skipped), and text."""


def add_bench_web_arguments(targets: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Add ``web`` to the ``stacks bench`` targets."""
    bench = targets.add_parser(
        "web",
        help="browser spectators one machine holds: each table's actions reaching every "
        "visitor within 250 ms p99",
        description="For each N: --tables tables of bots on a Mosquitto of its own, "
        "`stacks web`, and N websocket clients per table speaking textual-serve's protocol "
        "(one `stacks watch --kiosk` per table on this machine, its screen sent to every "
        "client; each client decodes what it receives). Reports per N the latency from the "
        "host's batch to each client's stream showing it (p50/p99), the CPU of the server "
        "(web server and tables' programs), its memory (RSS) and what each further visitor "
        "adds, and the load average; then the largest N whose p99 is within 250 ms. One real "
        "headless Chromium also visits the first table at each count: every read of its "
        "terminal's text must be a screen the clients decoded (a mismatch fails the count), "
        "and its batch to screen latency is reported.",
    )
    bench.add_argument("--spectators", type=_spectators, nargs="+", default=[[1, 10, 100]],
                       metavar="N", help="the counts of visitors per table to measure, in "
                       "order, as 1,10,100 or 1 10 100 (1,10,100)")
    bench.add_argument("--tables", type=_tables, default=1,
                       help="tables watched at once, each by N visitors (1)")
    bench.add_argument("--seconds", type=_seconds, default=20.0,
                       help="measured window per count, after the game starts (20)")
    bench.add_argument("--pace", type=_seconds, default=0.5,
                       help="seconds each bot thinks before it acts (0.5)")
    bench.add_argument("--lockstep", action="store_true",
                       help="start every table's game at once, so their bots act in step "
                       "(the worst case; by default the starts are spread over one pace)")
    bench.add_argument("--keep-going", action="store_true",
                       help="measure every count, even past the first whose p99 is over "
                       "250 ms (by default the sweep stops there)")
    bench.add_argument("--no-browser", action="store_true",
                       help="no real Chromium (by default one headless Chromium visits the "
                       "first table at each count, and what its page shows is checked "
                       "against the clients' screens)")
    bench.add_argument("--json", action="store_true", help="print one JSON object")


def _spectators(text: str) -> list[int]:
    values = [positive_int(part) for part in text.split(",") if part.strip()]
    if not values:
        raise argparse.ArgumentTypeError(f"{text!r} is no count")
    if max(values) > MAX_SPECTATORS:
        raise argparse.ArgumentTypeError(f"at most {MAX_SPECTATORS} a table")
    return values


def _tables(text: str) -> int:
    value = positive_int(text)
    if value > MAX_TABLES:
        raise argparse.ArgumentTypeError(f"at most {MAX_TABLES} (each is 3 processes)")
    return value


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not 0 < value <= 3600:
        raise argparse.ArgumentTypeError("seconds must be more than 0, at most 3600")
    return value


# -- processes -----------------------------------------------------------------------------


class _Processes:
    """Every process this bench starts, stopped by pid (TERM, then KILL) at the end."""

    def __init__(self, home: Path) -> None:
        self.home = home
        self.started: list[subprocess.Popen[bytes]] = []
        self.others: set[int] = set()
        """Pids started by ours (the kiosks) seen running: killed if they outlive them."""

    def spawn(self, *args: str, log: Path | None = None) -> subprocess.Popen[bytes]:
        env = {**os.environ, "STACKS_HOME": str(self.home)}
        sink = log.open("wb") if log is not None else subprocess.DEVNULL
        try:
            proc = subprocess.Popen([sys.executable, "-m", "stacks.cli", *args],
                                    stdin=subprocess.DEVNULL, stdout=sink,
                                    stderr=subprocess.STDOUT, env=env)
        finally:
            if log is not None:
                sink.close()  # type: ignore[union-attr]
        self.started.append(proc)
        return proc

    def spawn_tables(self, spec: dict[str, Any], log: Path) -> subprocess.Popen[bytes]:
        """A process holding some of the bench's tables (``stacks.bench.web_tables``),
        spoken to over its standard streams."""
        env = {**os.environ, "STACKS_HOME": str(self.home)}
        with log.open("wb") as sink:
            proc = subprocess.Popen([sys.executable, "-m", "stacks.bench.web_tables",
                                     json.dumps(spec)], stdin=subprocess.PIPE,
                                    stdout=subprocess.PIPE, stderr=sink, env=env)
        self.started.append(proc)
        return proc

    def stop(self, proc: subprocess.Popen[bytes], grace: float = 10.0) -> None:
        if proc.stdin is not None and proc.poll() is None:  # a tables' process: its end
            with contextlib.suppress(OSError):
                proc.stdin.close()
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(grace)
        if proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(grace)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        if proc in self.started:
            self.started.remove(proc)

    def stop_all(self) -> None:
        for proc in reversed(list(self.started)):
            self.stop(proc)
        deadline = time.monotonic() + 5
        for pid in sorted(self.others):
            while _alive(pid) and time.monotonic() < deadline:
                time.sleep(0.05)
            if _alive(pid):
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, signal.SIGKILL)
        self.others.clear()


def _alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rindex(")") + 2] != "Z"


def _cpu_seconds(pid: int) -> float:
    """User + system CPU of ``pid`` so far (0 once it is gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _rss_kib(pid: int) -> int:
    try:
        text = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return 0
    for line in text.splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def _server(web_pid: int) -> list[int]:
    """The web server and its children (one ``stacks watch --kiosk`` per watched table)."""
    from stacks.bench.ssh import tree

    return tree(web_pid)


def _wait_line(log: Path, pattern: str, proc: subprocess.Popen[bytes],
               timeout: float) -> re.Match[str]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = re.search(pattern, log.read_text(errors="replace"))
        if found:
            return found
        if proc.poll() is not None:
            raise RuntimeError(f"{log.stem} ended with {proc.returncode}: "
                               + log.read_text(errors="replace")[-500:])
        time.sleep(0.05)
    raise RuntimeError(f"no {pattern!r} from {log.name} after {timeout:g} s")


# -- the clients ---------------------------------------------------------------------------


class _Screen:
    """A terminal screen, as the text of its rows, decoded from what a client received.

    Clients that received the same bytes from the same screen reach the same screen: each
    screen remembers what each message it was sent made of it, so 500 clients in step
    decode a message once (each still decodes its own bytes: a client whose messages
    differ, cut or joined otherwise, goes its own way)."""

    __slots__ = ("_next", "drawn", "rows", "turns")

    def __init__(self, rows: list[list[str]], turns: tuple[int, ...] = (),
                 drawn: bool = False) -> None:
        self.rows = rows
        self.turns = turns
        """The turn headers on the rows this screen's message wrote."""
        self.drawn = drawn
        """The table's screen is in (its players' or seats' box)."""
        self._next: dict[bytes, _Screen] = {}

    @classmethod
    def blank(cls, width: int, height: int) -> _Screen:
        return cls([[" "] * width for _ in range(height)])

    def then(self, data: bytes) -> _Screen:
        """The screen after ``data``."""
        found = self._next.get(data)
        if found is None:
            found = self._next[data] = self._decode(data)
        return found

    def _decode(self, data: bytes) -> _Screen:
        rows = list(self.rows)  # a row is copied when first written
        height = len(rows)
        width = len(rows[0]) if rows else 0
        written: set[int] = set()
        y = x = 0
        for token in _TOKEN.finditer(data):
            text = token.group(3)
            if text is None:
                if token.group(0).endswith(b"H"):  # a cursor move (1-based; empty: 1)
                    y = int(token.group(1) or 1) - 1
                    x = int(token.group(2) or 1) - 1
                continue
            if not 0 <= y < height or x >= width:
                continue
            chars = text.decode("utf-8", "replace")[:width - x]
            if y not in written:
                rows[y] = list(rows[y])
                written.add(y)
            rows[y][x:x + len(chars)] = chars
            x += len(chars)
        turns: list[int] = []
        drawn = False
        for row in sorted(written):
            line = "".join(rows[row])
            turns += (int(found.group(1)) for found in _HEADER.finditer(line))
            drawn = drawn or _DRAWN.search(line) is not None
        return _Screen(rows, tuple(turns), drawn)


@dataclass
class _Client:
    """A browser-like spectator: a websocket to the web server, decoding what it receives
    into a screen; notes when each turn's header first shows on it."""

    number: int
    screen: _Screen
    ws: aiohttp.ClientWebSocketResponse | None = None
    turns: dict[int, float] = field(default_factory=dict)
    received: int = 0
    drawn: asyncio.Event = field(default_factory=asyncio.Event)
    """The table's screen is in (its players' or seats' box)."""
    closed: asyncio.Event = field(default_factory=asyncio.Event)
    close_words: str = ""
    history: deque[tuple[float, _Screen]] | None = None
    """Each screen it decoded and when, if kept (the one the real browser is held to)."""

    def feed(self, data: bytes, at: float) -> None:
        self.received += len(data)
        self.screen = self.screen.then(data)
        if self.history is not None:
            self.history.append((at, self.screen))
        for turn in self.screen.turns:
            self.turns.setdefault(turn, at)
        if self.screen.drawn:
            self.drawn.set()

    async def read(self, session: aiohttp.ClientSession, url: str) -> None:
        import aiohttp

        try:
            async with session.ws_connect(url, heartbeat=None, max_msg_size=0) as ws:
                self.ws = ws
                while True:
                    message = await ws.receive()
                    if message.type == aiohttp.WSMsgType.BINARY:
                        self.feed(message.data, time.perf_counter())
                    elif message.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSING,
                                          aiohttp.WSMsgType.CLOSED, aiohttp.WSMsgType.ERROR):
                        self.close_words = f"{ws.close_code} {message.extra or ''}".strip()
                        break
        except (aiohttp.ClientError, OSError) as exc:
            self.close_words = str(exc)
        finally:
            self.closed.set()
            self.drawn.set()  # nobody waits for a screen that won't come


# -- the reference spectator ---------------------------------------------------------------


class _Reference:
    """A spectator on the public stream in this process: when each turn's batch arrived."""

    def __init__(self, table: str, broker: str) -> None:
        from netplay.identity import Identity
        from netplay.player_peer import Spectator

        reference = self

        class _Stamping(Spectator):
            def _on_notice(self, notice: Notice) -> None:
                reference.notice(notice, time.perf_counter())

        self.peer = _Stamping(Identity.generate(), table, "bench reference", broker=broker)
        self.turn = 0
        self.turns: dict[int, float] = {}
        self.batches: list[float] = []
        self.joined = asyncio.Event()
        self.started: float | None = None
        self.ended: float | None = None

    def notice(self, notice: Notice, at: float) -> None:
        from netplay.playing.notices import Applied, GameEnded, GameStarted, Joined
        from tui.history import HEADERS

        if isinstance(notice, Joined):
            self.joined.set()
        elif isinstance(notice, GameStarted) and self.started is None:
            self.started = at
        elif isinstance(notice, GameEnded) and self.ended is None:
            self.ended = at
        if isinstance(notice, Applied):
            self.batches.append(at)
            headers = sum(isinstance(event, HEADERS) for event in notice.events)
            if headers:
                self.turn += headers
                self.turns[self.turn] = at


# -- one count -----------------------------------------------------------------------------


@dataclass
class _Step:
    spectators: int
    tables: int
    connected: int = 0
    samples: list[float] = field(default_factory=list)
    missed: int = 0
    turns: int = 0
    batches: int = 0
    seconds: float = 0.0
    server_cpu: float = 0.0
    """The web server's and its tables' programs'."""
    web_cpu: float = 0.0
    own_cpu: float = 0.0
    """This process's (the clients and the references): it shares the machine too."""
    rss_first_kib: int = 0
    """The server's (web server and tables' programs) with one visitor a table."""
    rss_all_kib: int = 0
    """The same with every visitor: the most seen in the window."""
    programs: int = 0
    load: tuple[float, float, float] = (0.0, 0.0, 0.0)
    game_ended: bool = False
    bytes_per_client_s: float = 0.0
    refused: list[str] = field(default_factory=list)
    browser: dict[str, Any] | None = None
    """The real browser's check (``stacks.bench.web_browser``), if one was run."""

    def report(self) -> dict[str, Any]:
        ordered = sorted(self.samples + [MISS_AFTER_S] * self.missed)
        ms = (lambda q: round(percentile(ordered, q) * 1000, 1)) if ordered else (lambda q: None)
        span = self.seconds or 1.0
        further = self.connected - self.tables
        per_visitor = (self.rss_all_kib - self.rss_first_kib) / 1024 / further \
            if further > 0 else None
        return {
            "spectators": self.spectators,
            "tables": self.tables,
            "connected": self.connected,
            "batches": self.batches,
            "turns": self.turns,
            "samples": len(self.samples),
            "missed": self.missed,
            "p50_ms": ms(0.5),
            "p90_ms": ms(0.9),
            "p99_ms": ms(0.99),
            "max_ms": ms(1.0),
            "seconds": round(self.seconds, 1),
            "server_cpu_percent": round(100 * self.server_cpu / span, 1),
            "web_cpu_percent": round(100 * self.web_cpu / span, 1),
            "programs": self.programs,
            "clients_cpu_percent": round(100 * self.own_cpu / span, 1),
            "server_rss_first_mib": round(self.rss_first_kib / 1024, 1),
            "server_rss_mib": round(self.rss_all_kib / 1024, 1),
            "mib_per_further_visitor": round(per_visitor, 3) if per_visitor is not None
            else None,
            "stream_kib_per_client_s": round(self.bytes_per_client_s / 1024, 1),
            "load_average": [round(x, 2) for x in self.load],
            "game_ended_early": self.game_ended,
            "refused": self.refused[:3],
            "browser": self.browser if self.browser is not None else {"checked": False},
        }


@dataclass
class _Table:
    name: str
    reference: _Reference
    clients: list[_Client]


TABLES_A_PROCESS = 10
"""The bench's tables one process holds (``stacks.bench.web_tables``)."""


async def _said(proc: subprocess.Popen[bytes], what: str, log: Path, timeout: float) -> None:
    """Wait for a tables' process to say ``what`` (a line)."""
    assert proc.stdout is not None
    out = proc.stdout
    line = await asyncio.wait_for(asyncio.get_running_loop().run_in_executor(
        None, out.readline), timeout)
    if line.decode(errors="replace").strip() != what:
        raise RuntimeError("the bench's tables did not open: "
                           + log.read_text(errors="replace")[-500:])


def _tell(proc: subprocess.Popen[bytes], line: str) -> None:
    assert proc.stdin is not None
    proc.stdin.write(line.encode() + b"\n")
    proc.stdin.flush()


async def _connect(session: aiohttp.ClientSession, url: str, clients: list[_Client],
                   readers: list[asyncio.Task[None]]) -> None:
    """Connect ``clients``, a group at a time, each group's screens in before the next. A
    client told the table is not open (a listing that missed the host's announcement, on
    a loaded machine) tries again, as a visitor reloads the page."""
    for start in range(0, len(clients), CONNECT_AT_ONCE):
        group = clients[start:start + CONNECT_AT_ONCE]
        for attempt in range(4):
            readers += [asyncio.create_task(c.read(session, url)) for c in group]
            await asyncio.wait_for(asyncio.gather(*(c.drawn.wait() for c in group)), 120)
            again = [c for c in group if c.closed.is_set() and not c.received
                     and c.close_words.startswith("4000")]
            if not again or attempt == 3:
                break
            await asyncio.sleep(1.0)
            for client in again:
                client.closed.clear()
                client.drawn.clear()
                client.close_words = ""
            group = again


async def _count(procs: _Processes, broker: str, web_url: str, web_pid: int, n: int,
                 args: argparse.Namespace, folder: Path,
                 chromium: Chromium | None = None) -> _Step:
    import aiohttp

    from stacks.commands.web import DEFAULT_SCREEN

    step = _Step(n, args.tables)
    tables: list[_Table] = []
    workers: list[subprocess.Popen[bytes]] = []
    readers: list[asyncio.Task[None]] = []
    view: BrowserView | None = None
    try:
        names = [f"webbench{os.getpid() % 10000}n{n}t{t}" for t in range(args.tables)]
        for first in range(0, len(names), TABLES_A_PROCESS):
            log = folder / f"tables-{n}-{first}.log"
            worker = procs.spawn_tables({"broker": broker, "pace": args.pace,
                                         "tables": names[first:first + TABLES_A_PROCESS],
                                         "starts": _starts(args)[first:first
                                                                 + TABLES_A_PROCESS]},
                                        log)
            workers.append(worker)
            await _said(worker, "ready", log, 120)
        for name in names:
            blank = _Screen.blank(*DEFAULT_SCREEN)
            tables.append(_Table(name, _Reference(name, broker),
                                 [_Client(i, blank) for i in range(n)]))
        if chromium is not None:  # the real browser's picture is held to this client's
            tables[0].clients[0].history = deque(maxlen=BROWSER_HISTORY)
        async with contextlib.AsyncExitStack() as stack:
            for table in tables:
                await stack.enter_async_context(table.reference.peer)
            session = await stack.enter_async_context(aiohttp.ClientSession(
                connector=aiohttp.TCPConnector(limit=0)))
            await asyncio.wait_for(asyncio.gather(*(t.reference.joined.wait()
                                                    for t in tables)), 120)
            for table in tables:
                await _listed(session, web_url, table.name)
            urls = {t.name: f"{web_url}table/{t.name}/ws" for t in tables}
            # The first visitor of each table starts its program: the server's memory then.
            await asyncio.gather(*(_connect(session, urls[t.name], t.clients[:1], readers)
                                   for t in tables))
            step.programs = len(_server(web_pid)) - 1
            step.rss_first_kib = sum(_rss_kib(pid) for pid in _server(web_pid))
            await asyncio.gather(*(_connect(session, urls[t.name], t.clients[1:], readers)
                                   for t in tables))
            everyone = [c for t in tables for c in t.clients]
            step.refused = [c.close_words for c in everyone if c.closed.is_set()]
            step.connected = sum(not c.closed.is_set() for c in everyone)
            if not step.connected:
                raise RuntimeError("no spectator got a view: " + "; ".join(step.refused))
            if chromium is not None:
                view = await _open_browser(chromium, web_url, tables[0])
            for worker in workers:  # the games start: each table's bot takes its seat
                _tell(worker, "go")
            deadline = time.monotonic() + 120
            while any(t.reference.started is None for t in tables):
                if time.monotonic() > deadline:
                    raise RuntimeError("a table's game never started")
                await asyncio.sleep(0.05)
            await asyncio.sleep(WARMUP_S)
            first_turn = {t.name: t.reference.turn + 1 for t in tables}
            server = _server(web_pid)
            procs.others.update(server[1:])
            cpu_at = {pid: _cpu_seconds(pid) for pid in server}
            cpu_now = dict(cpu_at)
            cpu_web = cpu_at[web_pid]
            cpu_own = time.process_time()
            bytes_at = sum(c.received for c in everyone)
            began = time.perf_counter()
            if view is not None and chromium is not None:
                await view.start(chromium)
            until = began + args.seconds
            # Until the window ends or every table's game has (a table's program that ends
            # meanwhile keeps the CPU it was last seen to have used).
            while time.perf_counter() < until and any(t.reference.ended is None
                                                      for t in tables):
                await asyncio.sleep(0.5)
                server = _server(web_pid)
                for pid in server:
                    cpu_now[pid] = _cpu_seconds(pid)
                step.rss_all_kib = max(step.rss_all_kib, sum(_rss_kib(pid) for pid in server))
            end = time.perf_counter()
            step.game_ended = any(t.reference.ended is not None for t in tables)
            step.seconds = end - began
            server = _server(web_pid)
            for pid in server:
                cpu_now[pid] = _cpu_seconds(pid)
            step.server_cpu = sum(cpu_now[pid] - cpu_at.get(pid, 0.0) for pid in cpu_now)
            step.web_cpu = _cpu_seconds(web_pid) - cpu_web
            step.own_cpu = time.process_time() - cpu_own
            live = [c for c in everyone if not c.closed.is_set()]
            step.bytes_per_client_s = (sum(c.received for c in everyone) - bytes_at) \
                / max(1, len(live)) / step.seconds
            step.rss_all_kib = max(step.rss_all_kib, sum(_rss_kib(pid) for pid in server))
            step.load = os.getloadavg()
            timed = {t.name: {k: at for k, at in t.reference.turns.items()
                              if k >= first_turn[t.name] and at <= end} for t in tables}
            # The last turns may still be on their way: give them their time.
            latest = max((at for turns in timed.values() for at in turns.values()), default=0)
            await asyncio.sleep(min(MISS_AFTER_S, max(0.0, latest + MISS_AFTER_S
                                                      - time.perf_counter())))
            if view is not None and chromium is not None:
                step.browser = await view.finish(chromium, timed[tables[0].name], end)
            for table in tables:
                turns = timed[table.name]
                step.turns += len(turns)
                step.batches += sum(began <= at <= end for at in table.reference.batches)
                for client in table.clients:
                    if client.closed.is_set() and not client.turns:
                        continue  # refused: counted apart
                    for turn, at in turns.items():
                        seen = client.turns.get(turn)
                        if seen is None or seen - at > MISS_AFTER_S:
                            step.missed += 1
                        else:
                            step.samples.append(max(0.0, seen - at))
            await asyncio.gather(*(c.ws.close() for c in everyone if c.ws is not None),
                                 return_exceptions=True)
            await asyncio.wait_for(asyncio.gather(*readers, return_exceptions=True), 60)
    finally:
        if view is not None:
            await view.close()
        for task in readers:
            task.cancel()
        for worker in workers:
            procs.stop(worker)
    # The tables' programs end when nobody watches (--linger 0): the next count starts clean.
    deadline = time.monotonic() + 30
    while len(_server(web_pid)) > 1 and time.monotonic() < deadline:
        await asyncio.sleep(0.1)
    return step


BROWSER_HISTORY = 20_000
"""The screens of the client the browser is held to kept at most (a few a batch)."""


async def _open_browser(chromium: Chromium, web_url: str, table: _Table) -> BrowserView:
    """The real browser's tab on ``table``: one more visitor, besides the N measured."""
    from stacks.bench.web_browser import open_view
    from stacks.commands.web import DEFAULT_SCREEN

    return await open_view(chromium, web_url, table.name, table.clients[0], DEFAULT_SCREEN,
                           MISS_AFTER_S, _cpu_seconds)


async def _listed(session: aiohttp.ClientSession, web_url: str, table: str) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        async with session.get(web_url + "tables.json") as reply:
            data = await reply.json()
        if any(row["table"] == table for row in data["tables"]):
            return
        await asyncio.sleep(0.5)
    raise RuntimeError(f"stacks web never listed table {table}")


async def _sweep(procs: _Processes, broker: str, args: argparse.Namespace,
                 folder: Path, chromium: Chromium | None = None) -> list[_Step]:
    from stacks.bench.net import free_port
    from stacks.bench.web_browser import words

    port = free_port()
    cap = max(_counts(args)) * args.tables + (chromium is not None)
    web_log = folder / "web.log"
    web = procs.spawn("web", "--port", str(port), "--broker", broker, "--max-spectators",
                      str(cap), "--idle-timeout", "0", "--linger", "0", log=web_log)
    _wait_line(web_log, r"stacks web: .* on http://", web, 60)
    web_url = f"http://127.0.0.1:{port}/"
    steps: list[_Step] = []
    for n in _counts(args):
        step = await _count(procs, broker, web_url, web.pid, n, args, folder, chromium)
        steps.append(step)
        if not args.json:
            _print_step(step.report())
            if step.browser is not None:
                print(words(step.browser), flush=True)
        p99 = step.report()["p99_ms"]
        if not args.keep_going and (p99 is None or p99 > TARGET_P99_MS
                                    or _browser_failed(step.report())):
            break
    return steps


def _starts(args: argparse.Namespace) -> list[float]:
    """When each table's game starts, in seconds after the first's."""
    if args.lockstep:
        return [0.0] * args.tables
    return [round(t * args.pace / args.tables, 3) for t in range(args.tables)]


def _counts(args: argparse.Namespace) -> list[int]:
    return [n for group in args.spectators for n in group]


def _browser_failed(report: dict[str, Any]) -> bool:
    """Whether the count's real browser was checked and its picture did not match."""
    browser = report["browser"]
    return bool(browser.get("matched") is False)


# -- the command ---------------------------------------------------------------------------


@contextlib.contextmanager
def _terminated_as_interrupt() -> Iterator[None]:
    """SIGTERM ends the bench as Ctrl-C does: through every ``finally``, so that each
    process started here is stopped."""

    def interrupt(signum: int, frame: FrameType | None) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def measure(args: argparse.Namespace) -> dict[str, Any]:
    from stacks.bench.net import broker_process
    from stacks.commands.web import DEFAULT_SCREEN, room_for_sockets

    room_for_sockets(max(_counts(args)) * args.tables + 64 * args.tables)
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="stacks-bench-web-") as tmp:
        folder = Path(tmp)
        procs = _Processes(folder / "home")
        chromium = None
        try:
            chromium = _start_browser(args)
            with broker_process("mosquitto") as (broker, _pid):
                steps = asyncio.run(_sweep(procs, broker, args, folder, chromium))
        finally:
            if chromium is not None:
                chromium.stop()
            procs.stop_all()
    reports = [step.report() for step in steps]
    within = [r["spectators"] for r in reports
              if r["p99_ms"] is not None and r["p99_ms"] <= TARGET_P99_MS
              and not _browser_failed(r)]
    return {
        "benchmark": "web",
        "python": platform.python_version(),
        "cpus": os.cpu_count(),
        "pace_s": args.pace,
        "window_s": args.seconds,
        "tables": args.tables,
        "lockstep": args.lockstep,
        "tables_hosted": f"{-(-args.tables // TABLES_A_PROCESS)} process(es) of the bench, "
        f"up to {TABLES_A_PROCESS} tables each (hosts and bots in one event loop; not "
        "counted in the server's CPU)",
        "terminal": "{}x{}".format(*DEFAULT_SCREEN),
        "load_average_before": [round(x, 2) for x in load_before],
        "steps": reports,
        "target_p99_ms": TARGET_P99_MS,
        "target_mib_per_further_visitor": TARGET_MIB_PER_VISITOR,
        "target_server_cores": TARGET_CORES,
        "most_spectators_within_target": max(within) if within else None,
        "browser": "none (--no-browser)" if args.no_browser else
        "one headless Chromium, a visitor of the first table at each count: its terminal's "
        "text checked against the websocket clients' screens, and its batch to screen "
        "latency",
        "browser_failures": [{"spectators": r["spectators"], "words": r["browser"]["words"]}
                             for r in reports if _browser_failed(r)],
    }


class NoBrowser(RuntimeError):
    """No Chromium to run (and no ``--no-browser``)."""


def _start_browser(args: argparse.Namespace) -> Chromium | None:
    """The run's headless Chromium, started (``None`` with ``--no-browser``)."""
    from stacks.bench.browser import CdpError, Chromium, chromium_exe

    if args.no_browser:
        return None
    exe = chromium_exe()
    if exe is None:
        raise NoBrowser("no Chromium found (chromium, chromium-browser or google-chrome on "
                        "PATH): install it (apt-get install chromium) or run with "
                        "--no-browser")
    chromium = Chromium(exe)
    try:
        chromium.start(60.0)
    except CdpError as exc:
        chromium.stop()
        raise NoBrowser(f"Chromium ({exe}) did not start: {exc}; or run with --no-browser") \
            from None
    return chromium


def _print_step(report: dict[str, Any]) -> None:
    tables = report["tables"]
    print(f"{report['spectators']:>4} spectators a table x {tables} "
          f"table{'s' if tables != 1 else ''} ({report['connected']} connected): batch to "
          f"browser stream p50 {report['p50_ms']} ms, p99 {report['p99_ms']} ms, max "
          f"{report['max_ms']} ms ({report['samples']} samples, {report['missed']} missed, "
          f"{report['turns']} turns timed of {report['batches']} batches); server "
          f"{report['server_cpu_percent']}% CPU (web server {report['web_cpu_percent']}%, "
          f"{report['programs']} table programs), clients {report['clients_cpu_percent']}%; "
          f"server RSS {report['server_rss_mib']} MiB ({report['server_rss_first_mib']} with "
          f"one visitor a table: {report['mib_per_further_visitor']} MiB a further "
          f"visitor); {report['stream_kib_per_client_s']} KiB/s a visitor; load average "
          f"{' '.join(map(str, report['load_average']))}", flush=True)


def run(args: argparse.Namespace) -> int:
    try:
        import aiohttp  # noqa: F401
        import textual_serve  # noqa: F401
    except ImportError:
        print("stacks bench web: aiohttp and textual-serve are needed", file=sys.stderr)
        return 2
    try:
        with _terminated_as_interrupt():
            report = measure(args)
    except NoBrowser as exc:
        print(f"stacks bench web: {exc}", file=sys.stderr)
        return 3
    except (RuntimeError, OSError, TimeoutError) as exc:
        print(f"stacks bench web: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("stacks bench web: interrupted; every process it started is stopped",
              file=sys.stderr)
        return 130
    failures = report["browser_failures"]
    if args.json:
        print(json.dumps(report))
    else:
        best = report["most_spectators_within_target"]
        print(f"the tables: {report['tables_hosted']}; their games started "
              + ("at once (--lockstep)" if report["lockstep"] else "spread over one pace"))
        print(f"most browser spectators with p99 within {TARGET_P99_MS:g} ms: "
              f"{best if best is not None else 'none measured'} ({report['cpus']} CPUs, load "
              f"average before {' '.join(map(str, report['load_average_before']))})")
    for failure in failures:
        print(f"stacks bench web: at {failure['spectators']} spectators a table, the real "
              f"browser's picture did not match: {failure['words']}", file=sys.stderr)
    return 1 if failures else 0
