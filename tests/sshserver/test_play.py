"""The real interface over ssh: OpenSSH clients in tmux, `stacks serve`, and for a game a
broker and a headless host in processes of their own (all on 127.0.0.1)."""

from __future__ import annotations

import os
import re
import signal
import time
from collections.abc import Callable

from tests.sshserver.conftest import (
    TIMEOUT,
    Keys,
    Server,
    ServerFactory,
    Table,
    Tmux,
    alive,
    descendants,
    eventually,
)
from tests.support import SCALE, wait_until

MENU = "Play against bots"
GAME_TIMEOUT = 10 * TIMEOUT


def _box_width(screen: str) -> int:
    """Width of the menu's box (its top border), 0 if not shown."""
    for line in screen.splitlines():
        if "╭" in line and "╮" in line:
            return line.index("╮") - line.index("╭") + 1
    return 0


def _rule_width(screen: str, title: str) -> int:
    """Width of the ``─Title───`` rule over a section of the table."""
    for line in screen.splitlines():
        if line.lstrip().startswith(f"─{title}"):
            return len(line.rstrip())
    return 0


def test_the_menu_renders_keys_work_and_a_resize_relays_it(
    serve: ServerFactory, keys: Keys, tmux: Tmux
) -> None:
    server = serve(authorized=keys.public("alice"))
    # Exactly what a player types: `ssh -p PORT NAME@host`, no -t.
    tmux.open("a", server.ssh_argv(keys.path("alice"), "alice", tty=None), 100, 30)
    screen = tmux.wait_for("a", MENU)
    assert "Host a table" in screen and "Join a table" in screen
    wide = _box_width(screen)
    assert wide > 0
    [session] = server.sessions()

    tmux.resize("a", 64, 22)
    eventually(lambda: 0 < _box_width(tmux.screen("a")) < wide, "the menu to fit 64 columns")
    assert all(len(line.rstrip()) <= 64 for line in tmux.screen("a").splitlines())

    tmux.keys("a", "r")  # the rules
    tmux.wait_for("a", "the rules as this game plays")
    tmux.keys("a", "Escape")
    tmux.wait_for("a", MENU)
    tmux.keys("a", "q")  # quit: the client exits cleanly, the program is gone
    assert tmux.wait_exit("a") == 0
    eventually(lambda: not alive(session), "the session's program to end")
    assert server.leftovers() == []


def test_an_idle_player_is_told_and_the_terminal_is_given_back(
    serve: ServerFactory, keys: Keys, tmux: Tmux
) -> None:
    server = serve("--idle-timeout", "0.05", authorized=keys.public("alice"))
    tmux.open("a", server.ssh_argv(keys.path("alice"), "alice"), 100, 30)
    tmux.wait_for("a", MENU)
    assert tmux.wait_exit("a") == 1
    screen = tmux.screen("a")
    assert "No key pressed for 0.05 minutes" in screen
    assert MENU not in screen  # the full-screen interface is gone: the terminal is normal
    eventually(lambda: server.leftovers() == [], "the session's processes to end")


class Player:
    """Plays one ssh window by keys, as a person reading the screen would: on its turn
    the hint (i) and Enter; passes a Block window; takes the first of a choice."""

    def __init__(self, tmux: Tmux, window: str) -> None:
        self.tmux, self.window = tmux, window
        self.acted_on = ""
        self.acted_at = 0.0
        self.acted_turn = -1
        """The turn (as the header showed it) of the last move this player's keys made."""
        self.screen = ""

    def header(self) -> str:
        return self.screen.splitlines()[0] if self.screen else ""

    def turn(self) -> int:
        found = re.search(r"turn (\d+)", self.header())
        return int(found.group(1)) if found else 0

    def my_turn(self) -> bool:
        return "YOUR TURN" in self.header()

    def over(self) -> bool:
        return "Game over" in self.screen

    def hand(self) -> str:
        found = re.search(r"^\s*Hand (.*?)\s*$", self.screen, re.MULTILINE)
        # The cards, without the playable mark (•): that changes with the turn.
        return found.group(1).replace("•", " ") if found else ""

    def look(self) -> str:
        self.screen = self.tmux.screen(self.window)
        return self.screen

    def step(self) -> None:
        screen = self.look()
        if self.over():
            return
        now = time.monotonic()
        if "Number or ↑↓ and Enter" in screen:
            self.tmux.keys(self.window, "1")
        elif "b  Block" in screen and "p  Pass" in screen:
            self.tmux.keys(self.window, "p")
        elif self.my_turn() and (screen != self.acted_on or now - self.acted_at > 4):
            self.tmux.keys(self.window, "i")
            self.tmux.keys(self.window, "Enter")
            self.acted_on, self.acted_at, self.acted_turn = screen, now, self.turn()


