"""`stacks play --plain` through a pipe: a whole game against a bot, typed from what the
program printed (the first move it lists, else a discard), to the end; every event said
once and in order, as the host's record tells them."""

from __future__ import annotations

import os
import queue
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

from netplay.record import read_record
from tests.e2e.conftest import ROOT, SCALE
from tui.history import History
from tui.plain.table import PlainTable
from tui.replay import replay_record

NUMBERED = re.compile(r"^(\d+)\. (.*)$")
QUESTION = re.compile(r"Block (.+)'s (\w+ pile \w+)\? block or pass(, [\d.]+ s)?")
"""A Block window's question: it says the completion in its place."""


def as_event(text: str) -> str:
    """A line as the event it says (a Block window's question: the completion)."""
    match = QUESTION.fullmatch(text)
    if match is None:
        return text
    return f"{match.group(1)} completed {match.group(2)} — Block window open"


def _env(tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TMUX", "STACKS_"))}
    env.update({"STACKS_HOME": str(tmp_path / "home"), "XDG_DATA_HOME": str(tmp_path / "data"),
                "XDG_STATE_HOME": str(tmp_path / "state"), "PYTHONPATH": str(ROOT)})
    return env


def answer(text: str) -> str | None:
    """What a player types after a line (``None``: nothing): the first move listed, a
    Block when asked."""
    if text.startswith("Moves: "):
        first = text.removeprefix("Moves: ").rstrip(".").split("; ")[0]
        if first.startswith("discard "):
            return "discard " + re.findall(r"\d+", first)[0]
        return re.sub(r" \(.*\)$", "", first)  # "play 4 (Skip)" is "play 4"
    if QUESTION.fullmatch(text):
        return "block"
    if text.startswith("The host refused that"):
        return "moves"
    return None


def play_through_a_pipe(tmp_path: Path, *args: str) -> tuple[list[str], list[str], int]:
    """Run ``stacks play --plain ARGS``, answering what it prints; (its lines, what was
    typed, its exit status)."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "stacks.cli", "play", "--plain", *args],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        cwd=ROOT, env=_env(tmp_path),
    )
    assert proc.stdin is not None and proc.stdout is not None
    lines: queue.Queue[str | None] = queue.Queue()

    def read() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.put(line.rstrip("\n"))
        lines.put(None)

    threading.Thread(target=read, daemon=True).start()
    said: list[str] = []
    typed: list[str] = []
    deadline = time.monotonic() + 240 * SCALE
    try:
        while True:
            line = lines.get(timeout=max(0.1, deadline - time.monotonic()))
            if line is None:
                break
            said.append(line)
            match = NUMBERED.match(line)
            assert match, f"an unnumbered line: {line!r}"
            reply = answer(match.group(2))
            if reply is not None:
                typed.append(reply)
                proc.stdin.write(reply + "\n")
                proc.stdin.flush()
        code = proc.wait(60 * SCALE)
    except (queue.Empty, subprocess.TimeoutExpired):
        proc.kill()
        proc.wait()
        raise AssertionError("the game never ended:\n" + "\n".join(said[-40:])) from None
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.stderr is not None
    errors = proc.stderr.read()
    assert "Traceback" not in errors, errors
    return said, typed, code


def test_plain_mode_plays_a_whole_game_against_a_bot_through_a_pipe(tmp_path: Path) -> None:
    said, typed, code = play_through_a_pipe(
        tmp_path, "--players", "2", "--bots", "easy", "--seed", "5", "--bot-delay", "0",
        "--name", "Ana", "--rule", "win_chips=3", "--rule", "win_min_each_colour=1")
    assert code == 0, "\n".join(said[-30:])
    texts = [NUMBERED.match(line).group(2) for line in said]  # type: ignore[union-attr]
    numbers = [int(NUMBERED.match(line).group(1)) for line in said]  # type: ignore[union-attr]
    assert numbers == list(range(1, len(said) + 1))  # every line numbered, in order
    assert any(t.startswith("play ") for t in typed) and any(t.startswith("discard ")
                                                             for t in typed)
    assert any(t.startswith("Game over: ") for t in texts), texts[-20:]
    assert any(t.startswith("Fair deal: verified") for t in texts), texts[-20:]
    assert not any("refused" in t or "Something went wrong" in t for t in texts), texts
    # Every event said once, in order: the lines of the host's record, as the same seat
    # reads them, are exactly the event lines the player was shown.
    seat = next(int(m.group(1)) - 1 for t in texts
                if (m := re.match(r"You sit in seat (\d+)\.", t)))
    path = next(m.group(1) for t in texts
                if (m := re.match(r"The game's record is in (.+) \(stacks replay", t)))
    replay = replay_record(read_record(Path(path)))
    told: list[str] = []
    teller = PlainTable("t", send=lambda _a: None, later=lambda _s, _f: None,
                        write=told.append, names=replay.names, me=seat)
    history = History(replay.names, seat, replay.game)
    history.extend(replay.steps)
    for line in history.lines:
        teller._said(line)
    expected = [NUMBERED.match(t).group(2) for t in told]  # type: ignore[union-attr]
    assert len(expected) > 20
    events = set(expected)
    assert [t for t in map(as_event, texts) if t in events] == expected


class Plain:
    """``stacks play --plain ARGS`` through a pipe, its numbered lines read as they come."""

    def __init__(self, tmp_path: Path, *args: str) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "stacks.cli", "play", "--plain", *args],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            cwd=ROOT, env=_env(tmp_path),
        )
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.said: list[str] = []
        """The words of every line so far (without their numbers)."""
        self.errors: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()
        self._stderr = threading.Thread(target=self._read_errors, daemon=True)
        self._stderr.start()

    def _read_errors(self) -> None:
        assert self.proc.stderr is not None
        self.errors.append(self.proc.stderr.read())

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line.rstrip("\n"))
        self.lines.put(None)

    def until(self, wanted: str, timeout: float = 60.0) -> str:
        """Read lines until one starts with ``wanted``; that line's words."""
        deadline = time.monotonic() + timeout * SCALE
        while True:
            try:
                line = self.lines.get(timeout=max(0.1, deadline - time.monotonic()))
            except queue.Empty:
                raise AssertionError(f"no {wanted!r}:\n" + "\n".join(self.said[-30:])) from None
            if line is None:
                raise AssertionError(f"the program ended before {wanted!r}:\n"
                                     + "\n".join(self.said[-30:]))
            match = NUMBERED.match(line)
            assert match, f"an unnumbered line: {line!r}"
            self.said.append(match.group(2))
            if match.group(2).startswith(wanted):
                return match.group(2)

    def type(self, text: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(text + "\n")
        self.proc.stdin.flush()

    def end(self, timeout: float = 60.0) -> tuple[list[str], str, int]:
        """Wait for the program's end: (the words of the lines left, stderr, exit status)."""
        try:
            code = self.proc.wait(timeout * SCALE)
        finally:
            self.kill()
        left: list[str] = []
        while (line := self.lines.get(timeout=10)) is not None:
            match = NUMBERED.match(line)
            assert match, f"an unnumbered line: {line!r}"
            left.append(match.group(2))
        self._stderr.join(10)  # at its end: the pipe closed
        return left, "".join(self.errors), code

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


GAME = ("--players", "2", "--bots", "easy", "--seed", "5", "--bot-delay", "0", "--name", "Ana")


def test_ctrl_c_in_plain_mode_says_it_left_and_leaves_cleanly(tmp_path: Path) -> None:
    plain = Plain(tmp_path, *GAME)
    try:
        plain.until("The game of Sequence Stacks starts")
        plain.proc.send_signal(signal.SIGINT)
        left, errors, code = plain.end()
    finally:
        plain.kill()
    assert left and left[-1] == "Left the table.", left
    assert "Traceback" not in errors and "KeyboardInterrupt" not in errors, errors
    assert code == 130


def test_plain_mode_says_how_to_get_help_once(tmp_path: Path) -> None:
    plain = Plain(tmp_path, *GAME)
    try:
        plain.until("Turn 1: ")
        plain.type("quit")
        left, errors, code = plain.end()
    finally:
        plain.kill()
    said = plain.said + left
    assert sum("Type help" in line for line in said) == 1, said
    assert said[-1] == "Leaving the table. Goodbye." and code == 0, (said, errors)


def test_your_chat_comes_back_as_yours(tmp_path: Path) -> None:
    plain = Plain(tmp_path, *GAME)
    try:
        plain.until("The game of Sequence Stacks starts")
        plain.type("say good luck")
        said = plain.until("You say: ")
        plain.type("quit")
        plain.end()
    finally:
        plain.kill()
    assert said == "You say: good luck"
    assert not any(line.endswith("says: good luck") for line in plain.said), plain.said


def test_a_huge_typed_line_gets_a_short_answer_and_the_game_goes_on(tmp_path: Path) -> None:
    plain = Plain(tmp_path, *GAME)
    try:
        plain.until("The game of Sequence Stacks starts")
        plain.type("play " + "7" * 20_000_000)  # 20 MB on one line
        answer = plain.until("That line is too long")
        plain.type("seats")
        plain.until("Seat 1, You")
        plain.type("quit")
        left, errors, code = plain.end()
    finally:
        plain.kill()
    assert len(answer) < 200, answer[:300]
    assert all(len(line) < 1000 for line in plain.said + left)
    assert code == 0 and "Traceback" not in errors, errors[-2000:]
