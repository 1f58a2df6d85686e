"""Accounts at the ssh server: an ssh key's fingerprint → a name chosen at first login.

An account is a name (unique, changeable) and the game identity its games are played
with: the profile of the key that made it (``ssh-`` and 16 hex digits,
`sshserver.request.profile_for_key`). Every key of the account logs in to that profile,
so a second key takes back the same seat with the same hand, and the ratings (kept per
game identity) are the account's whichever key played. The database is the server's
(`ratings.store`, through the server's `ratings.archive.Archive`): the session's program
asks over its link (`tui.serve_link`), ops ``account``, ``name``, ``add_key`` and
``remove_key``.

A key on an account logs in (`Accounts.key_allowed`): the account holder adds their other
keys themselves, and the server's authorized-keys file (or ``--open``) only decides which
keys may make an account. A key removed from its account no longer logs in by it.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from typing import Any

import asyncssh

from netplay.errors import ProfileError
from netplay.hosts import fingerprint
from netplay.identity import load_profile
from ratings.archive import Archive
from ratings.schema import SchemaTooNew
from ratings.store import Account, DatabaseError, Refused, Store

log = logging.getLogger(__name__)

ACCOUNT_OPS = frozenset({"account", "name", "add_key", "remove_key"})
MAX_KEY_LINE = 16 * 1024


class AccountsDown(RuntimeError):
    """The database can't be used for accounts now; the words say why."""


@dataclass
class Login:
    """One connection's standing: its key, and its account once it has one."""

    ssh_fingerprint: str
    profile: str
    """The game profile this login plays with: the account's, else the key's own."""
    name: str
    account: Account | None = None
    problem: str | None = None
    """Why accounts could not be looked up at login (the database is down), or ``None``."""


