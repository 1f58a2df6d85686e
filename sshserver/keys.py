"""The ssh server's keys: its own host key, and the authorized-keys file of the players
it lets in."""

from __future__ import annotations

import logging
import os
from pathlib import Path

import asyncssh

from sshserver.settings import ServeError

log = logging.getLogger(__name__)

HOST_KEY_FILE = "ssh_host_ed25519_key"


def load_host_key(path: Path) -> asyncssh.SSHKey:
    """The server's host key: read, or generated once and kept (mode 0600)."""
    if path.exists():
        try:
            return asyncssh.read_private_key(path)
        except (OSError, ValueError, asyncssh.KeyImportError) as exc:
            raise ServeError(f"can't read the host key {path}: {exc}") from exc
    key = asyncssh.generate_private_key("ssh-ed25519", comment="stacks serve")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + ".tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "wb") as handle:
            handle.write(key.export_private_key())
        os.replace(tmp, path)
        path.with_name(path.name + ".pub").write_bytes(key.export_public_key())
    except OSError as exc:
        raise ServeError(f"can't write the host key {path}: {exc}") from exc
    return key


class AuthorizedKeys:
    """The authorized-keys file, read again whenever it changes."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._keys: asyncssh.SSHAuthorizedKeys | None = None
        self._stamp: tuple[int, int] | None = None
        self.count = 0

    def load(self) -> None:
        """Read the file; `ServeError` if it is missing or unreadable."""
        try:
            stat = self.path.stat()
            text = self.path.read_text(encoding="utf-8", errors="replace")
        except FileNotFoundError:
            raise ServeError(
                f"no authorized keys file at {self.path}.\n"
                "  Put the players' public keys there (one per line, as in "
                "~/.ssh/authorized_keys),\n"
                "  give another file with --authorized-keys FILE, or let any key in with "
                "--open (a LAN party)."
            ) from None
        except OSError as exc:
            raise ServeError(f"can't read {self.path}: {exc}") from exc
        self._stamp = (stat.st_mtime_ns, stat.st_size)
        lines = [line for line in text.splitlines()
                 if line.strip() and not line.lstrip().startswith("#")]
        self.count = len(lines)
        try:
            self._keys = asyncssh.import_authorized_keys(text) if lines else None
        except ValueError:  # no valid entry at all
            self._keys, self.count = None, 0

    def _refresh(self) -> None:
        try:
            stat = self.path.stat()
        except OSError:
            return  # keep what we had
        if (stat.st_mtime_ns, stat.st_size) != self._stamp:
            try:
                self.load()
            except ServeError as exc:
                log.warning("%s", exc)

    def allows(self, key: asyncssh.SSHKey, host: str, addr: str) -> bool:
        self._refresh()
        return self._keys is not None and self._keys.validate(key, host, addr) is not None


# -- the server -----------------------------------------------------------------------------------


def fingerprint(key: asyncssh.SSHKey) -> str:
    return key.get_fingerprint("sha256")
