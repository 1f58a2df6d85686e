"""Accounts end to end: the real OpenSSH client in tmux against ``stacks serve``. The first
login picks a name, a game against bots appears in Your games and moves the leaderboard,
and a second key added to the account logs in as the same player."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tests.sshserver.conftest import (
    SSH_KEYGEN,
    TIMEOUT,
    TMUX,
    Keys,
    Server,
    ServerFactory,
    Tmux,
    eventually,
)
from tests.sshserver.test_play import GAME_TIMEOUT, MENU, Player, _play_until

NAME_SCREEN = "choose your name"


class PrivateTmux(Tmux):
    """tmux on a socket of its own (``-L``), run without the ``$TMUX`` of any tmux the
    tests themselves may run in."""

    def __post_init__(self) -> None:
        super().__post_init__()
        self.label = f"stacks-accounts-{os.getpid()}-{id(self)}"

    def run(self, *args: str, check: bool = True) -> str:
        env = {k: v for k, v in os.environ.items() if k not in ("TMUX", "TMUX_PANE")}
        done = subprocess.run([TMUX, "-L", self.label, "-f", str(self.conf), *args],
                              capture_output=True, text=True, timeout=TIMEOUT, env=env)
        if check and done.returncode != 0:
            raise AssertionError(f"tmux {' '.join(args)}: {done.stderr.strip()}")
        return done.stdout


KEY_FIELD = "Add a key: paste"
REMOVE_FIELD = "Remove a key:"


def _field_line(screen: str, label: str) -> str:
    """The line under ``label``: what the field there shows."""
    lines = screen.splitlines()
    at = next((i for i, line in enumerate(lines) if label in line), None)
    return lines[at + 1] if at is not None and at + 1 < len(lines) else ""


def _type(mux: Tmux, window: str, text: str, shown: str | None = None,
          field: str | None = None, *, paste: bool = False) -> None:
    """Empty the field in focus, type ``text`` (``paste``: paste it, as a person pastes a
    .pub line: a bracketed paste), and once it shows (in the field under the label
    ``field``, if given), press Enter. Keys sent while the program is still setting up
    its terminal, or before a focus change took effect, may land elsewhere or be lost (as
    a person's would): what did not show where it should is typed again.

    Textual acts on Ctrl-U and Tab (bindings) only once the key has passed the field in
    focus, while it puts each typed character in that field at once: characters sent
    right behind them can land before them, in the field Tab leaves, or be partly erased
    by Ctrl-U (the field then keeps the text's end without its start). A text the field
    shows whole is checked whole; a longer one (a key line, which the field scrolls) is
    pasted: a paste lands whole or, erased by the Ctrl-U behind it, not at all."""
    want = shown or text

    def there() -> bool:
        screen = mux.screen(window)
        return want in (_field_line(screen, field) if field else screen)

    for _ in range(5):
        mux.keys(window, "C-u")
        if paste:
            mux.run("set-buffer", "-b", "typed", "--", text)
            mux.run("paste-buffer", "-p", "-d", "-b", "typed", "-t", window)
        else:
            mux.keys(window, "-l", text)
        try:
            eventually(there, f"{want!r} in {window}", TIMEOUT / 5)
            break
        except AssertionError:
            continue
    else:
        raise AssertionError(f"{text!r} never showed in {window}:\n{mux.screen(window)}")
    mux.keys(window, "Enter")


@pytest.fixture
def mux(tmp_path: Path) -> PrivateTmux:
    folder = tmp_path / "mux"
    folder.mkdir()
    made = PrivateTmux(folder)
    yield made  # type: ignore[misc]
    made.kill()


def test_first_login_names_the_player_a_game_counts_and_a_second_key_is_the_same_player(
    serve: ServerFactory, keys: Keys, mux: PrivateTmux,
) -> None:
    server = serve(authorized=keys.public("laptop") + keys.public("desktop"), accounts=False)

    # First login with a key the server does not know: it asks for a name.
    mux.open("first", server.ssh_argv(keys.path("laptop"), "ann"), 100, 32)
    mux.wait_for("first", NAME_SCREEN)
    _type(mux, "first", "0123-4567-89ab-cdef")
    mux.wait_for("first", "looks like an identity fingerprint")
    _type(mux, "first", "Ann Tester")
    mux.wait_for("first", MENU)

    mux.keys("first", "k")  # nothing rated yet
    mux.wait_for("first", "No rated Sequence Stacks games yet")
    mux.keys("first", "Escape")
    mux.wait_for("first", MENU)

    # A game against bots, to the end.
    mux.keys("first", "p")
    mux.wait_for("first", "turn", GAME_TIMEOUT)
    ann = Player(mux, "first")
    _play_until([ann], ann.over, "the game's end")
    mux.keys("first", "m")
    mux.wait_for("first", MENU)

    # It moved the leaderboard (her row, marked as hers, one game) and is in her games.
    mux.keys("first", "k")
    board = mux.wait_for("first", "Ann Tester")
    [row] = [line for line in board.splitlines() if "Ann Tester" in line]
    assert "▶" in row and row.split("Ann Tester")[1].split()[0] == "1", board
    assert "Bot (" in board  # the bots are rated too
    mux.keys("first", "y")
    games = mux.wait_for("first", "newest first")
    assert "vs Bot" in games, games
    mux.keys("first", "Escape")
    mux.wait_for("first", MENU)

    # She adds her other key: another player's key or a bad line is refused in words.
    mux.keys("first", "a")
    mux.wait_for("first", "You play as Ann Tester; 1 key logs in")
    mux.keys("first", "Tab")
    _type(mux, "first", "ssh-ed25519 nonsense", field=KEY_FIELD)
    mux.wait_for("first", "not an OpenSSH public key line")
    line = keys.public("desktop").strip()
    _type(mux, "first", line, shown=line[-20:], field=KEY_FIELD, paste=True)
    mux.wait_for("first", "logs in as Ann Tester")
    mux.wait_for("first", "2 keys log in")
    mux.keys("first", "Escape")
    mux.wait_for("first", MENU)
    mux.keys("first", "q")
    assert mux.wait_exit("first") == 0

    # The second key, under another login name: no name asked, the same player.
    mux.open("second", server.ssh_argv(keys.path("desktop"), "whoever"), 100, 32)
    mux.wait_for("second", MENU)
    assert NAME_SCREEN not in mux.screen("second")
    mux.keys("second", "k")
    board = mux.wait_for("second", "Ann Tester")
    [row] = [line for line in board.splitlines() if "Ann Tester" in line]
    assert "▶" in row, board  # her identity: the row is marked as this player's
    mux.keys("second", "y")
    assert "vs Bot" in mux.wait_for("second", "newest first")
    mux.keys("second", "Escape")
    mux.wait_for("second", MENU)
    mux.keys("second", "q")
    assert mux.wait_exit("second") == 0
    assert "Ann Tester connected" in server.output()
    assert "whoever connected" not in server.output()
    eventually(lambda: server.leftovers() == [], "every session's processes to end")


def _refused(server: Server, keys: Keys, who: str) -> bool:
    """Does the server refuse ``who``'s key at authentication? (Accepted, a session
    without a terminal is told so and ends with status 1; refused, ssh ends with 255.)"""
    done = subprocess.run(server.ssh_argv(keys.path(who), who, tty=False),
                          capture_output=True, text=True, timeout=TIMEOUT,
                          stdin=subprocess.DEVNULL)
    if done.returncode == 255:
        assert "Permission denied" in done.stderr, done.stderr
        return True
    assert done.returncode == 1 and "connect with a terminal" in done.stdout + done.stderr, done
    return False


def _fingerprint(keys: Keys, who: str) -> str:
    done = subprocess.run([SSH_KEYGEN, "-l", "-E", "sha256", "-f", str(keys.path(who))],
                          capture_output=True, text=True, timeout=TIMEOUT, check=True)
    return done.stdout.split()[1]


def test_a_key_the_account_holder_adds_logs_in_as_them_and_a_removed_one_no_more(
    serve: ServerFactory, keys: Keys, mux: PrivateTmux,
) -> None:
    # Only the laptop's key is in the operator's authorized keys (it has an account,
    # "laptop"); the server is not --open.
    server = serve(authorized=keys.public("laptop"))
    desktop = _fingerprint(keys, "desktop")
    assert _refused(server, keys, "desktop")  # an unknown key

    mux.open("laptop", server.ssh_argv(keys.path("laptop"), "laptop"), 100, 32)
    mux.wait_for("laptop", MENU)
    mux.keys("laptop", "a")
    mux.wait_for("laptop", "You play as laptop; 1 key logs in")
    mux.keys("laptop", "Tab")
    _type(mux, "laptop", "ssh-ed25519 nonsense", field=KEY_FIELD)  # the field has the keys
    mux.wait_for("laptop", "not an OpenSSH public key line")
    line = keys.public("desktop").strip()
    _type(mux, "laptop", line, shown=line[-20:], field=KEY_FIELD, paste=True)
    mux.wait_for("laptop", "logs in as laptop")
    mux.wait_for("laptop", desktop)  # listed among the account's keys

    # The desktop's key logs in now, as the same player, under any login name: it takes
    # over from the laptop's connection, as the same key again would.
    assert not _refused(server, keys, "desktop")
    mux.open("desktop", server.ssh_argv(keys.path("desktop"), "whoever"), 100, 32)
    mux.wait_for("desktop", MENU)
    eventually(lambda: f"laptop connected from 127.0.0.1 (key {desktop})" in server.output(),
               "the desktop's login as laptop")
    mux.wait_for("laptop", "You connected again from elsewhere (the same account)")
    mux.keys("desktop", "q")
    assert mux.wait_exit("desktop") == 0

    # Removed from the account (from the laptop), it is refused again; a key the account
    # does not hold is refused in words.
    mux.open("laptop2", server.ssh_argv(keys.path("laptop"), "laptop"), 100, 32)
    mux.wait_for("laptop2", MENU)
    mux.keys("laptop2", "a")
    mux.wait_for("laptop2", "You play as laptop; 2 keys log in")
    mux.keys("laptop2", "Tab", "Tab")
    _type(mux, "laptop2", "SHA256:notakeyofyours", field=REMOVE_FIELD)
    mux.wait_for("laptop2", "is not one of this")
    _type(mux, "laptop2", desktop, field=REMOVE_FIELD)
    mux.wait_for("laptop2", f"removed the key {desktop}")
    mux.wait_for("laptop2", "1 key logs in")
    assert _refused(server, keys, "desktop")
    assert f"refused key {desktop}" in server.output()
    mux.keys("laptop2", "Escape")
    mux.wait_for("laptop2", MENU)
    mux.keys("laptop2", "q")
    assert mux.wait_exit("laptop2") == 0
