"""Fixtures for the ssh server tests: the real OpenSSH client in tmux, against
``stacks serve`` in its own process on 127.0.0.1 and a free port, in a temporary
STACKS_HOME. Every wait is generous (a loaded 2-core machine) and scaled by
``STACKS_TEST_TIMEOUT_SCALE``; nothing asserts on wall-clock time.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.support import SCALE, free_port, wait_until
from tests.support import listening as port_open
from tests.tmux_env import tmux_env

ROOT = Path(__file__).resolve().parents[2]
TIMEOUT = 30.0 * SCALE
SSH = shutil.which("ssh") or "/usr/bin/ssh"
TMUX = shutil.which("tmux") or "/usr/bin/tmux"
SSH_KEYGEN = shutil.which("ssh-keygen") or "/usr/bin/ssh-keygen"
STANDIN = Path(__file__).with_name("standin.py")



def need_tools() -> None:
    """Skip a test that needs the OpenSSH client, ssh-keygen, tmux and asyncssh."""
    for tool in (SSH, TMUX, SSH_KEYGEN):
        if not os.access(tool, os.X_OK):
            pytest.skip(f"{tool} is missing (apt-get install openssh-client tmux)")
    pytest.importorskip("asyncssh")


def eventually(condition: Callable[[], object], what: str, timeout: float = TIMEOUT) -> None:
    """`tests.support.wait_until` with this folder's timeouts, which are scaled already."""
    wait_until(condition, what, timeout / SCALE, interval=0.1)


# -- processes, from /proc ---------------------------------------------------------------------


def _stat(pid: int) -> tuple[int, int] | None:
    """(parent pid, process group) of ``pid``, or None if it's gone (or a zombie)."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = text[text.rindex(")") + 2:].split()
    if fields[0] == "Z":
        return None
    return int(fields[1]), int(fields[2])


def cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def session_leader_with_terminal(pid: int) -> bool:
    """Does ``pid`` lead a session of its own, with a controlling terminal?"""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    fields = text[text.rindex(")") + 2:].split()
    return fields[0] != "Z" and int(fields[3]) == pid and int(fields[4]) != 0


def alive(pid: int) -> bool:
    return _stat(pid) is not None


def all_pids() -> list[int]:
    return [int(name) for name in os.listdir("/proc") if name.isdigit()]


def children(pid: int) -> list[int]:
    out = []
    for other in all_pids():
        stat = _stat(other)
        if stat is not None and stat[0] == pid:
            out.append(other)
    return out


def descendants(pid: int) -> list[int]:
    found: list[int] = []
    todo = [pid]
    while todo:
        kids = children(todo.pop())
        found += kids
        todo += kids
    return found


def processes_with_env(entry: str) -> list[int]:
    """Live processes whose environment holds ``entry`` (``NAME=value``): finds a
    session's program and helpers even if one escaped its parent."""
    needle = entry.encode() + b"\0"
    out = []
    for pid in all_pids():
        try:
            env = Path(f"/proc/{pid}/environ").read_bytes()
        except OSError:
            continue
        if (env.startswith(needle) or b"\0" + needle in env) and alive(pid):
            out.append(pid)
    return out


# -- keys ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Keys:
    folder: Path

    def path(self, name: str) -> Path:
        key = self.folder / name
        if not key.exists():
            subprocess.run([SSH_KEYGEN, "-q", "-t", "ed25519", "-N", "", "-C", name,
                            "-f", str(key)], check=True, timeout=TIMEOUT)
        return key

    def public(self, name: str) -> str:
        self.path(name)
        return (self.folder / f"{name}.pub").read_text()


@pytest.fixture
def keys(tmp_path: Path) -> Keys:
    need_tools()
    folder = tmp_path / "keys"
    folder.mkdir()
    return Keys(folder)


# -- the server ------------------------------------------------------------------------------------


@dataclass
class Server:
    home: Path
    port: int
    proc: subprocess.Popen[str]
    log: Path

    @property
    def pid(self) -> int:
        return self.proc.pid

    def output(self) -> str:
        return self.log.read_text(errors="replace")

    def ssh_argv(self, key: Path, user: str, *remote: str, tty: bool | None = True) -> list[str]:
        """The OpenSSH client's command line; ``tty`` None: no -t or -T, as a player
        types it (ssh then asks for a terminal when it runs in one and has no command)."""
        return [
            SSH, "-F", "/dev/null", "-p", str(self.port), "-i", str(key),
            "-o", "IdentitiesOnly=yes", "-o", "IdentityAgent=none", "-o", "BatchMode=yes",
            "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null",
            "-o", "LogLevel=ERROR", "-o", f"ConnectTimeout={int(TIMEOUT)}",
            *({True: ["-t"], False: ["-T"], None: []}[tty]), f"{user}@127.0.0.1", *remote,
        ]

    def leftovers(self) -> list[int]:
        """Processes started for this server's sessions that are still alive (found by
        environment, so even one that escaped its parent counts; a forked session keeps
        its fork server's environment, which has it too): not the fork server."""
        forkers = set(self.fork_servers())
        return [pid for pid in processes_with_env(f"STACKS_HOME={self.home}")
                if pid != self.pid and pid not in forkers]

    def fork_servers(self) -> list[int]:
        """The server's fork server (`sshserver.zygote`), if it runs."""
        return [pid for pid in children(self.pid) if "sshserver.zygote" in cmdline(pid)]

    def sessions(self) -> list[int]:
        """The server's session programs: spawned by the server or forked by its fork
        server, each leads a session with its pty as the controlling terminal."""
        return [pid for pid in descendants(self.pid) if session_leader_with_terminal(pid)]

    def stop(self) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(TIMEOUT)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            return self.proc.wait(TIMEOUT)


