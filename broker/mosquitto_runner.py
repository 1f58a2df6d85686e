"""Running Mosquitto with the configs shipped in ``broker/mosquitto/``.

``render_config`` turns a shipped config into one for a given address and files;
``MosquittoProcess`` runs it as a child process (``stacks host/broker --broker-impl
mosquitto``, tests).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import pwd
import re
import shutil
import socket
import tempfile
from collections import deque
from importlib import resources
from pathlib import Path
from types import TracebackType
from typing import Self

from broker.embedded import format_url

LOG_TAIL = 20
"""Lines of Mosquitto's own log (its stderr) kept for the words when it fails to start.
The rest is read and dropped: it logs every connection, and a pipe nobody read stopped
it, every client with it, after about 750 connections (192 KiB)."""
STOP_WAIT = 5.0
"""Seconds Mosquitto has to end after SIGTERM (then it is killed), and its log to end."""


class MosquittoNotInstalled(RuntimeError):
    def __init__(self) -> None:
        super().__init__(
            "Mosquitto is not installed: install it (Debian/Ubuntu: apt-get install mosquitto) "
            "or use the embedded broker (leave out --broker-impl)"
        )


def shipped(name: str) -> str:
    """The text of a file shipped in ``broker/mosquitto/`` (``mosquitto.conf``, ``acl``...)."""
    return resources.files("broker").joinpath("mosquitto", name).read_text()


def find_mosquitto() -> str:
    places = (shutil.which("mosquitto"), "/usr/sbin/mosquitto", "/usr/local/sbin/mosquitto")
    for candidate in places:
        if candidate and Path(candidate).exists():
            return candidate
    raise MosquittoNotInstalled()


def render_config(
    *,
    bind: str,
    port: int,
    secure: bool,
    password_file: Path | None = None,
    acl_file: Path | None = None,
) -> str:
    """A shipped config (``mosquitto.conf`` when ``secure``, else ``lan.conf``) for
    ``bind:port``, with absolute paths to the password and ACL files."""
    text = shipped("mosquitto.conf" if secure else "lan.conf")
    listener = f"listener {port}" + ("" if bind in ("0.0.0.0", "") else f" {bind}")
    text = re.sub(r"(?m)^listener .*$", listener, text)
    if secure:
        if password_file is None or acl_file is None:
            raise ValueError("a secure config needs a password file and an ACL file")
        text = re.sub(r"(?m)^password_file .*$", f"password_file {password_file}", text)
        text = re.sub(r"(?m)^acl_file .*$", f"acl_file {acl_file}", text)
    return text


def _readable_copy(source: Path, target: Path) -> Path:
    shutil.copyfile(source, target)
    target.chmod(0o600)
    return target


def _hand_over(folder: Path) -> None:
    """When we are root, let the ``mosquitto`` user (which Mosquitto becomes) read ``folder``."""
    if os.geteuid() != 0:
        return
    try:
        account = pwd.getpwnam("mosquitto")
    except KeyError:
        return
    for path in (folder, *folder.iterdir()):
        os.chown(path, account.pw_uid, account.pw_gid)


def _port_is_free(host: str, port: int) -> bool:
    with socket.socket() as sock:
        try:
            sock.bind((host, port))
        except OSError:
            return False
    return True


class MosquittoProcess:
    """A Mosquitto child process on ``bind:port`` with a shipped config.

    Mosquitto can't bind port 0: pass a free port (``broker.embedded.free_port``).
    """

    def __init__(
        self, bind: str = "127.0.0.1", port: int = 1883, *, secure: bool = False,
        password_file: Path | None = None, acl_file: Path | None = None,
    ) -> None:
        self.bind = bind
        self.port = port
        self.secure = secure
        self.password_file = password_file
        self.acl_file = acl_file
        self._proc: asyncio.subprocess.Process | None = None
        self._dir: tempfile.TemporaryDirectory[str] | None = None
        self._log: deque[str] = deque(maxlen=LOG_TAIL)
        self._reader: asyncio.Task[None] | None = None

    @property
    def url(self) -> str:
        host = "127.0.0.1" if self.bind in ("0.0.0.0", "") else self.bind
        return format_url(host, self.port)

    async def start(self, timeout: float = 10.0) -> None:
        exe = find_mosquitto()
        check_host = "0.0.0.0" if self.bind in ("0.0.0.0", "") else self.bind
        if not _port_is_free(check_host, self.port):
            raise OSError(f"port {self.port} on {self.bind} is already in use")
        self._dir = tempfile.TemporaryDirectory(prefix="stacks-mosquitto-")
        folder = Path(self._dir.name)
        password_file, acl_file = self.password_file, self.acl_file
        if self.secure and password_file and acl_file:
            # Mosquitto started as root drops to its own user: give it copies it can read.
            password_file = _readable_copy(password_file, folder / "passwords")
            acl_file = _readable_copy(acl_file, folder / "acl")
        conf = folder / "mosquitto.conf"
        conf.write_text(render_config(
            bind=self.bind, port=self.port, secure=self.secure,
            password_file=password_file, acl_file=acl_file,
        ))
        _hand_over(folder)
        self._proc = await asyncio.create_subprocess_exec(
            exe, "-c", str(conf),
            stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE,
        )
        assert self._proc.stderr is not None
        self._reader = asyncio.create_task(self._read_log(self._proc.stderr),
                                           name=f"mosquitto-log-{self.port}")
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        host = "127.0.0.1" if self.bind in ("0.0.0.0", "") else self.bind
        while loop.time() < deadline:
            if self._proc.returncode is not None:
                await self._log_ended()
                said = "\n".join(self._log).strip()
                await self.stop()
                raise RuntimeError(f"mosquitto exited: {said}")
            with contextlib.suppress(OSError):
                _reader, writer = await asyncio.open_connection(host, self.port)
                writer.close()
                return
            await asyncio.sleep(0.05)
        await self.stop()
        raise RuntimeError(f"mosquitto did not listen on {self.url} within {timeout} s")

    async def _read_log(self, stream: asyncio.StreamReader) -> None:
        """Keep the last `LOG_TAIL` lines of Mosquitto's log until it closes it."""
        pending = b""
        while chunk := await stream.read(64 * 1024):
            *lines, pending = (pending + chunk).split(b"\n")
            self._log.extend(line.decode(errors="replace") for line in lines[-LOG_TAIL:])
            pending = pending[-4096:]  # a line that long is cut: only its end is kept
        if pending:
            self._log.append(pending.decode(errors="replace"))

    async def _log_ended(self) -> None:
        reader, self._reader = self._reader, None
        if reader is not None:
            _done, running = await asyncio.wait({reader}, timeout=STOP_WAIT)
            if running:  # its stderr kept open by a child of its own: not waited for
                reader.cancel()

    async def stop(self) -> None:
        proc, self._proc = self._proc, None
        if proc is not None and proc.returncode is None:
            proc.terminate()
            try:
                await asyncio.wait_for(proc.wait(), STOP_WAIT)
            except TimeoutError:
                proc.kill()
                await proc.wait()
        await self._log_ended()
        if self._dir is not None:
            self._dir.cleanup()
            self._dir = None

    async def __aenter__(self) -> Self:
        await self.start()
        return self

    async def __aexit__(
        self, t: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.stop()
