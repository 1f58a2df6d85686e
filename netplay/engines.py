"""Outside programs as bots: the engine protocol's process side (``docs/engine-protocol.md``).

An :class:`EngineBot` is a bot like ours (``choose(view, seat, legal)``), so every place
that seats a bot seats a program too: ``stacks bot --engine`` (a peer of its own), the
host's engine seats, ``stacks tournament --engine``. It runs the program as a child
process and speaks JSON lines over its stdin and stdout; the messages themselves are
built and read by :mod:`engine.engine_protocol` from the seat's own view.

Its calls are blocking and run in a worker thread, as a search bot's do (``SEARCHES``):
the drivers already hand such bots to a thread, and a tournament calls bots in a plain
loop, so one synchronous adapter serves all of them. Threads own the pipes: one reads
stdout (lines cut at :data:`MAX_LINE`, so a flood or a line without end costs nothing
but the reading), one drains stderr into the log (rate-limited), one writes stdin (a
program that stops reading never blocks the table). A decision waits at most its budget;
whatever goes wrong — too slow, crashed, a line that is not JSON, an unknown id, an
illegal action — is said in words and the stand-in bot plays that decision. A program
that crashes is started again up to ``restarts`` times; after that the stand-in plays on.
"""

from __future__ import annotations

import contextlib
import logging
import os
import queue
import re
import shlex
import subprocess
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import IO, Any, Final

from engine.engine_protocol import (
    Answer,
    Chat,
    EngineProtocolError,
    Handshake,
    Said,
    chat_message,
    check_handshake,
    decide_message,
    encode,
    end_message,
    game_message,
    game_name,
    hello,
    parse_line,
)
from engine.games import TableBot, game_def
from engine.state import Outcome, Seat

log = logging.getLogger(__name__)

MAX_LINE: Final = 64 * 1024
"""The longest line a program may send; a longer one is refused and skipped."""
DEFAULT_BUDGET: Final = 2.0
"""Seconds a program has for a decision unless told otherwise."""
HANDSHAKE_TIMEOUT: Final = 10.0
"""Seconds a program has to say hello after it starts (an interpreter's start-up)."""
DEFAULT_RESTARTS: Final = 3
STANDIN: Final = "medium"
QUEUED: Final = 256
"""Lines read and not yet looked at; past that a flood's lines are dropped."""
SAY_EVERY: Final = 10.0
SAY_AT_MOST: Final = 5
"""Each kind of complaint is said at most this many times every ``SAY_EVERY`` seconds."""
STDERR_AT_MOST: Final = 20
FLOOD_LINES: Final = 2_000
FLOOD_WINDOW: Final = 10.0
"""A program that writes more than ``FLOOD_LINES`` lines in ``FLOOD_WINDOW`` seconds (it
is asked one answer a decision) is stopped, as if it had crashed."""


class EngineError(Exception):
    """A program that can't be used at all (can't start, refused at the handshake)."""


@dataclass(frozen=True, slots=True)
class EngineSpec:
    """A program to run: its name at the table and its command line."""

    name: str
    command: tuple[str, ...]

    @classmethod
    def parse(cls, text: str, *, named: bool = True) -> EngineSpec:
        """``NAME=CMD ARGS`` (or, with ``named=False``, ``CMD ARGS``, named after the
        program); ``ValueError`` in words."""
        name = ""
        if named:
            name, sep, text = text.partition("=")
            name = name.strip()
            if not sep or not name or not name.replace("-", "").replace("_", "").isalnum():
                raise ValueError(f"an engine is NAME=COMMAND (NAME in letters, digits, - "
                                 f"and _), as in mine=./mybot.py; not {text!r}")
        try:
            words = tuple(shlex.split(text))
        except ValueError as exc:
            raise ValueError(f"the engine's command can't be read: {exc}") from None
        if not words:
            raise ValueError("the engine's command is empty")
        if not name:
            program = words[0]
            if _INTERPRETER.fullmatch(os.path.basename(program)):
                program = next((w for w in words[1:] if not w.startswith("-")), program)
            name = os.path.splitext(os.path.basename(program))[0] or "engine"
        return cls(name, words)


_INTERPRETER = re.compile(r"(python|pypy|node|nodejs|deno|ruby|perl|java)[\d.]*")


class Ended:
    """The program's stdout closed: it ended (or closed it)."""


ENDED: Final = Ended()