@dataclass
class ServerFactory:
    tmp: Path
    started: list[Server] = field(default_factory=list)

    def __call__(self, *args: str, home: Path | None = None, authorized: str | None = None,
                 standin: bool = False, env: dict[str, str] | None = None,
                 accounts: bool = True) -> Server:
        """``accounts``: each authorized key has an account already, named by the key's
        comment (the tests' keys are made with the user's name), so its first login goes
        straight to the menu; ``False``: the first login asks for a name."""
        home = home or self.tmp / "home"
        home.mkdir(exist_ok=True)
        if authorized is not None:
            (home / "authorized_keys").write_text(authorized)
            if accounts:
                register_accounts(home, authorized)
        port = free_port()
        log = self.tmp / f"serve-{port}.log"
        argv = [sys.executable, "-m", "stacks.cli", "serve", "--bind", "127.0.0.1",
                "--ssh-port", str(port), *args]
        if standin:
            argv += ["--session-command", f"{sys.executable} {STANDIN}"]
        environ = {**os.environ, "STACKS_HOME": str(home), **(env or {})}
        environ.pop("SSH_AUTH_SOCK", None)
        with open(log, "w") as out:
            proc = subprocess.Popen(argv, cwd=ROOT, stdout=out, stderr=subprocess.STDOUT,
                                    text=True, env=environ)
        server = Server(home, port, proc, log)
        self.started.append(server)

        def listening() -> bool:
            if proc.poll() is not None:
                raise AssertionError(f"stacks serve exited {proc.returncode}:\n{server.output()}")
            return port_open(port, connect_timeout=0.5)

        eventually(listening, "stacks serve to listen")
        return server

    def close(self) -> None:
        for server in self.started:
            server.stop()


def register_accounts(home: Path, authorized: str) -> None:
    """An account for each key of ``authorized`` (OpenSSH lines) named by its comment, in
    the database ``stacks serve`` uses by default in ``home``, as the server would make
    it (the key's own profile); a key that has one already is left as it is."""
    import asyncio

    import asyncssh

    from netplay.hosts import fingerprint
    from netplay.identity import load_profile
    from ratings.store import Store, default_database
    from sshserver.request import profile_for_key

    async def register() -> None:
        store = await Store.open(default_database(home / "data"))
        try:
            for line in authorized.splitlines():
                words = line.split()
                if len(words) < 3:
                    continue
                key = asyncssh.import_public_key(line)
                if await store.account_for_key(key.get_fingerprint("sha256")):
                    continue
                profile = profile_for_key(key.public_data)
                identity = load_profile(profile, base=home / "profiles")
                await store.create_account(words[2], key.get_fingerprint("sha256"), profile,
                                           fingerprint(identity.key))
        finally:
            await store.close()

    asyncio.run(register())


@pytest.fixture
def serve(tmp_path: Path) -> Iterator[ServerFactory]:
    need_tools()
    factory = ServerFactory(tmp_path)
    try:
        yield factory
    finally:
        factory.close()


# -- tmux ------------------------------------------------------------------------------------------

_CSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


