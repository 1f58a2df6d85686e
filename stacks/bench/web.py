"""``stacks bench web``: how many browser spectators one machine holds.

For each count N of the sweep, on a Mosquitto of its own (a free port on 127.0.0.1):

- a two-seat table played by bots at a steady pace (``stacks host --headless`` with its
  bot, and a ``stacks bot``), each in its own process;
- ``stacks web`` in its own process, the real server: each visitor runs its own
  ``stacks watch TABLE --kiosk`` (the real cost: a Textual program per visitor);
- N browser-like spectators: websocket clients speaking textual-serve's protocol to the
  web server, each receiving the terminal output stream of its kiosk and reading it (the
  escape sequences taken out) for the table's log lines. No JavaScript terminal is run:
  a real browser would add its own drawing on the visitor's machine, not on the server's;
- a reference spectator in this process (a ``netplay`` spectator on the public stream),
  whose arrival time of each batch stands for the host's publish (one broker hop later:
  well under a millisecond on loopback).

The live log numbers the turns (``── 12. Ann's turn ──``), so each batch that starts a
turn has a line no other batch has. Latency = from the reference's arrival of a batch
that starts turn ``k`` to the first websocket message, at each client, whose text holds
``── k.``: the kiosk's receipt and rendering, the web server's relay, the websocket.
Batches that start no turn are not timed (their lines can repeat). A turn that never
shows at a client within ``MISS_AFTER_S`` counts as a miss, at that value, in the
percentiles. Also measured per N: the CPU of the kiosks and of the web server over the
window, the memory of each kiosk (PSS, shared pages split fairly; from /proc), and the
load average of the machine.

Every process it starts is stopped by its pid at the end, interrupted or not.
Nothing here is imported by the ``stacks`` parser but `add_bench_web_arguments`.
"""

from __future__ import annotations

import argparse
import asyncio
import codecs
import contextlib
import json
import os
import platform
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Any

from stacks.argtypes import percentile, positive_int

if TYPE_CHECKING:
    import aiohttp

    from netplay.playing.notices import Notice

TARGET_P99_MS = 100.0
MISS_AFTER_S = 5.0
"""A turn not shown at a client this long after the reference saw it is a miss."""
WARMUP_S = 2.0
"""Turns in the first seconds of the game (the lobby gives way to the table) not timed."""
WIDTH, HEIGHT = 140, 45
"""The clients' terminal size (a browser window of about 1150 x 800 pixels)."""
CONNECT_AT_ONCE = 5
MAX_SPECTATORS = 200
_TURN = re.compile(r"── (\d+)\. ")
_CURSOR_TO = re.compile(r"\x1b\[[0-9;]*[Hf]")
_ESCAPE = re.compile(r"\x1b\[[0-9;?<>=:]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)"
                     r"|\x1b[()][A-Za-z0-9]|\x1b[=>78DEHMNOZc]")
_TAIL = 400
"""Raw characters of a client's previous message kept in front of the next one, so that a
line cut between two messages is still read whole."""