class _Limiter:
    """Says a kind of line at most ``at_most`` times every ``SAY_EVERY`` seconds, then how
    many it kept quiet."""

    def __init__(self, say: Callable[[str], None], at_most: int = SAY_AT_MOST) -> None:
        self.say = say
        self.at_most = at_most
        self.window: dict[str, tuple[float, int, int]] = {}
        self.lock = threading.Lock()

    def __call__(self, kind: str, text: str) -> None:
        now = time.monotonic()
        with self.lock:
            start, said, quiet = self.window.get(kind, (now, 0, 0))
            if now - start > SAY_EVERY:
                if quiet:
                    self.say(f"({quiet} more like it not shown)")
                start, said, quiet = now, 0, 0
            if said < self.at_most:
                said += 1
                speak = True
            else:
                quiet += 1
                speak = False
            self.window[kind] = (start, said, quiet)
        if speak:
            self.say(text)


class EngineProcess:
    """One run of the program: started, greeted, read and written by threads, stopped."""

    def __init__(self, spec: EngineSpec, complain: _Limiter, *,
                 cwd: str | None = None) -> None:
        self.spec = spec
        self.complain = complain
        self.lines: queue.Queue[Said | Ended] = queue.Queue(QUEUED)
        self.outbox: queue.Queue[bytes | None] = queue.Queue(QUEUED)
        self.handshake: Handshake | None = None
        try:
            self.proc = subprocess.Popen(
                spec.command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                stderr=subprocess.PIPE, cwd=cwd, start_new_session=True)
        except OSError as exc:
            raise EngineError(f"engine {spec.name}: can't start "
                              f"{shlex.join(spec.command)!r}: {exc.strerror or exc}") from None
        assert self.proc.stdout and self.proc.stderr and self.proc.stdin
        for target, stream in ((self._read, self.proc.stdout), (self._drain, self.proc.stderr),
                               (self._write, self.proc.stdin)):
            threading.Thread(target=target, args=(stream,), daemon=True,
                             name=f"engine-{spec.name}-{target.__name__}").start()

    @property
    def pid(self) -> int:
        return self.proc.pid

    def greet(self, timeout: float) -> Handshake:
        """Send our hello and wait for the program's; :class:`EngineError` in words."""
        self.send(hello())
        deadline = time.monotonic() + timeout
        while True:
            item = self.next(deadline)
            if item is None:
                raise EngineError(f"engine {self.spec.name} did not say hello within "
                                  f"{timeout:g} s")
            if isinstance(item, Ended):
                raise EngineError(f"engine {self.spec.name} ended before its hello "
                                  f"({self.exit_words()})")
            if isinstance(item, Handshake):
                try:
                    check_handshake(item)
                except EngineProtocolError as exc:
                    self.send({"type": "error", "message": str(exc)})
                    raise EngineError(f"engine {self.spec.name} refused: {exc}") from None
                self.handshake = item
                return item
            self.complain("early", f"engine {self.spec.name}: a line before its hello was "
                          "ignored")

    def send(self, message: dict[str, Any]) -> None:
        try:
            self.outbox.put_nowait(encode(message))
        except queue.Full:
            self.complain("unread", f"engine {self.spec.name} is not reading what it is "
                          "sent; a message was dropped")

    def next(self, deadline: float) -> Said | Ended | None:
        """The next thing the program said, or ``None`` at the deadline."""
        try:
            return self.lines.get(timeout=max(0.0, deadline - time.monotonic()))
        except queue.Empty:
            return None

    def exit_words(self) -> str:
        try:
            code = self.proc.wait(1.0)
        except subprocess.TimeoutExpired:
            return "it closed its output"
        return f"exit code {code}" if code >= 0 else f"killed by signal {-code}"

    def _read(self, stream: IO[bytes]) -> None:
        name = self.spec.name
        since, count = time.monotonic(), 0
        try:
            while True:
                line = stream.readline(MAX_LINE + 1)
                if not line:
                    break
                if len(line) > MAX_LINE and not line.endswith(b"\n"):
                    self.complain("long", f"engine {name}: a line over {MAX_LINE // 1024} KiB "
                                  "was refused")
                    while (rest := stream.readline(MAX_LINE)) and not rest.endswith(b"\n"):
                        pass
                    continue
                if not line.strip():
                    continue
                try:
                    said = parse_line(line)
                except EngineProtocolError as exc:
                    self.complain("bad", f"engine {name}: refused a line: {exc}")
                    continue
                now = time.monotonic()
                if now - since > FLOOD_WINDOW:
                    since, count = now, 0
                count += 1
                if count > FLOOD_LINES:
                    self.complain("flooded", f"engine {name} floods its output (over "
                                  f"{FLOOD_LINES:,} lines in {FLOOD_WINDOW:g} s): it is "
                                  "stopped")
                    self.proc.kill()  # its end is seen as a crash: started again
                    break
                try:
                    self.lines.put_nowait(said)
                except queue.Full:
                    self.complain("flood", f"engine {name} sends more than it is asked for; "
                                  "lines were dropped")
        except (OSError, ValueError):
            pass
        finally:
            self.lines.put(ENDED)

    def _drain(self, stream: IO[bytes]) -> None:
        noise = _Limiter(lambda text: log.info("engine %s (stderr): %s", self.spec.name, text),
                         STDERR_AT_MOST)
        try:
            while line := stream.readline(1000):
                text = line.decode("utf-8", "replace").rstrip()
                if text:
                    noise("stderr", text)
        except (OSError, ValueError):
            pass

    def _write(self, stream: IO[bytes]) -> None:
        try:
            while (data := self.outbox.get()) is not None:
                stream.write(data)
                stream.flush()
        except (OSError, ValueError):
            pass  # it ended or closed its input: the reader sees the end
        finally:
            with contextlib.suppress(OSError):
                stream.close()

    def stop(self, grace: float = 1.0) -> None:
        """Ask it to quit, close its input, then terminate and kill it if it stays."""
        if self.proc.poll() is None:
            self.send({"type": "quit"})
        self.outbox.put(None)
        for signal_it in (None, self.proc.terminate, self.proc.kill):
            if signal_it is not None:
                with contextlib.suppress(OSError):
                    signal_it()
            try:
                self.proc.wait(grace)
                return
            except subprocess.TimeoutExpired:
                continue


