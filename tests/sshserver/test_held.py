"""Tables held by the ssh server: opened from the ssh menu, hosted by `stacks serve` itself,
so the creator is one player among others and may drop and come back (real OpenSSH
clients in tmux, a broker of their own, all on 127.0.0.1)."""

from __future__ import annotations

import os
import re
import shlex
import signal
import time
from collections import Counter
from collections.abc import Callable

from tests.sshserver.conftest import (
    Keys,
    Server,
    ServerFactory,
    Tmux,
    alive,
    descendants,
    eventually,
)
from tests.sshserver.test_play import GAME_TIMEOUT, MENU, Player, _play_until

FORM = "Open a table on this server"


def _open_table(tmux: Tmux, window: str, name: str) -> str:
    """From the menu, open a 2-seat table through the host form; the lobby's screen."""
    tmux.wait_for(window, MENU)
    tmux.keys(window, "h")
    tmux.wait_for(window, FORM)
    tmux.keys(window, "-l", "Bad Name")
    tmux.wait_for(window, "Bad Name")  # Ctrl+O goes first, before keys still on their way
    tmux.keys(window, "C-o")
    screen = tmux.wait_for(window, "Can't open")
    assert "use 1-32" in screen and "lower-case letters, digits" in screen, screen
    assert FORM in screen  # still the form: nothing was opened
    tmux.keys(window, *["BSpace"] * 8)
    tmux.wait_for(window, "e.g. friday")  # the field is empty again
    tmux.keys(window, "-l", name)
    _shows(tmux, window, rf"Table name +{name} ")
    # Players: 4 -> 2 (the next field; Enter opens its list, Up twice, Enter).
    tmux.keys(window, "Tab", "Enter")
    tmux.wait_for(window, "▲")  # the list is open (keys sent before it opens go elsewhere)
    tmux.keys(window, "Up", "Up", "Enter")
    _shows(tmux, window, r"Players +2 ")
    tmux.keys(window, "C-o")
    return tmux.wait_for(window, "Others join with:")


def _shows(tmux: Tmux, window: str, pattern: str) -> str:
    """Wait until the window's screen matches ``pattern``; the screen."""
    shown = ""

    def there() -> bool:
        nonlocal shown
        shown = tmux.screen(window)
        return re.search(pattern, shown) is not None

    try:
        eventually(there, f"{pattern!r} in {window}")
    except AssertionError:
        raise AssertionError(f"{pattern!r} never showed in {window}:\n{shown}") from None
    return shown


def _join_command(screen: str) -> list[str]:
    found = re.search(r"Others join with:\s+(ssh .*? join \S+)", screen)
    assert found, screen
    return shlex.split(found.group(1))


def _as(server: Server, keys: Keys, user: str, command: list[str]) -> list[str]:
    """The join command a lobby shows, as ``user`` runs it with the test's ssh options."""
    assert command[:2] == ["ssh", "-t"] and command[2] == "-p", command
    port, host, *remote = command[3:]
    # The lobby shows NAME@HOST: each player puts their own name there.
    assert port == str(server.port) and host == "NAME@127.0.0.1", command
    return server.ssh_argv(keys.path(user), user, *remote)


def _play_to(players: list[Player], done: Callable[[], bool], what: str) -> None:
    """Play until ``done()``, judged on fresh screens before every move (so that the
    game is still at that point when this returns: nobody has moved since)."""
    deadline = time.monotonic() + GAME_TIMEOUT
    while True:
        for player in players:
            for everyone in players:
                everyone.look()
            if done():
                return
            if time.monotonic() > deadline:
                shown = "\n\n".join(p.screen for p in players)
                raise AssertionError(f"timed out playing until {what}; the screens:\n{shown}")
            player.step()
        time.sleep(0.2)


STEAL = "from alice's hand"


def _bobs_turn(alice: Player, bob: Player) -> bool:
    """Bob's turn, after alice's second at least, as both screens show it (each shows a
    batch once its own copy has come in), and bob has not moved in it yet: keys he sent
    in it may not show on the screens yet (under load they once showed only after the
    hands were read, and the server stopped with one card fewer than they held)."""
    return (bob.my_turn() and not alice.my_turn() and alice.turn() >= 2
            and alice.turn() == bob.turn() and bob.acted_turn != bob.turn())


def _hand(player: Player) -> Counter[str]:
    """The cards of the hand line (each its key, its playable mark and its label, two
    spaces between cards), without the keys and cues around them (which change with
    whose turn it is). A label may be two words ("Steal chip"): one card."""
    return Counter(_card_labels(player.hand()))


def _card_labels(line: str) -> list[str]:
    labels = []
    for chunk in re.split(r"\s{2,}", line.strip()):
        label = re.sub(r"^\W*\d+\s*", "", chunk)  # its key (and a selection's ▸)
        label = re.sub(r"[^A-Za-z0-9 ]", "", label).strip()
        if label:
            labels.append(label)
    return labels