class Accounts:
    """The server's accounts, in the database of its archive."""

    def __init__(self, archive: Archive) -> None:
        self.archive = archive
        self._known: dict[str, Account] = {}
        """Each key's account as last looked up: a key back while the database is down
        keeps its account's identity (its seats), as the server last knew it."""

    def _remember(self, ssh_fingerprint: str, account: Account | None) -> None:
        if account is None:
            self._known.pop(ssh_fingerprint, None)
            return
        for key in account.keys:
            self._known[key] = account
        for key, known in list(self._known.items()):
            if known.id == account.id and key not in account.keys:
                del self._known[key]  # removed from the account

    async def _store(self) -> Store:
        try:
            return await self.archive.store_handle()
        except (DatabaseError, SchemaTooNew, OSError) as exc:
            raise AccountsDown(str(exc)) from None

    async def login(self, ssh_fingerprint: str, key_profile: str, name: str) -> Login:
        """Who logs in with this key: the account's profile and name, or the key's own
        profile and the ssh login name until a name is chosen."""
        login = Login(ssh_fingerprint, key_profile, name)
        try:
            store = await self._store()
            account = await store.account_for_key(ssh_fingerprint)
        except (AccountsDown, DatabaseError) as exc:
            self.archive.failed()
            login.problem = str(exc)
            known = self._known.get(ssh_fingerprint)
            if known is not None:  # its identity (and seats) as last known; no changes
                login.profile, login.name = known.profile, known.name
            return login
        self._remember(ssh_fingerprint, account)
        if account is not None:
            login.account, login.profile, login.name = account, account.profile, account.name
            return login
        try:
            # Made now, before the session's program starts: the program and the account
            # then name the same identity (two processes never create it at once).
            await asyncio.to_thread(_identity_fingerprint, key_profile)
        except AccountsDown as exc:
            login.problem = str(exc)
        return login

    async def key_allowed(self, ssh_fingerprint: str) -> bool:
        """Is this key on an account (added by its holder)? When the database can't say:
        whether it was when the server last looked (else it is refused, as an unknown
        one)."""
        try:
            store = await self._store()
            account = await store.account_for_key(ssh_fingerprint)
        except (AccountsDown, DatabaseError) as exc:
            self.archive.failed()
            log.warning("accounts can't be looked up for key %s: %s", ssh_fingerprint, exc)
            # A key the server last knew on an account still gets back to its seats.
            return ssh_fingerprint in self._known
        self._remember(ssh_fingerprint, account)
        return account is not None

    async def request(self, login: Login, request: dict[str, Any]) -> dict[str, Any]:
        """One account request of the login's program: a reply, ``ok`` or an ``error``
        in words."""
        op = request.get("op")
        try:
            if login.problem is not None and op in ACCOUNT_OPS:
                try:
                    await self._look_again(login)
                except (AccountsDown, DatabaseError) as exc:
                    login.problem = str(exc)  # still down: said as it is
            if op == "account":
                return self._reply(login)
            if op == "name":
                await self._name(login, request.get("name"))
                self._remember(login.ssh_fingerprint, login.account)
                return self._reply(login)
            if op == "add_key":
                note = await self._add_key(login, request.get("key"))
                self._remember(login.ssh_fingerprint, login.account)
                return {**self._reply(login), "note": note}
            if op == "remove_key":
                note = await self._remove_key(login, request.get("key"))
                self._remember(login.ssh_fingerprint, login.account)
                return {**self._reply(login), "note": note}
        except Refused as exc:
            return {"ok": False, "error": str(exc)}
        except (AccountsDown, DatabaseError) as exc:
            return {"ok": False, "error": f"the server's database can't be used now ({exc}): "
                                          "try again later"}
        return {"ok": False, "error": f"unknown request {op!r}"}

    async def _look_again(self, login: Login) -> None:
        """A login made while the database was down looks its account up again: the
        database may be back (`AccountsDown` if not)."""
        store = await self._store()
        account = await store.account_for_key(login.ssh_fingerprint)
        if account is not None and account.profile != login.profile:
            # This session plays with the key's own identity: the account's is for the
            # next login.
            login.problem = f"log in again to play as {account.name}"
            return
        login.problem = None
        if account is not None:
            login.account, login.name = account, account.name

    @staticmethod
    def _reply(login: Login) -> dict[str, Any]:
        account = login.account
        return {"ok": True, "name": login.name, "account": account is not None,
                "keys": len(account.keys) if account else 0,
                "key_list": list(account.keys) if account else [],
                "this_key": login.ssh_fingerprint, "problem": login.problem}

    async def _name(self, login: Login, name: object) -> None:
        if not isinstance(name, str):
            raise Refused("a name, please")
        store = await self._store()
        if login.account is None:
            identity = await asyncio.to_thread(_identity_fingerprint, login.profile)
            account = await store.create_account(name, login.ssh_fingerprint, login.profile,
                                                 identity)
        else:
            account = await store.rename(login.account.id, name)
        login.account, login.name, login.problem = account, account.name, None

    async def _add_key(self, login: Login, line: object) -> str:
        if login.account is None:
            raise Refused("choose your name first: a key is added to an account")
        key = public_key(line)
        store = await self._store()
        ssh_fingerprint = key.get_fingerprint("sha256")
        before = set(login.account.keys)
        login.account = await store.add_key(login.account.id, ssh_fingerprint)
        if ssh_fingerprint in before:
            return f"the key {ssh_fingerprint} was already yours"
        return f"added the key {ssh_fingerprint}: it logs in as {login.name}"


    async def _remove_key(self, login: Login, given: object) -> str:
        if login.account is None:
            raise Refused("you have no account yet: choose your name first")
        if isinstance(given, str) and given.strip().startswith("SHA256:") \
                and " " not in given.strip():
            ssh_fingerprint = given.strip()
        else:
            ssh_fingerprint = public_key(given).get_fingerprint("sha256")
        store = await self._store()
        login.account = await store.remove_key(login.account.id, ssh_fingerprint)
        here = " (the one you are connected with: it logs in no more after this " \
            "connection)" if ssh_fingerprint == login.ssh_fingerprint else ""
        return f"removed the key {ssh_fingerprint}{here}"


def public_key(line: object) -> asyncssh.SSHKey:
    """The OpenSSH public key of a pasted line (``ssh-ed25519 AAAA… comment``), or
    `Refused` in words."""
    if not isinstance(line, str) or not line.strip():
        raise Refused("paste a public key line, as in ~/.ssh/id_ed25519.pub")
    text = line.strip()
    if len(text) > MAX_KEY_LINE:
        raise Refused("that is far too long for a public key line")
    if "PRIVATE KEY" in text:
        raise Refused("that is a private key: never paste it anywhere; paste the .pub "
                      "file's line")
    if "\n" in text:
        raise Refused("one key at a time: paste a single line")
    try:
        return asyncssh.import_public_key(text)
    except (asyncssh.KeyImportError, ValueError) as exc:
        raise Refused(f"that is not an OpenSSH public key line ({exc})") from None


def _identity_fingerprint(profile: str) -> str:
    try:
        return fingerprint(load_profile(profile).key)
    except ProfileError as exc:
        raise AccountsDown(str(exc)) from None
