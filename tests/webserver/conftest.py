"""Fixtures for the web tests: a table of bots on a Mosquitto of its own, `stacks web` in
its own process, and a headless Chromium, all on 127.0.0.1 and free ports."""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from stacks.bench.browser import Chromium, chromium_exe
from tests.e2e.conftest import ROOT, _stop, mosquitto, stacks_command
from tests.support import SCALE, free_port, wait_until

__all__ = ["mosquitto"]

TIMEOUT = 60.0 * SCALE


def spawn(tmp_path: Path, *args: str, out: Path | None = None) -> subprocess.Popen[bytes]:
    env = dict(os.environ, HOME=str(tmp_path))
    sink = out.open("wb") if out is not None else subprocess.DEVNULL
    return subprocess.Popen(stacks_command(*args), cwd=ROOT, stdout=sink,
                            stderr=subprocess.STDOUT, env=env)


@dataclass
class Table:
    name: str
    broker: str


@pytest.fixture
def table(mosquitto: str, tmp_path: Path) -> Iterator[Table]:
    """A two-seat table on its own Mosquitto: the host's bot and a `stacks bot`, slow
    enough (a second a move) that the game lasts the test."""
    name = "webtable"
    host = spawn(tmp_path, "host", "--headless", "--players", "2", "--bots", "1",
                 "--bot-delay", "1.0", "--table", name, "--broker", mosquitto,
                 "--profile", "host", "--block-window", "0.5", "--turn-clock", "0",
                 out=tmp_path / "host.log")
    bot = spawn(tmp_path, "bot", name, "--broker", mosquitto, "--think", "1.0",
                "--profile", "bot", out=tmp_path / "bot.log")
    try:
        yield Table(name, mosquitto)
    finally:
        for proc in (bot, host):
            _stop(proc)


@dataclass
class Web:
    url: str
    log: Path
    proc: subprocess.Popen[bytes]

    def lines(self) -> list[str]:
        return self.log.read_text(errors="replace").splitlines()

    def wait_line(self, pattern: str, timeout: float = TIMEOUT) -> str:
        def found() -> str | None:
            for line in self.lines():
                if re.search(pattern, line):
                    return line
            assert self.proc.poll() is None, "\n".join(self.lines())
            return None

        return wait_until(found, f"a log line {pattern!r}", timeout / SCALE, interval=0.1,
                          diagnostics=lambda: "the log:\n" + "\n".join(self.lines()))


@pytest.fixture
def web(tmp_path: Path) -> Iterator[Callable[..., Web]]:
    """Starts `stacks web ARGS` on a free port; stopped at the end."""
    started: list[subprocess.Popen[bytes]] = []

    def start(*args: str) -> Web:
        port = free_port()
        log = tmp_path / f"web-{port}.log"
        proc = spawn(tmp_path, "web", "--port", str(port), *args, out=log)
        started.append(proc)
        web = Web(f"http://127.0.0.1:{port}/", log, proc)
        web.wait_line(r"stacks web: .* on http://127\.0\.0\.1:\d+/")
        return web

    try:
        yield start
    finally:
        for proc in started:
            _stop(proc)


@pytest.fixture
def browser() -> Iterator[Chromium]:
    exe = chromium_exe()
    if exe is None:
        pytest.skip("chromium is not installed (apt-get install chromium; .ci/run does)")
    chromium = Chromium(exe)
    try:
        chromium.start(TIMEOUT)
        yield chromium
    finally:
        chromium.stop()
