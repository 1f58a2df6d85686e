"""The fork server (`sshserver.zygote`) on its own: what a forked child is given and what
it does not share, its exit status, and what happens when the fork server dies or can't
start. The children run ``tests.sshserver.forked``; nothing here needs ssh."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import socket
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio

from sshserver.pty import PtyProcess, WindowSize
from sshserver.zygote import ForkServer
from tests.sshserver.conftest import TIMEOUT, alive, cmdline
from tests.support import wait_until_async

pytestmark = pytest.mark.asyncio

ROOT = Path(__file__).resolve().parents[2]
ENTRY = "tests.sshserver.forked:main"
STANDIN = Path(__file__).with_name("standin.py")


class Screen:
    """A program in a pty, and what it wrote."""

    def __init__(self) -> None:
        self.data = bytearray()
        self.changed = asyncio.Event()
        self.proc = PtyProcess(self._output, lambda code: None)

    def _output(self, data: bytes) -> None:
        self.data += data
        self.changed.set()

    @property
    def text(self) -> str:
        return self.data.decode(errors="replace")

    async def wait_for(self, text: str) -> str:
        async def shown() -> None:
            while text not in self.text:
                self.changed.clear()
                await self.changed.wait()

        try:
            await asyncio.wait_for(shown(), TIMEOUT)
        except TimeoutError:
            raise AssertionError(f"{text!r} never showed; the screen:\n{self.text}") from None
        return self.text

    def said(self, key: str) -> str:
        found = re.search(rf"^{key}=(.*?)\r$", self.text, re.MULTILINE)
        assert found, f"no {key}= in:\n{self.text}"
        return found.group(1)


def _env(**extra: str) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT), **extra}


def _parent(pid: int) -> int:
    text = Path(f"/proc/{pid}/stat").read_text()
    return int(text[text.rindex(")") + 2:].split()[1])


@pytest_asyncio.fixture
async def forker() -> AsyncIterator[tuple[ForkServer, list[str]]]:
    said: list[str] = []
    server = ForkServer(ENTRY, preload=(), env=_env(), say=said.append)
    server.start()
    try:
        assert await server.wait_ready(TIMEOUT), said
        yield server, said
    finally:
        await server.close()


async def _start(screen: Screen, server: ForkServer, args: list[str],
                 env: dict[str, str], pass_fds: tuple[int, ...] = ()) -> None:
    await screen.proc.start([sys.executable, str(STANDIN), *args], env=env,
                            size=WindowSize(80, 24), pass_fds=pass_fds, fork=(server, args))


async def test_each_child_has_its_terminal_descriptors_environment_and_random_state(
    forker: tuple[ForkServer, list[str]],
) -> None:
    server, _ = forker
    screens = {name: Screen() for name in ("alice", "bob")}
    links = {}
    for name, screen in screens.items():
        ours, theirs = socket.socketpair()
        links[name] = ours
        try:
            await _start(screen, server, ["--name", name],
                         _env(FORKED_ENV=f"{name}'s", FORKED_LINK=str(theirs.fileno())),
                         pass_fds=(theirs.fileno(),))
        finally:
            theirs.close()
        links[name].settimeout(TIMEOUT)
        await screen.wait_for("READY")
        assert screen.proc.forked and screen.proc.fork_problem is None
        assert _parent(screen.proc.pid or 0) == server.pid  # forked, not spawned
        assert screen.said("ARGS") == f"--name {name}"
        assert f"stacks --name {name}" in cmdline(screen.proc.pid or 0)  # what ps shows
        assert screen.said("ENV") == f"{name}'s"
        assert screen.said("CTTY") == "yes"
        # The pty and the one descriptor passed, at the number the program was told:
        # nothing of the fork server's (its control socket, other children's pidfds).
        fds = [int(fd) for fd in screen.said("FDS").split(",")]
        assert fds[:3] == [0, 1, 2] and len(fds) == 4
        assert links[name].recv(100) == f"hello from --name {name}".encode()
    # A fork copies the random module's state: each child must have drawn its own.
    assert screens["alice"].said("RANDOM") != screens["bob"].said("RANDOM")

    screens["alice"].proc.write(b"x")
    screens["bob"].proc.write(b"q")
    assert await asyncio.wait_for(screens["alice"].proc.wait(), TIMEOUT) == 3
    assert await asyncio.wait_for(screens["bob"].proc.wait(), TIMEOUT) == 0
    for ours in links.values():
        ours.close()


async def test_a_child_killed_by_a_signal_reports_it(
    forker: tuple[ForkServer, list[str]],
) -> None:
    server, _ = forker
    screen = Screen()
    await _start(screen, server, ["--name", "carol"], _env())
    await screen.wait_for("READY")
    screen.proc.signal_group(signal.SIGKILL)
    assert await asyncio.wait_for(screen.proc.wait(), TIMEOUT) == -signal.SIGKILL


async def test_a_dead_fork_server_is_restarted_and_its_children_live_on(
    forker: tuple[ForkServer, list[str]],
) -> None:
    server, said = forker
    first = server.pid
    assert first is not None
    old = Screen()
    await _start(old, server, ["--name", "dave"], _env())
    await old.wait_for("READY")

    os.kill(first, signal.SIGKILL)
    await wait_until_async(lambda: any("fork server died" in line for line in said),
                           "the death to be noticed")
    await wait_until_async(lambda: server.ready and server.pid not in (None, first),
                           "a new fork server")
    assert alive(old.proc.pid or 0)
    old.proc.write(b"k")
    await old.wait_for("key: b'k'")  # the orphan still plays

    new = Screen()
    await _start(new, server, ["--name", "erin"], _env())
    await new.wait_for("READY")
    assert new.proc.forked and _parent(new.proc.pid or 0) == server.pid

    # The end of the orphan is still seen (its pidfd); nobody can say its status.
    old.proc.write(b"x")
    assert await asyncio.wait_for(old.proc.wait(), TIMEOUT) == 0
    new.proc.write(b"x")
    assert await asyncio.wait_for(new.proc.wait(), TIMEOUT) == 3


async def test_without_a_fork_server_sessions_are_spawned() -> None:
    said: list[str] = []
    server = ForkServer(ENTRY, preload=(), env=_env(), say=said.append,
                        python="/nonexistent/python3")
    server.start()
    try:
        screen = Screen()
        await _start(screen, server, ["--name", "frank"], _env())
        await screen.wait_for("READY")  # the stand-in, spawned as a program
        assert not screen.proc.forked
        assert screen.proc.fork_problem and "not running" in screen.proc.fork_problem
        assert any("could not start" in line for line in said)
        screen.proc.write(b"q")
        assert await asyncio.wait_for(screen.proc.wait(), TIMEOUT) == 0
    finally:
        await server.close()


async def test_sessions_are_forked_unless_no_fork_is_given() -> None:
    from sshserver.settings import settings_from
    from stacks.parser import build_parser

    assert settings_from(build_parser("serve").parse_args(["serve"])).fork is True
    assert settings_from(build_parser("serve").parse_args(["serve", "--no-fork"])).fork is False


async def test_a_session_entry_is_forked_and_runs_as_a_program_when_it_can_not_be() -> None:
    from sshserver.settings import DEFAULT_ENTRY, ServeSettings, entry_command, settings_from
    from stacks.parser import build_parser

    def parsed(*words: str) -> ServeSettings:
        return settings_from(build_parser("serve").parse_args(["serve", *words]))

    plain = parsed()
    assert plain.fork_entry == DEFAULT_ENTRY
    entry = parsed("--session-entry", ENTRY)
    assert entry.fork_entry == ENTRY
    assert entry.command == entry_command(ENTRY)
    assert parsed("--session-entry", ENTRY, "--no-fork").fork_entry is None
    assert parsed("--session-command", "prog").fork_entry is None
    # Spawned (no fork server): the entry's command line runs it with the arguments.
    screen = Screen()
    await screen.proc.start([*entry_command(ENTRY), "--name", "gina"], env=_env(),
                            size=WindowSize(80, 24))
    await screen.wait_for("READY")
    assert screen.said("ARGS") == "--name gina"
    screen.proc.write(b"x")
    assert await asyncio.wait_for(screen.proc.wait(), TIMEOUT) == 3


@pytest.mark.parametrize("message, fds, says", [
    (b"not json", 1, "Expecting value"),
    (b"[1, 2]", 1, "not a JSON object"),
    (b'{"args": [], "env": {}}', 1, "no request id"),
    (b'{"id": 1, "args": "stacks", "env": {}}', 1, "args must be a list"),
    (b'{"id": 1, "args": [], "env": {"A=B": "c"}}', 1, "env must map"),
    (b'{"id": 1, "args": [], "env": {"": "c"}}', 1, "env must map"),
    (b'{"id": 1, "args": [], "env": {}, "targets": [1]}', 2, "from 3 to 1023"),
    (b'{"id": 1, "args": [], "env": {}, "targets": [5, 5]}', 3, "same number"),
    (b'{"id": 1, "args": [], "env": {}, "targets": [5]}', 1, "1 descriptors for 1"),
])
async def test_a_malformed_request_is_refused_in_words(message: bytes, fds: int,
                                                        says: str) -> None:
    from sshserver.zygote import _parse_request

    with pytest.raises(ValueError, match=re.escape(says)):
        _parse_request(message, list(range(100, 100 + fds)))


async def test_the_fork_server_answers_garbage_and_goes_on_then_ends_with_the_server(
    forker: tuple[ForkServer, list[str]],
) -> None:
    server, _ = forker
    assert server._sock is not None
    server._sock.send(b'{"id": 12345, "args": "no"}')  # refused; nobody waits for 12345
    screen = Screen()
    await _start(screen, server, ["--name", "gina"], _env())
    await screen.wait_for("READY")
    assert screen.proc.forked
    proc = server.proc
    assert proc is not None
    await server.close()
    assert proc.poll() is not None  # the fork server is gone with its channel...
    assert alive(screen.proc.pid or 0)  # ...its child, a session, is not
    screen.proc.write(b"q")
    assert await asyncio.wait_for(screen.proc.wait(), TIMEOUT) == 0
