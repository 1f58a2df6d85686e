"""Moderation end to end: real OpenSSH clients in tmux against ``stacks serve --moderators
mod --word-filter FILE``. A player's chat line is masked by the filter; another reports
it with ``!``; the report reaches the moderator's list; the moderator mutes the player
(their next line is refused in words), renames another, says a line to everyone, bans
the first (their session ends and their key is refused at login in words), and the
console lifts the ban."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.sshserver.conftest import (
    ROOT,
    TIMEOUT,
    Keys,
    Server,
    ServerFactory,
    Tmux,
    eventually,
)
from tests.sshserver.test_held import FORM, _as, _join_command, _shows
from tests.sshserver.test_play import MENU


def _open_three_seats(tmux: Tmux, window: str, name: str) -> str:
    """From the menu, open a 3-seat table (it waits in its lobby for a third player)."""
    tmux.wait_for(window, MENU)
    tmux.keys(window, "h")
    tmux.wait_for(window, FORM)
    tmux.keys(window, "-l", name)
    _shows(tmux, window, rf"Table name +{name} ")
    tmux.keys(window, "Tab", "Enter")
    tmux.wait_for(window, "▲")  # the list is open
    tmux.keys(window, "Up", "Enter")
    _shows(tmux, window, r"Players +3 ")
    tmux.keys(window, "C-o")
    return tmux.wait_for(window, "Others join with:")


def _in_field(screen: str, text: str) -> bool:
    """Does a field on ``screen`` hold ``text`` and nothing else (a line of its own,
    inside the field's frame)?"""
    for line in screen.splitlines():
        inner = line.split("▊")[-1] if "▊" in line else line
        if inner.strip(" │▊▎▏") == text:
            return True
    return False


def _enter(tmux: Tmux, window: str, text: str) -> None:
    """Type ``text`` in the field in focus and, once it shows there, press Enter. Keys
    sent before a focus change took effect (a loaded machine) land elsewhere or are
    lost, as a person's would: what did not show is typed again, the field emptied
    first."""
    for _ in range(5):
        tmux.keys(window, "C-u")
        tmux.keys(window, "-l", text)
        try:
            eventually(lambda: _in_field(tmux.screen(window), text),
                       f"{text!r} in {window}", TIMEOUT / 5)
            break
        except AssertionError:
            continue
    else:
        raise AssertionError(f"{text!r} never showed in {window}:\n{tmux.screen(window)}")
    tmux.keys(window, "Enter")


def _say(tmux: Tmux, window: str, text: str) -> None:
    """Type a line in the lobby's chat and send it."""
    tmux.keys(window, "t")
    _enter(tmux, window, text)


def _moderate(tmux: Tmux, window: str, line: str, answer: str) -> str:
    """Type a command on the Moderate screen; the screen once the answer shows."""
    _enter(tmux, window, line)
    return tmux.wait_for(window, answer)


def _console(server: Server, *words: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "STACKS_HOME": str(server.home)}
    return subprocess.run([sys.executable, "-m", "stacks.cli", "moderate", *words],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=TIMEOUT)


def _login_words(server: Server, keys: Keys, who: str) -> tuple[int, str]:
    """A login of ``who``'s key without a terminal: its status and what it was told."""
    done = subprocess.run(server.ssh_argv(keys.path(who), who, tty=False),
                          capture_output=True, text=True, timeout=TIMEOUT,
                          stdin=subprocess.DEVNULL)
    return done.returncode, done.stdout + done.stderr


def test_a_moderator_reads_a_report_mutes_renames_and_bans_and_the_ban_is_refused_in_words(
    serve: ServerFactory, keys: Keys, tmux: Tmux, broker: str, tmp_path: Path,
) -> None:
    words = tmp_path / "words.txt"
    words.write_text("# masked in the chat\ndarn\n")
    server = serve("--broker", broker, "--moderators", "mod", "--word-filter", str(words),
                   authorized=keys.public("mod") + keys.public("bob") + keys.public("cat"))

    # Bob opens a table; Cat joins its lobby. Bob's line reaches Cat masked.
    tmux.open("bob", server.ssh_argv(keys.path("bob"), "bob"), 100, 32)
    join = _join_command(_open_three_seats(tmux, "bob", "pub"))
    tmux.open("cat", _as(server, keys, "cat", join), 100, 32)
    tmux.wait_for("cat", "cat (you)")
    tmux.wait_for("bob", "cat")
    _say(tmux, "bob", "what a darn table")
    screen = tmux.wait_for("cat", "what a **** table")
    assert "darn" not in screen

    # Cat reports Bob's line with "!": it reaches the moderators.
    tmux.keys("cat", "!")
    tmux.wait_for("cat", "!")
    _enter(tmux, "cat", "!bob swearing")
    tmux.wait_for("cat", "reached the moderators")
    assert "report #1: cat reports bob at pub: swearing" in server.output()

    # The moderator's menu has Moderate; it opens on the reports waiting.
    tmux.open("mod", server.ssh_argv(keys.path("mod"), "mod"), 110, 32)
    tmux.wait_for("mod", "Moderate")
    tmux.keys("mod", "m")
    screen = tmux.wait_for("mod", "cat reports bob")
    assert "what a **** table" in screen and "swearing" in screen, screen
    _moderate(tmux, "mod", "who", "at table pub")

    # Mute: Bob is told, and his next line is refused in words.
    _moderate(tmux, "mod", "mute bob 10m swearing", "bob is muted for 10 minutes")
    tmux.wait_for("bob", "A moderator muted you")
    # He reads the notice until it goes (its toast covers his chat field meanwhile), then
    # types, sends, and looks for the answer, as a person would, until it comes.
    eventually(lambda: "A moderator muted you" not in tmux.screen("bob"), "the notice to go")
    tmux.keys("bob", "t")
    for _ in range(5):
        tmux.keys("bob", "C-u")
        tmux.keys("bob", "-l", "nobody hears this")
        tmux.keys("bob", "Enter")
        try:
            tmux.wait_for("bob", "you are muted for", TIMEOUT / 5)
            break
        except AssertionError:
            continue
    else:
        raise AssertionError(f"bob was not told he is muted:\n{tmux.screen('bob')}")

    # Rename: Cat's account takes a new name.
    _moderate(tmux, "mod", "rename cat Catherine name taken in error",
              "cat is now called Catherine")
    # (a toast wraps its words: the name may be on a line of its own)
    eventually(lambda: "renamed your" in (shown := tmux.screen("cat")) and "Catherine" in shown,
               "cat told of the new name")

    # A line to everyone on the server.
    _moderate(tmux, "mod", "say back at noon", "said to everyone")
    tmux.wait_for("cat", "From the server: back at noon")

    # Ban: Bob's session ends, his key is refused at login in words.
    _moderate(tmux, "mod", "ban bob flooding the chat", "bob is banned for good")
    tmux.wait_for("bob", "this account is banned: flooding the chat")
    code, told = _login_words(server, keys, "bob")
    assert code == 1 and "this account is banned: flooding the chat" in told, told

    # Every action is in the audit log, at the console too; the console lifts the ban.
    screen = _moderate(tmux, "mod", "audit", "UTC mod: mute bob")
    assert "UTC mod: mute bob (for 10 minutes) — swearing" in screen, screen
    audit = _console(server, "audit")
    assert audit.returncode == 0
    assert "mod: rename cat (now Catherine)" in audit.stdout, audit.stdout
    assert "at table pub" in _console(server, "who").stdout
    lifted = _console(server, "unban", "bob", "appeal")
    assert lifted.returncode == 0, lifted.stderr
    eventually(lambda: "this account is banned" not in _login_words(server, keys, "bob")[1],
               "bob's key to log in again")
    assert "console unban bob" in server.output()
    assert _console(server, "ban", "nobody").returncode == 1