def add_bench_web_arguments(targets: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Add ``web`` to the ``stacks bench`` targets."""
    bench = targets.add_parser(
        "web",
        help="browser spectators one machine holds: the table's actions reaching each "
        "within 100 ms p99",
        description="For each N: a table of bots on a Mosquitto of its own, `stacks web`, "
        "and N websocket clients speaking textual-serve's protocol (each a `stacks watch "
        "--kiosk` on this machine, its terminal stream read by the client). Reports per N "
        "the latency from the host's batch to each client's stream showing it (p50/p99), "
        "the CPU of the kiosks and the web server, memory per spectator (PSS) and the load "
        "average; then the largest N whose p99 is within 100 ms.",
    )
    bench.add_argument("--spectators", type=_spectators, nargs="+", default=[1, 5, 10, 20],
                       metavar="N", help="the counts to measure, in order (1 5 10 20)")
    bench.add_argument("--seconds", type=_seconds, default=20.0,
                       help="measured window per count, after the game starts (20)")
    bench.add_argument("--pace", type=_seconds, default=0.5,
                       help="seconds each bot thinks before it acts (0.5)")
    bench.add_argument("--keep-going", action="store_true",
                       help="measure every count, even past the first whose p99 is over "
                       "100 ms (by default the sweep stops there)")
    bench.add_argument("--json", action="store_true", help="print one JSON object")


def _spectators(text: str) -> int:
    value = positive_int(text)
    if value > MAX_SPECTATORS:
        raise argparse.ArgumentTypeError(f"at most {MAX_SPECTATORS} (each is a process)")
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

    def stop(self, proc: subprocess.Popen[bytes], grace: float = 10.0) -> None:
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


def _pss_kib(pid: int) -> int:
    try:
        text = Path(f"/proc/{pid}/smaps_rollup").read_text()
    except OSError:
        return 0
    for line in text.splitlines():
        if line.startswith("Pss:"):
            return int(line.split()[1])
    return 0


def _kiosks(web_pid: int) -> list[int]:
    """The web server's children: one ``stacks watch --kiosk`` per visitor."""
    from stacks.bench.ssh import _children

    return _children(web_pid)


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


def screen_text(raw: str) -> str:
    """The text of a piece of terminal output: each cursor move a line break, every other
    escape sequence gone."""
    return _ESCAPE.sub("", _CURSOR_TO.sub("\n", raw))


@dataclass
class _Client:
    """A browser-like spectator: a websocket to the web server, reading its terminal
    stream; notes when each turn's header first shows."""

    number: int
    ws: aiohttp.ClientWebSocketResponse | None = None
    turns: dict[int, float] = field(default_factory=dict)
    received: int = 0
    text_seen: str = ""
    """The stream's text until the first frame is in (then no longer kept)."""
    first_frame: asyncio.Event = field(default_factory=asyncio.Event)
    closed: asyncio.Event = field(default_factory=asyncio.Event)
    close_words: str = ""
    _tail: str = ""
    _decoder: codecs.IncrementalDecoder = field(
        default_factory=lambda: codecs.getincrementaldecoder("utf-8")("replace"))

    def feed(self, data: bytes, at: float) -> None:
        self.received += len(data)
        raw = self._tail + self._decoder.decode(data)
        text = screen_text(raw)
        for found in _TURN.finditer(text):
            self.turns.setdefault(int(found.group(1)), at)
        self._tail = raw[-_TAIL:]
        if not self.first_frame.is_set():
            self.text_seen += text
            if re.search(r"Players|Seats", self.text_seen):
                self.first_frame.set()
                self.text_seen = ""

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
            self.first_frame.set()  # nobody waits for a frame that won't come


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
    connected: int = 0
    samples: list[float] = field(default_factory=list)
    missed: int = 0
    turns: int = 0
    batches: int = 0
    seconds: float = 0.0
    kiosk_cpu: float = 0.0
    web_cpu: float = 0.0
    own_cpu: float = 0.0
    """This process's (the clients and the reference): it shares the machine too."""
    kiosk_pss_kib: list[int] = field(default_factory=list)
    web_pss_kib: int = 0
    load: tuple[float, float, float] = (0.0, 0.0, 0.0)
    game_ended: bool = False
    bytes_per_client_s: float = 0.0
    refused: list[str] = field(default_factory=list)

    def report(self) -> dict[str, Any]:
        ordered = sorted(self.samples + [MISS_AFTER_S] * self.missed)
        ms = (lambda q: round(percentile(ordered, q) * 1000, 1)) if ordered else (lambda q: None)
        span = self.seconds or 1.0
        pss = [kib / 1024 for kib in self.kiosk_pss_kib]
        return {
            "spectators": self.spectators,
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
            "kiosks_cpu_percent": round(100 * self.kiosk_cpu / span, 1),
            "kiosk_cpu_percent_each": round(100 * self.kiosk_cpu / span / self.connected, 1)
            if self.connected else None,
            "web_cpu_percent": round(100 * self.web_cpu / span, 1),
            "clients_cpu_percent": round(100 * self.own_cpu / span, 1),
            "pss_per_spectator_mib": round(statistics.fmean(pss), 1) if pss else None,
            "pss_per_spectator_max_mib": round(max(pss), 1) if pss else None,
            "web_pss_mib": round(self.web_pss_kib / 1024, 1),
            "stream_kib_per_client_s": round(self.bytes_per_client_s / 1024, 1),
            "load_average": [round(x, 2) for x in self.load],
            "game_ended_early": self.game_ended,
            "refused": self.refused[:3],
        }


async def _count(procs: _Processes, broker: str, web_url: str, web_pid: int, n: int,
                 args: argparse.Namespace, folder: Path) -> _Step:
    import aiohttp

    step = _Step(n)
    table = f"webbench{os.getpid() % 10000}n{n}"
    pace = str(args.pace)
    host = procs.spawn("host", "--headless", "--players", "2", "--bots", "1", "--bot-delay",
                       pace, "--table", table, "--broker", broker, "--profile", f"host{n}",
                       "--block-window", "0.5", "--turn-clock", "0", "--verify-wait", "1",
                       log=folder / f"host-{n}.log")
    bot: subprocess.Popen[bytes] | None = None
    reference = _Reference(table, broker)
    clients = [_Client(i) for i in range(n)]
    readers: list[asyncio.Task[None]] = []
    try:
        async with reference.peer, aiohttp.ClientSession() as session:
            await asyncio.wait_for(reference.joined.wait(), 60)
            await _listed(session, web_url, table)
            ws_url = f"{web_url}table/{table}/ws?width={WIDTH}&height={HEIGHT}"
            for start in range(0, n, CONNECT_AT_ONCE):
                group = clients[start:start + CONNECT_AT_ONCE]
                readers += [asyncio.create_task(c.read(session, ws_url)) for c in group]
                await asyncio.wait_for(
                    asyncio.gather(*(c.first_frame.wait() for c in group)), 120)
            step.refused = [c.close_words for c in clients if c.closed.is_set()]
            live = [c for c in clients if not c.closed.is_set()]
            step.connected = len(live)
            if not live:
                raise RuntimeError("no spectator got a view: " + "; ".join(step.refused))
            kiosks = _kiosks(web_pid)
            procs.others.update(kiosks)
            bot = procs.spawn("bot", table, "--broker", broker, "--think", pace,
                              "--profile", f"bot{n}", log=folder / f"bot-{n}.log")
            deadline = time.monotonic() + 60
            while reference.started is None:
                if time.monotonic() > deadline:
                    raise RuntimeError("the table's game never started")
                await asyncio.sleep(0.05)
            await asyncio.sleep(WARMUP_S)
            first_turn = reference.turn + 1
            cpu_kiosks = sum(_cpu_seconds(pid) for pid in kiosks)
            cpu_web = _cpu_seconds(web_pid)
            cpu_own = time.process_time()
            bytes_at = sum(c.received for c in live)
            began = time.perf_counter()
            until = began + args.seconds
            while time.perf_counter() < until and reference.ended is None:
                await asyncio.sleep(0.1)
            end = time.perf_counter()
            step.game_ended = reference.ended is not None
            step.seconds = end - began
            step.kiosk_cpu = sum(_cpu_seconds(pid) for pid in kiosks) - cpu_kiosks
            step.web_cpu = _cpu_seconds(web_pid) - cpu_web
            step.own_cpu = time.process_time() - cpu_own
            step.bytes_per_client_s = (sum(c.received for c in live) - bytes_at) \
                / len(live) / step.seconds
            step.kiosk_pss_kib = [_pss_kib(pid) for pid in kiosks]
            step.web_pss_kib = _pss_kib(web_pid)
            step.load = os.getloadavg()
            timed = {k: at for k, at in reference.turns.items()
                     if k >= first_turn and at <= end}
            # The last turns may still be on their way: give them their time.
            await asyncio.sleep(min(MISS_AFTER_S, max(0.0, max(timed.values(), default=0)
                                                      + MISS_AFTER_S - time.perf_counter())))
            step.turns = len(timed)
            step.batches = sum(began <= at <= end for at in reference.batches)
            for client in live:
                for turn, at in timed.items():
                    seen = client.turns.get(turn)
                    if seen is None or seen - at > MISS_AFTER_S:
                        step.missed += 1
                    else:
                        step.samples.append(max(0.0, seen - at))
            for client in live:
                if client.ws is not None:
                    await client.ws.close()
            await asyncio.wait_for(asyncio.gather(*readers, return_exceptions=True), 30)
    finally:
        for task in readers:
            task.cancel()
        if bot is not None:
            procs.stop(bot)
        procs.stop(host)
    # The visitors' programs end as their pages close: wait, so the next count starts clean.
    deadline = time.monotonic() + 30
    while _kiosks(web_pid) and time.monotonic() < deadline:
        await asyncio.sleep(0.1)
    return step


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
                 folder: Path) -> list[_Step]:
    from stacks.bench.net import free_port

    port = free_port()
    cap = max(args.spectators)
    web_log = folder / "web.log"
    web = procs.spawn("web", "--port", str(port), "--broker", broker, "--max-spectators",
                      str(cap), "--idle-timeout", "0", log=web_log)
    _wait_line(web_log, r"stacks web: .* on http://", web, 60)
    web_url = f"http://127.0.0.1:{port}/"
    steps: list[_Step] = []
    for n in args.spectators:
        step = await _count(procs, broker, web_url, web.pid, n, args, folder)
        steps.append(step)
        if not args.json:
            _print_step(step.report())
        p99 = step.report()["p99_ms"]
        if not args.keep_going and (p99 is None or p99 > TARGET_P99_MS):
            break
    return steps


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

    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="stacks-bench-web-") as tmp:
        folder = Path(tmp)
        procs = _Processes(folder / "home")
        try:
            with broker_process("mosquitto") as (broker, _pid):
                steps = asyncio.run(_sweep(procs, broker, args, folder))
        finally:
            procs.stop_all()
    reports = [step.report() for step in steps]
    within = [r["spectators"] for r in reports
              if r["p99_ms"] is not None and r["p99_ms"] <= TARGET_P99_MS]
    return {
        "benchmark": "web",
        "python": platform.python_version(),
        "cpus": os.cpu_count(),
        "pace_s": args.pace,
        "window_s": args.seconds,
        "terminal": f"{WIDTH}x{HEIGHT}",
        "load_average_before": [round(x, 2) for x in load_before],
        "steps": reports,
        "target_p99_ms": TARGET_P99_MS,
        "most_spectators_within_target": max(within) if within else None,
    }