@dataclass(slots=True)
class EngineStats:
    """What happened to a program's decisions (the tournament reports them)."""

    decisions: int = 0
    answered: int = 0
    standin: int = 0
    too_slow: int = 0
    refused: int = 0
    crashes: int = 0
    restarts: int = 0
    answer_seconds: list[float] = field(default_factory=list)

    def add(self, other: EngineStats) -> None:
        self.decisions += other.decisions
        self.answered += other.answered
        self.standin += other.standin
        self.too_slow += other.too_slow
        self.refused += other.refused
        self.crashes += other.crashes
        self.restarts += other.restarts
        self.answer_seconds.extend(other.answer_seconds)

    def summary(self) -> dict[str, object]:
        """The counts, and the program's own answer times (mean, median, 95th and max, in
        milliseconds: from the question sent to the answer read)."""
        times = sorted(self.answer_seconds)

        def at(share: float) -> float:
            return round(1000 * times[min(len(times) - 1, int(share * len(times)))], 2)

        return {
            "decisions": self.decisions, "answered": self.answered,
            "stand_in": self.standin, "too_slow": self.too_slow, "refused": self.refused,
            "crashes": self.crashes, "restarts": self.restarts,
            "answer_ms_mean": round(1000 * sum(times) / len(times), 2) if times else None,
            "answer_ms_p50": at(0.5) if times else None,
            "answer_ms_p95": at(0.95) if times else None,
            "answer_ms_max": round(1000 * times[-1], 2) if times else None,
        }


