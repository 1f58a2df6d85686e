"""A login while the server's database is down: it reaches the menu, told in words that
ratings and accounts are unavailable (its seats are not), and accounts come back by
themselves with the database; never a blank screen or "Task exception was never
retrieved". PostgreSQL of the test's own, stopped in the middle of the test."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import asyncssh
import pytest
import pytest_asyncio

from ratings.archive import Archive
from sshserver.accounts import Accounts
from sshserver.request import profile_for_key
from tests.postgres import Cluster
from tests.sshserver.conftest import Keys, ServerFactory
from tests.sshserver.test_accounts_tmux import NAME_SCREEN, PrivateTmux, _type, mux
from tests.sshserver.test_play import MENU

__all__ = ["mux"]

UNAVAILABLE = "ratings and accounts are unavailable"


@pytest.fixture
def cluster() -> Iterator[Cluster]:
    made = Cluster()
    try:
        made.start()
    except (RuntimeError, OSError) as exc:
        made.stop()
        pytest.fail(f"PostgreSQL for the test could not start: {exc}")
    try:
        yield made
    finally:
        made.stop()


@pytest_asyncio.fixture
async def archive(cluster: Cluster, tmp_path: Path,
                  monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[Archive]:
    monkeypatch.setenv("STACKS_HOME", str(tmp_path / "home"))
    made = Archive(cluster.create(), tmp_path / "pending")
    try:
        yield made
    finally:
        await made.close()


@pytest.mark.asyncio
async def test_a_login_during_an_outage_is_told_and_accounts_come_back(
        cluster: Cluster, archive: Archive) -> None:
    accounts = Accounts(archive)
    key = asyncssh.generate_private_key("ssh-ed25519")
    fingerprint, profile = key.get_fingerprint("sha256"), profile_for_key(key.public_data)
    login = await accounts.login(fingerprint, profile, "erin")
    assert login.problem is None
    assert (await accounts.request(login, {"op": "name", "name": "Erin"}))["ok"]

    cluster.pause()
    down = await accounts.login(fingerprint, profile, "erin")
    # Its name and identity as the server last knew them; no account changes meanwhile.
    assert down.problem and down.account is None and down.name == "Erin", down
    assert down.profile == login.profile
    reply = await accounts.request(down, {"op": "name", "name": "Erin"})
    assert not reply["ok"] and "can't be used now" in reply["error"], reply
    assert await accounts.key_allowed(fingerprint)  # on an account, as last known
    stranger = asyncssh.generate_private_key("ssh-ed25519").get_fingerprint("sha256")
    assert not await accounts.key_allowed(stranger)

    cluster.resume()
    back = await accounts.login(fingerprint, profile, "erin")
    assert back.problem is None and back.name == "Erin" and back.account is not None


@pytest.mark.asyncio
async def test_a_second_key_that_dropped_during_an_outage_gets_back_to_its_seat(
        cluster: Cluster, archive: Archive) -> None:
    """A player's second key plays with the account's identity (the first key's): back
    during an outage, it is still that identity (its seat's), as the server last knew."""
    accounts = Accounts(archive)
    first, second = (asyncssh.generate_private_key("ssh-ed25519") for _ in range(2))
    login = await accounts.login(first.get_fingerprint("sha256"),
                                 profile_for_key(first.public_data), "erin")
    await accounts.request(login, {"op": "name", "name": "Erin"})
    line = second.export_public_key().decode().strip()
    assert (await accounts.request(login, {"op": "add_key", "key": line}))["ok"]
    here = await accounts.login(second.get_fingerprint("sha256"),
                                profile_for_key(second.public_data), "erin")
    assert here.profile == login.profile and here.name == "Erin"

    cluster.pause()
    again = await accounts.login(second.get_fingerprint("sha256"),
                                 profile_for_key(second.public_data), "erin")
    assert again.problem, again
    assert again.profile == login.profile and again.name == "Erin", again
    assert await accounts.key_allowed(second.get_fingerprint("sha256"))


def test_an_ssh_login_during_an_outage_reaches_the_menu_in_words(
        serve: ServerFactory, keys: Keys, mux: PrivateTmux, cluster: Cluster) -> None:
    server = serve("--database", cluster.create(), authorized=keys.public("laptop"),
                   accounts=False)
    mux.open("first", server.ssh_argv(keys.path("laptop"), "erin"), 100, 32)
    mux.wait_for("first", NAME_SCREEN)
    _type(mux, "first", "Erin")
    mux.wait_for("first", MENU)
    mux.keys("first", "q")
    assert mux.wait_exit("first") == 0

    cluster.pause()
    mux.open("down", server.ssh_argv(keys.path("laptop"), "erin"), 100, 32)
    screen = mux.wait_for("down", UNAVAILABLE)
    assert MENU in screen or MENU in mux.wait_for("down", MENU), screen
    mux.keys("down", "q")
    assert mux.wait_exit("down") == 0

    cluster.resume()
    mux.open("back", server.ssh_argv(keys.path("laptop"), "erin"), 100, 32)
    mux.wait_for("back", MENU)
    mux.keys("back", "q")
    assert mux.wait_exit("back") == 0
    said = server.output()
    assert "never retrieved" not in said and "Traceback" not in said, said
    # The login during the outage is a session (counted), as its account's name.
    during = said.split("accounts can't be looked up for Erin", 1)[1]
    assert "1 session connected: Erin" in during and "Erin connected" in during, said