def test_a_hand_line_reads_as_its_cards() -> None:
    assert _card_labels("1 B4  2 R1  3 Steal chip  ▸4 R2◂") == \
        ["B4", "R1", "Steal chip", "R2"]


def test_a_table_opened_over_ssh_is_held_by_the_server_and_its_creator_comes_back(
    serve: ServerFactory, keys: Keys, tmux: Tmux, broker: str
) -> None:
    server = serve("--broker", broker, authorized=keys.public("alice") + keys.public("bob"))
    tmux.open("alice", server.ssh_argv(keys.path("alice"), "alice"), 100, 32)
    lobby = _open_table(tmux, "alice", "duel")
    tmux.wait_for("alice", "The server holds this table")
    tmux.wait_for("alice", "1. ● alice (you)")
    join = _join_command(lobby)
    assert join[-2:] == ["join", "duel"]
    eventually(lambda: "alice opened table duel (2 seats)" in server.output(),
               "the server to say it holds the table")

    # Bob joins with exactly what alice's lobby shows.
    tmux.open("bob", _as(server, keys, "bob", join), 100, 32)
    tmux.wait_for("alice", "duel · turn", GAME_TIMEOUT)
    tmux.wait_for("bob", "duel · turn", GAME_TIMEOUT)
    alice, bob = Player(tmux, "alice"), Player(tmux, "bob")

    # Play until it is bob's turn after alice has played at least once.
    _play_to([alice, bob], lambda: _bobs_turn(alice, bob), "bob's turn 2+")
    hand = _hand(alice)
    assert hand
    steals = bob.screen.count(STEAL)
    [alice_session] = [pid for pid in server.sessions() if "--name alice" in _cmdline(pid)]
    alice_tree = [alice_session, *descendants(alice_session)]

    # The creator's client dies without a word: her program and everything it ran go ...
    os.kill(tmux.client_pid("alice"), signal.SIGKILL)
    eventually(lambda: not any(alive(pid) for pid in alice_tree), "alice's processes to end")
    # ... and the table is still there: bob plays his turn, and it comes to alice's seat.
    turn = bob.turn()
    _play_until([bob], lambda: bob.turn() > turn and not bob.my_turn(), "bob to play on")
    assert "Game over" not in bob.screen and "closed the table" not in bob.screen
    # The one way her hand changes meanwhile: bob takes a card from it. His screen may
    # still show a steal from before her hand was read, and its log may have scrolled one
    # off: one more steal on it is surely new, one at all may be.
    stole, surely = STEAL in bob.screen, bob.screen.count(STEAL) > steals

    # She comes back with the same key, with the command her lobby showed to others.
    tmux.open("back", _as(server, keys, "alice", join), 100, 32)
    back = Player(tmux, "back")
    eventually(lambda: back.look() and back.hand(), "alice at the table again", GAME_TIMEOUT)
    again = _hand(back)
    if surely:
        assert again != hand, f"bob took a card, but alice's hand is the same: {hand}"
    if again != hand:  # the same hand but the one card bob took
        assert stole, f"alice's hand changed while she was away: {hand} -> {again}"
        assert not again - hand and (hand - again).total() == 1, (hand, again)
    assert "bob" in back.screen
    # The same seat: it is her turn (bob's ended), and she and bob play on.
    turn = bob.turn()
    _play_until([back, bob], lambda: bob.turn() >= turn + 2 or back.over(), "two more turns")


def _cmdline(pid: int) -> str:
    from pathlib import Path

    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def test_the_table_stays_when_its_creator_quits_the_lobby_and_another_player_joins_it(
    serve: ServerFactory, keys: Keys, tmux: Tmux, broker: str
) -> None:
    server = serve("--broker", broker, authorized=keys.public("alice") + keys.public("bob"))
    tmux.open("alice", server.ssh_argv(keys.path("alice"), "alice"), 100, 32)
    join = _join_command(_open_table(tmux, "alice", "later"))
    tmux.wait_for("alice", "1. ● alice (you)")
    tmux.keys("alice", "C-q")  # quits the program, as a closed terminal would
    assert tmux.wait_exit("alice") == 0
    eventually(lambda: server.sessions() == [], "alice's program to end")
    tmux.open("bob", _as(server, keys, "bob", join), 100, 32)
    tmux.wait_for("bob", "(you)")
    # The table outlived its creator's program. An absent player can't reveal her entropy:
    # once the reveal round has waited for her, her seat is dealt without her (its entropy
    # fixed by the host's commitment) and a stand-in keeps it ...
    screen = tmux.wait_for("bob", "later · turn", GAME_TIMEOUT)
    assert "alice" in screen
    # ... until she comes back with the join line and sits at her seat with its hand.
    tmux.open("back", _as(server, keys, "alice", join), 100, 32)
    back = Player(tmux, "back")
    eventually(lambda: back.look() and back.hand(), "alice at the table again", GAME_TIMEOUT)
    assert "later · turn" in back.screen and "bob" in back.screen
    assert "table later closed" not in server.output()