def _play_until(players: list[Player], done: Callable[[], bool], what: str) -> None:
    def done_or_moved() -> bool:
        if done():
            return True
        for player in players:
            player.step()
        return False

    wait_until(done_or_moved, f"play to reach {what}", GAME_TIMEOUT / SCALE, interval=0.2,
               diagnostics=lambda: "the screens:\n" + "\n\n".join(p.screen for p in players))


def _at_the_table(
    server_args: tuple[str, ...], serve: ServerFactory, keys: Keys, tmux: Tmux,
    table: Table,
) -> tuple[Server, Player, Player]:
    server = serve(*server_args, "--broker", table.broker,
                   authorized=keys.public("alice") + keys.public("bob"))
    tmux.open("alice", server.ssh_argv(keys.path("alice"), "alice", "join", table.name), 100, 32)
    tmux.open("bob", server.ssh_argv(keys.path("bob"), "bob", "join", table.name), 100, 32)
    tmux.wait_for("alice", f"{table.name} · turn", GAME_TIMEOUT)
    tmux.wait_for("bob", f"{table.name} · turn", GAME_TIMEOUT)
    alice, bob = Player(tmux, "alice"), Player(tmux, "bob")
    assert "bob" in alice.look() and "alice" in bob.look()
    return server, alice, bob


def test_two_players_over_ssh_play_each_other_to_the_end(
    serve: ServerFactory, keys: Keys, tmux: Tmux, table_factory: Callable[..., Table]
) -> None:
    table = table_factory("duel", players=2)
    server, alice, bob = _at_the_table((), serve, keys, tmux, table)

    # A resize re-lays the table.
    tmux.resize("alice", 80, 30)
    eventually(lambda: _rule_width(tmux.screen("alice"), "Piles") == 80,
               "the table to fit 80 columns")

    _play_until([alice, bob], lambda: alice.over() and bob.over(), "the game's end")
    assert re.search(r"Game over — (You win!|alice wins|bob wins)", alice.screen)
    assert re.search(r"Game over — (You win!|alice wins|bob wins)", bob.screen)
    eventually(lambda: "verified" in alice.look() and "verified" in bob.look(),
               "both players' fair-deal check")

    for window in ("alice", "bob"):
        tmux.keys(window, "q")
        assert tmux.wait_exit(window) == 0
    eventually(lambda: server.sessions() == [] and server.leftovers() == [],
               "every session's processes to end")


def test_a_client_killed_mid_game_leaves_no_process_and_its_key_takes_the_seat_back(
    serve: ServerFactory, keys: Keys, tmux: Tmux, table_factory: Callable[..., Table]
) -> None:
    table = table_factory("drop", players=2)
    server, alice, bob = _at_the_table((), serve, keys, tmux, table)
    _play_until([alice, bob], lambda: alice.turn() >= 3 and alice.my_turn(), "turn 3")
    bob.look()
    hand = bob.hand()
    assert hand
    [bob_session] = [pid for pid in server.sessions() if "--name bob" in _cmdline(pid)]
    bob_tree = [bob_session, *descendants(bob_session)]
    assert set(bob_tree) <= set(server.leftovers())  # what the check below looks for

    os.kill(tmux.client_pid("bob"), signal.SIGKILL)  # mid-game, without a word
    eventually(lambda: not any(alive(pid) for pid in bob_tree), "bob's processes to end")
    assert len(server.sessions()) == 1
    assert not any(pid in bob_tree for pid in server.leftovers())

    # Bob comes back with the same key: the host knows him and gives him his seat.
    tmux.open("back", server.ssh_argv(keys.path("bob"), "bob", "join", table.name), 100, 32)
    back = Player(tmux, "back")
    eventually(lambda: back.look() and back.hand(), "bob at the table again", GAME_TIMEOUT)
    assert back.hand() == hand
    assert "alice" in back.screen
    # ... and plays on from it: alice's turn, then his own, then alice's again.
    turn = alice.turn()
    _play_until([alice, back], lambda: alice.turn() >= turn + 2, "bob to play his turn")


def _cmdline(pid: int) -> str:
    from pathlib import Path

    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""