@dataclass
class Tmux:
    """A private tmux server; each window is one ssh client, its screen kept after it exits."""

    folder: Path

    def __post_init__(self) -> None:
        self.socket = self.folder / "tmux.sock"
        conf = self.folder / "tmux.conf"
        conf.write_text(
            "set -g default-terminal xterm-256color\n"
            "set -g history-limit 1000\n"
            "set -g status off\n"
        )
        self.conf = conf

    def run(self, *args: str, check: bool = True) -> str:
        done = subprocess.run([TMUX, "-S", str(self.socket), "-f", str(self.conf), *args],
                              capture_output=True, text=True, timeout=TIMEOUT,
                              env=tmux_env())
        if check and done.returncode != 0:
            raise AssertionError(f"tmux {' '.join(args)}: {done.stderr.strip()}")
        return done.stdout

    def open(self, name: str, argv: list[str], width: int = 100, height: int = 30) -> None:
        """A new window ``name`` running ``argv``; a shell around it keeps its exit status
        (tmux 3.3's ``pane_dead_status`` stays empty for a pane that lived a while)."""
        status = self.folder / f"{name}.status"
        status.unlink(missing_ok=True)
        script = f'"$@"; echo $? > {shlex.quote(str(status))}; exec sleep 86400'
        self.run("new-session", "-d", "-s", name, "-x", str(width), "-y", str(height),
                 "sh", "-c", script, "sh", *argv)

    def screen(self, name: str) -> str:
        return self.run("capture-pane", "-p", "-t", name)

    def keys(self, name: str, *keys: str) -> None:
        self.run("send-keys", "-t", name, *keys)

    def resize(self, name: str, width: int, height: int) -> None:
        self.run("resize-window", "-t", name, "-x", str(width), "-y", str(height))

    def client_pid(self, name: str) -> int:
        """The pid of the ssh client in window ``name``."""
        shell = int(self.run("display-message", "-p", "-t", name, "#{pane_pid}").strip())
        eventually(lambda: children(shell), "the ssh client to start")
        return children(shell)[0]

    def exit_status(self, name: str) -> int | None:
        """The ssh client's exit status once it exited, else None."""
        try:
            text = (self.folder / f"{name}.status").read_text().strip()
        except FileNotFoundError:
            return None
        return int(text) if text else None

    def wait_for(self, name: str, text: str, timeout: float = TIMEOUT) -> str:
        """Wait until the window shows ``text``; the screen."""
        shown = ""

        def there() -> bool:
            nonlocal shown
            shown = self.screen(name)
            return text in shown

        wait_until(there, f"{text!r} in window {name}", timeout / SCALE, interval=0.1,
                   diagnostics=lambda: f"the screen:\n{shown}")
        return shown

    def wait_exit(self, name: str, timeout: float = TIMEOUT) -> int:
        status: int | None = None

        def done() -> bool:
            nonlocal status
            status = self.exit_status(name)
            return status is not None

        eventually(done, f"the ssh client in {name} to exit", timeout)
        assert status is not None
        return status

    def kill(self) -> None:
        self.run("kill-server", check=False)


@pytest.fixture
def tmux(tmp_path: Path) -> Iterator[Tmux]:
    need_tools()
    folder = tmp_path / "tmux"
    folder.mkdir()
    mux = Tmux(folder)
    try:
        yield mux
    finally:
        mux.kill()


# -- a table: broker and headless host in their own processes -----------------------------------


@dataclass
class Table:
    name: str
    broker: str
    host: subprocess.Popen[str]
    host_log: Path

    def host_output(self) -> str:
        return self.host_log.read_text(errors="replace")


def _stop(proc: subprocess.Popen[str]) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(TIMEOUT)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(TIMEOUT)


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[str]:
    """The embedded broker (``stacks broker``) on 127.0.0.1 and a free port."""
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "stacks.cli", "broker", "--bind", f"127.0.0.1:{port}",
         "--no-advertise"],
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, text=True,
        env={**os.environ, "STACKS_HOME": str(tmp_path / "broker-home")},
    )
    try:
        def listening() -> bool:
            assert proc.poll() is None, "stacks broker exited"
            return port_open(port, connect_timeout=0.5)

        eventually(listening, "the broker")
        yield f"mqtt://127.0.0.1:{port}"
    finally:
        _stop(proc)


@pytest.fixture
def table_factory(tmp_path: Path, broker: str) -> Iterator[Callable[..., Table]]:
    hosts: list[subprocess.Popen[str]] = []

    def make(name: str = "duel", players: int = 2, bots: int = 0,
             block_window: float = 1.0) -> Table:
        log = tmp_path / f"host-{name}.log"
        with open(log, "w") as out:
            proc = subprocess.Popen(
                [sys.executable, "-m", "stacks.cli", "host", "--headless", "--table", name,
                 "--players", str(players), "--bots", str(bots), "--broker", broker,
                 "--block-window", str(block_window), "--record", str(tmp_path / "record"),
                 "--verify-wait", "3"],
                cwd=ROOT, stdout=out, stderr=subprocess.STDOUT, text=True,
                env={**os.environ, "STACKS_HOME": str(tmp_path / "host-home")},
            )
        hosts.append(proc)
        table = Table(name, broker, proc, log)
        eventually(lambda: "waiting for" in table.host_output() or proc.poll() is not None,
                   "the host to open its table")
        assert proc.poll() is None, table.host_output()
        return table

    try:
        yield make
    finally:
        for proc in hosts:
            _stop(proc)


from tests.netplay.conftest import mosquitto  # noqa: E402,F401  (the beacons' broker)