def test_a_restarted_server_resumes_its_table_and_the_players_take_their_seats_back(
    serve: ServerFactory, keys: Keys, tmux: Tmux, broker: str
) -> None:
    authorized = keys.public("alice") + keys.public("bob")
    server = serve("--broker", broker, authorized=authorized)
    tmux.open("alice", server.ssh_argv(keys.path("alice"), "alice"), 100, 32)
    join = _join_command(_open_table(tmux, "alice", "duel"))
    tmux.open("bob", _as(server, keys, "bob", join), 100, 32)
    tmux.wait_for("alice", "duel · turn", GAME_TIMEOUT)
    alice, bob = Player(tmux, "alice"), Player(tmux, "bob")
    _play_to([alice, bob], lambda: _bobs_turn(alice, bob), "bob's turn 2+")
    hands = (_hand(alice), _hand(bob))
    turn = bob.turn()

    assert server.stop() == 0  # the server stops mid-game; every player is hung up
    for window in ("alice", "bob"):
        assert "The server is stopping" in tmux.wait_for(window, "goodbye")

    again = serve("--broker", broker, home=server.home, authorized=authorized)
    eventually(lambda: "resumed table duel at batch" in again.output(),
               "the new server to resume the table")
    port = str(again.port)
    rejoin = [port if word == str(server.port) else word for word in join]
    tmux.open("alice2", _as(again, keys, "alice", rejoin), 100, 32)
    tmux.open("bob2", _as(again, keys, "bob", rejoin), 100, 32)
    alice, bob = Player(tmux, "alice2"), Player(tmux, "bob2")
    eventually(lambda: alice.look() and alice.hand() and bob.look() and bob.hand(),
               "both players at their seats again", GAME_TIMEOUT)
    assert (_hand(alice), _hand(bob)) == hands  # nobody played while the server was down
    assert bob.turn() == turn and bob.my_turn()
    _play_until([alice, bob], lambda: alice.turn() >= turn + 2 or alice.over(), "play on")


def test_a_player_back_over_ssh_is_offered_its_seat_and_told_what_it_missed(
    serve: ServerFactory, keys: Keys, tmux: Tmux, broker: str
) -> None:
    """Reconnecting over ssh to a running game: the menu offers the seat first thing, Enter
    sits down, and the log sums up the time away in a sentence (it does not retell the
    whole game)."""
    server = serve("--broker", broker, authorized=keys.public("alice") + keys.public("bob"))
    tmux.open("alice", server.ssh_argv(keys.path("alice"), "alice"), 100, 32)
    join = _join_command(_open_table(tmux, "alice", "duo"))
    tmux.open("bob", _as(server, keys, "bob", join), 100, 32)
    tmux.wait_for("alice", "duo · turn", GAME_TIMEOUT)
    alice, bob = Player(tmux, "alice"), Player(tmux, "bob")
    _play_to([alice, bob], lambda: _bobs_turn(alice, bob), "bob's turn 2+")
    [alice_session] = [pid for pid in server.sessions() if "--name alice" in _cmdline(pid)]
    alice_tree = [alice_session, *descendants(alice_session)]
    os.kill(tmux.client_pid("alice"), signal.SIGKILL)  # her connection drops
    eventually(lambda: not any(alive(pid) for pid in alice_tree), "alice's processes to end")
    turn = bob.turn()
    _play_until([bob], lambda: bob.turn() > turn and not bob.my_turn(), "bob to play on")

    # She comes back the plain way, to the menu: her seat is the first thing offered.
    tmux.open("back", server.ssh_argv(keys.path("alice"), "alice"), 100, 32)
    tmux.wait_for("back", MENU)
    tmux.wait_for("back", "Your seat at duo is waiting — Enter to sit down", GAME_TIMEOUT)
    tmux.keys("back", "Enter")
    back = Player(tmux, "back")
    eventually(lambda: back.look() and back.hand(), "alice at her seat again", GAME_TIMEOUT)
    assert "duo · turn" in back.screen and "bob" in back.screen
    screen = tmux.wait_for("back", "While you were away: ", GAME_TIMEOUT)
    assert "from batch" not in screen and "⟲" not in screen, screen


def test_the_server_log_names_the_table_a_player_from_the_menu_sat_at(
    serve: ServerFactory, keys: Keys, tmux: Tmux, broker: str
) -> None:
    """The log never says "ana left (menu)" of a player who had sat at a table."""
    server = serve("--broker", broker, authorized=keys.public("alice"))
    tmux.open("alice", server.ssh_argv(keys.path("alice"), "alice"), 80, 24)
    _open_table(tmux, "alice", "duel")
    tmux.wait_for("alice", "1. ● alice (you)")
    tmux.keys("alice", "Escape")  # back to the menu: the server keeps the table
    tmux.wait_for("alice", MENU)
    tmux.keys("alice", "C-q")
    assert tmux.wait_exit("alice") == 0
    eventually(lambda: "alice left (" in server.output(), "the server to log alice's leaving")
    [line] = [line for line in server.output().splitlines() if "alice left (" in line]
    assert line.endswith("alice left (menu; was at table duel)"), line