class EngineBot:
    """A bot whose decisions an outside program makes (see the module's docstring)."""

    SEARCHES = True
    """Its decisions block for up to the budget: drivers run them in a worker thread."""

    def __init__(
        self,
        spec: EngineSpec,
        *,
        budget: float = DEFAULT_BUDGET,
        restarts: int = DEFAULT_RESTARTS,
        standin: str = STANDIN,
        say: Callable[[str], None] | None = None,
        on_chat: Callable[[str], None] | None = None,
        handshake_timeout: float = HANDSHAKE_TIMEOUT,
        seed: bytes | None = None,
    ) -> None:
        self.spec = spec
        self.name = spec.name
        self.budget = budget
        self.restarts = restarts
        self.standin_level = standin
        self.say = say or (lambda text: log.warning("%s", text))
        self.on_chat = on_chat
        self.handshake_timeout = handshake_timeout
        self.seed = seed
        self.names: list[str] | None = None
        """The players' names, told to the program with each new game (a driver sets it)."""
        self.complain = _Limiter(self._say)
        self.tally = EngineStats()
        self.handshake: Handshake | None = None
        self._process: EngineProcess | None = None
        self._standins: dict[str, TableBot] = {}
        self._open: tuple[str, int, int] | None = None
        self._request = 0
        self._given_up = False
        self._lock = threading.RLock()

    # -- life ------------------------------------------------------------------------

    def start(self) -> Handshake:
        """Start the program and greet it; :class:`EngineError` in words if it can't be
        used (won't start, ends at once, speaks another protocol version)."""
        process = EngineProcess(self.spec, self.complain)
        try:
            said = process.greet(self.handshake_timeout)
        except EngineError:
            process.stop(0.2)
            raise
        with self._lock:  # greeted outside it: `finish` never waits for a slow start
            self.handshake = said
            self._process = process
            self._open = None
        return said

    def close(self) -> None:
        with self._lock:
            process, self._process = self._process, None
        if process is not None:
            process.stop()

    @property
    def pid(self) -> int | None:
        process = self._process
        return process.pid if process is not None else None

    def _say(self, text: str) -> None:
        self.say(text)

    # -- the game --------------------------------------------------------------------

    def choose(self, view: Any, seat: Seat, legal: list[Any]) -> Any:
        started = time.monotonic()
        self.tally.decisions += 1
        process = self._ready(view, seat)
        if process is None:
            return self._standin(view, seat, legal)
        with self._lock:
            self._request += 1
            request = self._request
            process.send(decide_message(view, seat, legal, request, self.budget))
        deadline = started + self.budget
        while True:
            item = process.next(deadline)
            if item is None:
                self.tally.too_slow += 1
                self.complain("slow", f"{self.name} took longer than {self.budget:g} s; "
                              f"the stand-in ({self.standin_level}) played this turn for it")
                return self._standin(view, seat, legal)
            if isinstance(item, Ended):
                self._crashed(process)
                return self._standin(view, seat, legal)
            if isinstance(item, Chat):
                if self.on_chat is not None:
                    self.on_chat(item.text)
                continue
            if isinstance(item, Handshake):
                self.complain("bad", f"engine {self.name}: a second hello was ignored")
                continue
            action = self._answer(item, request, view, legal)
            if action is _LATE:
                continue
            if action is None:
                return self._standin(view, seat, legal)
            self.tally.answered += 1
            self.tally.answer_seconds.append(time.monotonic() - started)
            return action

    def _answer(self, answer: Answer, request: int, view: Any, legal: list[Any]) -> Any:
        if answer.request != request:
            self.complain("late", f"engine {self.name}: an answer to request "
                          f"{answer.request} came after its time (now {request}); ignored")
            return _LATE
        if answer.action is not None:
            try:
                asked = game_def(game_name(view)).action_from_wire(answer.action)
            except (ValueError, TypeError, KeyError) as exc:
                self._refused(f"its action can't be read ({exc})")
                return None
            if asked in legal:
                return asked
            self._refused(f"it asked for {asked}, which is not legal now")
            return None
        if 0 <= answer.choice < len(legal):
            return legal[answer.choice]
        self._refused(f"it chose id {answer.choice}, not one of the {len(legal)} legal "
                      f"actions (0-{len(legal) - 1})")
        return None

    def _refused(self, why: str) -> None:
        self.tally.refused += 1
        self.complain("refused", f"{self.name}'s answer refused: {why}; the stand-in "
                      f"({self.standin_level}) played this turn for it")

    def _ready(self, view: Any, seat: Seat) -> EngineProcess | None:
        """The running program, told the game, or ``None`` when the stand-in plays."""
        if self._given_up:
            return None
        with self._lock:
            process = self._process
            if process is None:
                return None
            game = game_name(view)
            if self.handshake is not None and game not in self.handshake.games:
                self._give_up(f"{self.name} does not play {game}")
                return None
            key = (game, seat, view.players)
            if self._open != key:
                process.send(game_message(view, seat, self.names))
                self._open = key
            return process

    def _crashed(self, process: EngineProcess) -> None:
        self.tally.crashes += 1
        words = process.exit_words()
        process.stop(0.2)
        with self._lock:
            if self._process is not process:
                return
            self._process = None
            if self.tally.restarts >= self.restarts:
                self._give_up(f"{self.name} stopped ({words}) and was restarted "
                              f"{self.restarts} times already")
                return
            self.tally.restarts += 1
        self.say(f"{self.name} stopped ({words}); the stand-in ({self.standin_level}) "
                 f"played this turn; starting it again ({self.tally.restarts} of "
                 f"{self.restarts})")
        try:
            self.start()
        except EngineError as exc:
            self._give_up(str(exc))

    def _give_up(self, why: str) -> None:
        if not self._given_up:
            self._given_up = True
            self.say(f"{why}; the stand-in ({self.standin_level}) plays on for it")

    def _standin(self, view: Any, seat: Seat, legal: list[Any]) -> Any:
        self.tally.standin += 1
        game = game_name(view)
        bot = self._standins.get(game)
        if bot is None:
            bot = game_def(game).make_bot(self.standin_level, self.seed)
            self._standins[game] = bot
        return bot.choose(view, seat, legal)

    def finish(self, seat: Seat, outcome: Outcome | None, view: Any = None, *,
               termination: str | None = None, winner: int | None = None) -> None:
        """Tell the program the game's end and its outcome (``outcome``, or ``winner`` and
        ``termination`` where no state is at hand); the next game is told anew."""
        with self._lock:
            process = self._process
            if process is not None and self._open is not None:
                process.send(end_message(seat, outcome, view, termination, winner))
            self._open = None

    def heard(self, name: str, text: str) -> None:
        """A chat line at the table, passed on to the program."""
        process = self._process
        if process is not None and self._open is not None:
            process.send(chat_message(name, text))


_LATE: Final = object()

