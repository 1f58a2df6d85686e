"""Sessions forked from the fork server, end to end: the real OpenSSH client in tmux
against ``stacks serve`` running the real interface."""

from __future__ import annotations

import os
import signal

from tests.sshserver.conftest import (
    Keys,
    ServerFactory,
    Tmux,
    alive,
    children,
    cmdline,
    eventually,
)
from tests.sshserver.test_play import MENU

READY = "fork server ready"


def _parent(pid: int) -> int:
    from pathlib import Path

    text = Path(f"/proc/{pid}/stat").read_text()
    return int(text[text.rindex(")") + 2:].split()[1])


def test_two_sessions_are_forked_each_as_its_own_account(
    serve: ServerFactory, keys: Keys, tmux: Tmux
) -> None:
    server = serve(authorized=keys.public("alice") + keys.public("bob"))
    eventually(lambda: READY in server.output(), "the fork server to be ready")
    [forker] = server.fork_servers()
    for name in ("alice", "bob"):
        tmux.open(name, server.ssh_argv(keys.path(name), name), 100, 30)
    for name in ("alice", "bob"):
        tmux.wait_for(name, MENU)
    sessions = server.sessions()
    assert len(sessions) == 2
    assert all(_parent(pid) == forker for pid in sessions)  # forked, not spawned
    by_name = {name: next(pid for pid in sessions if f"--name {name}" in cmdline(pid))
               for name in ("alice", "bob")}
    profiles = {name: cmdline(pid).split("--profile ")[1].split()[0]
                for name, pid in by_name.items()}
    assert profiles["alice"] != profiles["bob"]
    for name in ("alice", "bob"):  # each program asks the server who it is, as its key
        tmux.keys(name, "a")
        tmux.wait_for(name, f"You play as {name}")
        tmux.keys(name, "Escape")
        tmux.wait_for(name, MENU)
    tmux.keys("alice", "q")
    assert tmux.wait_exit("alice") == 0
    eventually(lambda: not alive(by_name["alice"]), "alice's program to end")
    assert alive(by_name["bob"]) and alive(forker)


def test_a_dead_fork_server_is_replaced_and_its_sessions_play_on(
    serve: ServerFactory, keys: Keys, tmux: Tmux
) -> None:
    server = serve(authorized=keys.public("alice") + keys.public("bob"))
    eventually(lambda: READY in server.output(), "the fork server to be ready")
    [first] = server.fork_servers()
    tmux.open("alice", server.ssh_argv(keys.path("alice"), "alice"), 100, 30)
    tmux.wait_for("alice", MENU)
    [alice] = server.sessions()

    os.kill(first, signal.SIGKILL)
    eventually(lambda: "the fork server died" in server.output(), "the server to notice")
    eventually(lambda: server.output().count(READY) == 2, "a new fork server to be ready")
    [second] = server.fork_servers()
    assert second != first and first not in children(server.pid)

    # Alice's program outlived the fork server that made it; the next one comes from
    # the new fork server.
    tmux.keys("alice", "a")
    tmux.wait_for("alice", "You play as alice")
    tmux.open("bob", server.ssh_argv(keys.path("bob"), "bob"), 100, 30)
    tmux.wait_for("bob", MENU)
    [bob] = [pid for pid in server.sessions() if pid != alice]
    assert _parent(bob) == second

    # The server still sees alice's program end (through its pidfd) and hangs up.
    tmux.keys("alice", "Escape")
    tmux.wait_for("alice", MENU)
    tmux.keys("alice", "q")
    tmux.wait_exit("alice")
    eventually(lambda: "alice left" in server.output(), "alice's session to end")
    assert server.stop() == 0
    eventually(lambda: server.leftovers() == [], "every session's processes to end")
