"""Accounts at the ssh server (sshserver/accounts.py): the first login of a key chooses a
name, the account's keys all play with one identity, and bad names and keys are refused
in words; the interface's name and account screens over a real link (in process)."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import AsyncIterator
from pathlib import Path

import asyncssh
import pytest
import pytest_asyncio
from textual.widgets import Input, Label

from netplay.hosts import fingerprint
from netplay.identity import load_profile
from ratings.archive import Archive
from sshserver.accounts import Accounts, Login
from sshserver.request import profile_for_key
from tests.tui.conftest import until
from tests.tui.showcase import plain
from tui.app import StacksApp, make_app
from tui.launch import Launch
from tui.screens.account import AccountScreen, NameScreen
from tui.screens.menu import MenuScreen
from tui.serve_link import ServeLink, serve_link

pytestmark = pytest.mark.asyncio


def _key() -> asyncssh.SSHKey:
    return asyncssh.generate_private_key("ssh-ed25519", comment="someone@laptop")


def _line(key: asyncssh.SSHKey) -> str:
    return key.export_public_key().decode().strip()


@pytest_asyncio.fixture
async def accounts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[Accounts]:
    monkeypatch.setenv("STACKS_HOME", str(tmp_path / "home"))
    archive = Archive(f"sqlite:///{tmp_path / 'ratings.sqlite'}", tmp_path / "pending")
    try:
        yield Accounts(archive)
    finally:
        await archive.close()


async def _login(accounts: Accounts, key: asyncssh.SSHKey, user: str) -> Login:
    return await accounts.login(key.get_fingerprint("sha256"),
                                profile_for_key(key.public_data), user)


async def test_a_new_key_chooses_a_name_and_every_key_of_the_account_is_the_same_player(
    accounts: Accounts,
) -> None:
    first, second, other = _key(), _key(), _key()
    ann = await _login(accounts, first, "ann")
    assert ann.account is None and ann.name == "ann" and ann.problem is None
    assert ann.profile == profile_for_key(first.public_data)
    reply = await accounts.request(ann, {"op": "account"})
    assert reply["ok"] and reply["account"] is False

    reply = await accounts.request(ann, {"op": "name", "name": "  Ann Bonny "})
    mine = first.get_fingerprint("sha256")
    assert reply == {"ok": True, "name": "Ann Bonny", "account": True, "keys": 1,
                     "key_list": [mine], "this_key": mine, "problem": None}
    # The account's identity is the game profile the key plays with.
    assert ann.account is not None
    assert ann.account.fingerprint == fingerprint(load_profile(ann.profile).key)

    reply = await accounts.request(ann, {"op": "add_key", "key": _line(second)})
    assert reply["ok"] and reply["keys"] == 2 and "logs in as Ann Bonny" in reply["note"]
    again = await _login(accounts, second, "whoever")
    assert (again.name, again.profile) == ("Ann Bonny", ann.profile)

    await accounts.request(again, {"op": "name", "name": "Anne"})
    assert (await _login(accounts, first, "ann")).name == "Anne"

    bob = await _login(accounts, other, "bob")
    assert bob.profile != ann.profile
    await accounts.request(bob, {"op": "name", "name": "Bob"})


async def test_a_key_on_an_account_logs_in_until_its_holder_removes_it(
    accounts: Accounts,
) -> None:
    first, second, stranger = _key(), _key(), _key()
    fp = second.get_fingerprint("sha256")
    ann = await _login(accounts, first, "ann")
    await accounts.request(ann, {"op": "name", "name": "Ann"})
    assert not await accounts.key_allowed(fp)  # nobody added it: the server refuses it
    await accounts.request(ann, {"op": "add_key", "key": _line(second)})
    assert await accounts.key_allowed(fp)
    assert await accounts.key_allowed(first.get_fingerprint("sha256"))
    assert not await accounts.key_allowed(stranger.get_fingerprint("sha256"))

    bob = await _login(accounts, stranger, "bob")
    await accounts.request(bob, {"op": "name", "name": "Bob"})
    for who, key, words in (
        (bob, fp, "is not one of this account's keys"),  # Ann's key, not Bob's to remove
        (ann, "SHA256:nothing", "is not one of this account's keys"),
        (ann, "garbage", "not an OpenSSH public key line"),
        (bob, _line(stranger), "the account's only key"),
    ):
        reply = await accounts.request(who, {"op": "remove_key", "key": key})
        assert not reply["ok"] and words in reply["error"], reply
    assert await accounts.key_allowed(fp)

    reply = await accounts.request(ann, {"op": "remove_key", "key": _line(second)})
    assert reply["ok"] and reply["keys"] == 1 and fp in reply["note"], reply
    assert not await accounts.key_allowed(fp)
    gone = await _login(accounts, second, "whoever")
    assert gone.account is None and gone.name == "whoever"


@pytest.mark.parametrize(("name", "words"), [
    ("anne", "is taken"),
    ("x" * 25, "at most 24 characters"),
    ("Ann\x1b[31m", "control characters"),
    ("bob\nalice", "control characters"),
    ("", "can't be empty"),
    ("0123-4567-89ab-cdef", "looks like an identity fingerprint"),
    ("SHA256:abcdef", "looks like an identity fingerprint"),
    (7, "a name, please"),
])
async def test_a_bad_name_is_refused_in_words(accounts: Accounts, name: object,
                                              words: str) -> None:
    await accounts.request(await _login(accounts, _key(), "a"), {"op": "name", "name": "Anne"})
    login = await _login(accounts, _key(), "b")
    reply = await accounts.request(login, {"op": "name", "name": name})
    assert reply["ok"] is False and words in reply["error"]
    assert login.account is None  # nothing was made


async def test_a_bad_key_or_another_player_s_key_is_refused_in_words(
    accounts: Accounts,
) -> None:
    ann_key, bob_key = _key(), _key()
    ann = await _login(accounts, ann_key, "ann")
    reply = await accounts.request(ann, {"op": "add_key", "key": _line(_key())})
    assert reply["ok"] is False and "choose your name first" in reply["error"]
    await accounts.request(ann, {"op": "name", "name": "Ann"})
    bob = await _login(accounts, bob_key, "bob")
    await accounts.request(bob, {"op": "name", "name": "Bob"})

    for line, words in [
        (_line(bob_key), "belongs to another player's account"),
        ("ssh-ed25519 AAAAnot-base64", "not an OpenSSH public key line"),
        ("hello", "not an OpenSSH public key line"),
        ("", "paste a public key line"),
        (ann_key.export_private_key().decode(), "private key"),
        (_line(_key()) + "\n" + _line(_key()), "one key at a time"),
        (None, "paste a public key line"),
    ]:
        reply = await accounts.request(ann, {"op": "add_key", "key": line})
        assert reply["ok"] is False and words in reply["error"], (line, reply)
    assert ann.account is not None and len(ann.account.keys) == 1
    assert (await _login(accounts, bob_key, "bob")).name == "Bob"  # still Bob's


async def test_a_database_that_is_down_lets_the_key_play_under_its_login_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("STACKS_HOME", str(tmp_path / "home"))
    (tmp_path / "file").write_text("not a folder")
    archive = Archive(f"sqlite:///{tmp_path / 'file' / 'ratings.sqlite'}", tmp_path / "p")
    try:
        login = await _login(Accounts(archive), _key(), "ann")
        assert login.account is None and login.name == "ann" and login.problem
        reply = await Accounts(archive).request(login, {"op": "name", "name": "Ann"})
        assert reply["ok"] is False and "can't be used now" in reply["error"]
    finally:
        await archive.close()


# -- the interface ----------------------------------------------------------------------------


def _words(app: StacksApp) -> str:
    return "\n".join(plain(label.render()) for label in app.screen.query(Label))


@pytest_asyncio.fixture
async def served(accounts: Accounts) -> AsyncIterator[tuple[StacksApp, Accounts, Login]]:
    taken = await _login(accounts, _key(), "bob")
    await accounts.request(taken, {"op": "name", "name": "Bob"})
    login = await _login(accounts, _key(), "ann")
    ours, theirs = socket.socketpair()
    server = asyncio.create_task(serve_link(ours, lambda req: accounts.request(login, req)))
    link = ServeLink(theirs.fileno(), "ssh -t -p 2222 game.example")
    app = make_app(defaults=Launch(role="play", name="ann"), link=link)
    try:
        yield app, accounts, login
    finally:
        link.close()
        theirs.close()
        await asyncio.wait_for(server, 10)


async def test_first_login_asks_a_name_refuses_a_taken_one_and_the_menu_changes_it(
    served: tuple[StacksApp, Accounts, Login],
) -> None:
    app, _accounts, login = served
    async with app.run_test(size=(100, 32)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, NameScreen), "the name screen")
        field = app.screen.query_one("#account-name", Input)
        assert field.value == "ann"  # the ssh login name, offered
        field.value = "bob"
        await pilot.press("enter")
        await until(pilot, lambda: "is taken" in _words(app), "the refusal")
        assert isinstance(app.screen, NameScreen) and login.account is None
        field.value = "Ann"
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, MenuScreen), "the menu")
        assert app.defaults.name == "Ann" and login.name == "Ann"

        await pilot.press("a")
        await until(pilot, lambda: isinstance(app.screen, AccountScreen)
                    and "You play as Ann; 1 key logs in" in _words(app), "the account")
        screen = app.screen
        screen.query_one("#account-key", Input).value = "ssh-rsa garbage"
        screen.query_one("#account-key", Input).focus()
        await pilot.press("enter")
        await until(pilot, lambda: "not an OpenSSH public key line" in _words(app),
                    "the key refused")
        screen.query_one("#account-key", Input).value = _line(_key())
        await pilot.press("enter")
        await until(pilot, lambda: "2 keys log in" in _words(app), "the key added")
        screen.query_one("#account-name", Input).value = "Annie"
        screen.query_one("#account-name", Input).focus()
        await pilot.press("enter")
        await until(pilot, lambda: "Your name is now Annie" in _words(app), "the new name")
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, MenuScreen), "the menu")
        assert app.defaults.name == "Annie"


async def test_a_known_key_goes_straight_to_the_menu_under_its_account_name(
    served: tuple[StacksApp, Accounts, Login],
) -> None:
    app, accounts, login = served
    await accounts.request(login, {"op": "name", "name": "Ann"})
    async with app.run_test(size=(100, 32)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, MenuScreen), "the menu")
        await until(pilot, lambda: app.defaults.name == "Ann", "the account's name")