def _print_step(report: dict[str, Any]) -> None:
    print(f"{report['spectators']:>4} spectators ({report['connected']} connected): "
          f"batch to browser stream p50 {report['p50_ms']} ms, p99 {report['p99_ms']} ms, "
          f"max {report['max_ms']} ms ({report['samples']} samples, {report['missed']} "
          f"missed, {report['turns']} turns timed of {report['batches']} batches); "
          f"kiosks {report['kiosks_cpu_percent']}% CPU "
          f"({report['kiosk_cpu_percent_each']}% each), web server "
          f"{report['web_cpu_percent']}%, clients {report['clients_cpu_percent']}%; PSS "
          f"{report['pss_per_spectator_mib']} MiB a "
          f"spectator, web server {report['web_pss_mib']} MiB; load average "
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
    except (RuntimeError, OSError, TimeoutError) as exc:
        print(f"stacks bench web: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("stacks bench web: interrupted; every process it started is stopped",
              file=sys.stderr)
        return 130
    if args.json:
        print(json.dumps(report))
        return 0
    best = report["most_spectators_within_target"]
    print(f"most browser spectators with p99 within {TARGET_P99_MS:g} ms: "
          f"{best if best is not None else 'none measured'} ({report['cpus']} CPUs, load "
          f"average before {' '.join(map(str, report['load_average_before']))})")
    return 0
