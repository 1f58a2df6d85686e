"""The server's plumbing with a stand-in program (tests/sshserver/standin.py) in place of the
interface: what each session is given, its terminal, hang-ups, refusals."""

from __future__ import annotations

import hashlib
import os
import re
import stat
import subprocess
from pathlib import Path

from tests.sshserver.conftest import (
    TIMEOUT,
    Keys,
    ServerFactory,
    Tmux,
    alive,
    eventually,
)


def _blob(public_line: str) -> bytes:
    import base64

    return base64.b64decode(public_line.split()[1])


def test_a_session_gets_its_own_program_in_a_pty_with_the_client_terminal(
    serve: ServerFactory, keys: Keys, tmux: Tmux
) -> None:
    server = serve(authorized=keys.public("alice"), standin=True)
    tmux.open("a", server.ssh_argv(keys.path("alice"), "alice"), 90, 25)
    screen = tmux.wait_for("a", "READY")
    profile = "ssh-" + hashlib.sha256(_blob(keys.public("alice"))).hexdigest()[:16]
    assert f"ARGV=--profile {profile} --name alice" in screen
    assert "TERM=xterm-256color" in screen  # tmux's, through the client's pty request
    assert "CTTY=yes" in screen
    assert "SIZE=90x25" in screen
    [pid] = server.sessions()

    # Window changes reach the program as SIGWINCH with the new size.
    tmux.resize("a", 70, 20)
    tmux.wait_for("a", "RESIZED SIZE=70x20")

    # Keys arrive as typed; the program's exit status is the client's.
    tmux.keys("a", "k")
    tmux.wait_for("a", "key: b'k'")
    tmux.keys("a", "x")
    assert tmux.wait_exit("a") == 3
    eventually(lambda: not alive(pid), "the session's program to be reaped")
    assert server.sessions() == []


def test_join_and_watch_go_to_the_table_with_the_server_broker(
    serve: ServerFactory, keys: Keys, tmux: Tmux
) -> None:
    server = serve("--broker", "mqtt://127.0.0.1:1", authorized=keys.public("bob"), standin=True)
    tmux.open("j", server.ssh_argv(keys.path("bob"), "bob", "join", "friday"))
    screen = tmux.wait_for("j", "READY")
    assert re.search(r"ARGV=join friday --profile ssh-[0-9a-f]{16} --name bob "
                     r"--broker mqtt://127.0.0.1:1", screen), screen
    tmux.open("w", server.ssh_argv(keys.path("bob"), "bob", "stacks", "watch", "friday"))
    screen = tmux.wait_for("w", "READY")
    # A spectator has an identity of its own: it never holds the seat's profile.
    assert re.search(r"ARGV=watch friday --profile ssh-[0-9a-f]{16}-w --name bob", screen)
    # The join session is still there (watching with the same key takes nothing over).
    assert "READY" in tmux.screen("j") and tmux.exit_status("j") is None
    tmux.keys("j", "q")
    tmux.keys("w", "q")
    assert tmux.wait_exit("j") == 0 and tmux.wait_exit("w") == 0


def test_other_commands_and_no_terminal_get_a_clear_message(
    serve: ServerFactory, keys: Keys
) -> None:
    server = serve(authorized=keys.public("alice"), standin=True)
    key = keys.path("alice")

    def ssh(*remote: str, tty: bool) -> subprocess.CompletedProcess[str]:
        argv = server.ssh_argv(key, "alice", *remote, tty=tty)
        if tty:
            argv.insert(1, "-t")  # -tt: a pty even without a local terminal
        return subprocess.run(argv, capture_output=True, text=True, timeout=TIMEOUT,
                              stdin=subprocess.DEVNULL)

    for remote in ((), ("join", "friday")):
        done = ssh(*remote, tty=False)
        assert done.returncode == 1, done
        assert "interactive game" in done.stderr and "ssh -t" in done.stderr, done.stderr
    done = ssh("ls", "/", tty=True)
    assert done.returncode == 2
    assert "'ls' is not something this server runs" in done.stdout
    assert "join TABLE" in done.stdout
    done = ssh("watch", tty=True)
    assert done.returncode == 2 and "watch needs a table name" in done.stdout
    done = ssh("join", "Bad Name!", tty=True)
    assert done.returncode == 2 and "table name" in done.stdout
    assert server.sessions() == []


def test_keys_not_authorized_and_passwords_are_refused(
    serve: ServerFactory, keys: Keys, tmux: Tmux
) -> None:
    server = serve(authorized=keys.public("alice"), standin=True)
    done = subprocess.run(server.ssh_argv(keys.path("mallory"), "alice"), capture_output=True,
                          text=True, timeout=TIMEOUT, stdin=subprocess.DEVNULL)
    assert done.returncode == 255
    assert "Permission denied (publickey)" in done.stderr
    # Only public keys are offered: no password, no keyboard-interactive.
    argv = server.ssh_argv(keys.path("mallory"), "alice")
    argv[1:1] = ["-o", "PreferredAuthentications=password,keyboard-interactive"]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=TIMEOUT,
                          stdin=subprocess.DEVNULL)
    assert done.returncode == 255 and "(publickey)" in done.stderr
    assert "refused key" in server.output()

    # A key added to the file while the server runs is let in.
    (server.home / "authorized_keys").write_text(keys.public("alice") + keys.public("mallory"))
    tmux.open("m", server.ssh_argv(keys.path("mallory"), "mallory"))
    tmux.wait_for("m", "USER=mallory")


def test_open_lets_any_key_in_and_the_host_key_is_kept(
    serve: ServerFactory, keys: Keys, tmux: Tmux
) -> None:
    server = serve("--open", standin=True)
    tmux.open("m", server.ssh_argv(keys.path("mallory"), "mallory"))
    tmux.wait_for("m", "USER=mallory")
    host_key = server.home / "ssh_host_ed25519_key"
    assert stat.S_IMODE(host_key.stat().st_mode) == 0o600
    first = host_key.read_bytes()
    tmux.keys("m", "q")
    assert tmux.wait_exit("m") == 0
    assert server.stop() == 0
    again = serve("--open", standin=True)
    assert host_key.read_bytes() == first
    fingerprint = subprocess.run(["ssh-keygen", "-lf", str(host_key) + ".pub"],
                                 capture_output=True, text=True, check=True).stdout.split()[1]
    assert fingerprint in again.output()


def test_without_authorized_keys_the_server_says_what_to_do(
    serve: ServerFactory, tmp_path: Path
) -> None:
    import sys

    done = subprocess.run(
        [sys.executable, "-m", "stacks.cli", "serve", "--bind", "127.0.0.1", "--ssh-port", "0"],
        capture_output=True, text=True, timeout=TIMEOUT,
        env={**os.environ, "STACKS_HOME": str(tmp_path / "empty-home")},
        cwd=Path(__file__).resolve().parents[2],
    )
    assert done.returncode == 2
    assert "no authorized keys file" in done.stderr
    assert "--open" in done.stderr and "--authorized-keys" in done.stderr


def test_a_client_that_vanishes_has_its_program_hung_up_or_killed(
    serve: ServerFactory, keys: Keys, tmux: Tmux, tmp_path: Path
) -> None:
    pids = tmp_path / "pids"
    pids.mkdir()
    # This program ignores SIGHUP: only the SIGKILL after the grace period ends it.
    server = serve("--session-command", f"{_standin()} --ignore-hup",
                   authorized=keys.public("alice"), env={"STANDIN_PIDS": str(pids)})
    tmux.open("a", server.ssh_argv(keys.path("alice"), "alice"))
    tmux.wait_for("a", "READY")
    [pid] = [int(p.name) for p in pids.iterdir()]
    assert server.sessions() == [pid]
    os.kill(tmux.client_pid("a"), 9)  # the client dies without a word
    eventually(lambda: not alive(pid), "the hung program to be killed")
    assert server.sessions() == []
    assert server.leftovers() == []


def test_idle_sessions_are_hung_up_with_a_message(
    serve: ServerFactory, keys: Keys, tmux: Tmux
) -> None:
    server = serve("--idle-timeout", "0.05", authorized=keys.public("alice"), standin=True)
    tmux.open("a", server.ssh_argv(keys.path("alice"), "alice"))
    tmux.wait_for("a", "READY")
    [pid] = server.sessions()
    assert tmux.wait_exit("a") == 1
    assert "No key pressed for 0.05 minutes" in tmux.screen("a")
    eventually(lambda: not alive(pid), "the idle program to end")


def test_the_idle_clock_starts_when_the_program_first_draws(
    serve: ServerFactory, keys: Keys, tmux: Tmux
) -> None:
    """A program slow to draw (a loaded server) does not cost the player the session:
    nobody can press a key at a screen that is not there yet."""
    server = serve("--idle-timeout", "0.05", "--session-command",
                   f"{_standin()} --quiet-for 4", authorized=keys.public("alice"))
    tmux.open("a", server.ssh_argv(keys.path("alice"), "alice"))
    # Silent for 4 s, past the 3 s timeout counted from the connection: still there.
    tmux.wait_for("a", "READY")
    assert tmux.wait_exit("a") == 1
    assert "No key pressed for 0.05 minutes" in tmux.screen("a")


def test_the_same_key_again_takes_over_and_a_stop_hangs_up_everyone(
    serve: ServerFactory, keys: Keys, tmux: Tmux
) -> None:
    server = serve(authorized=keys.public("alice") + keys.public("bob"), standin=True)
    tmux.open("first", server.ssh_argv(keys.path("alice"), "alice"))
    tmux.wait_for("first", "READY")
    tmux.open("again", server.ssh_argv(keys.path("alice"), "alice", "join", "t1"))
    tmux.wait_for("again", "READY")
    assert tmux.wait_exit("first") == 1
    assert "connected again from elsewhere" in tmux.screen("first")
    tmux.open("bob", server.ssh_argv(keys.path("bob"), "bob"))
    tmux.wait_for("bob", "READY")
    sessions = server.sessions()
    assert len(sessions) == 2
    assert server.stop() == 0
    for name in ("again", "bob"):
        assert tmux.wait_exit(name) == 1
        assert "The server is stopping" in tmux.screen(name)
    assert not any(alive(pid) for pid in sessions)


def _standin() -> str:
    import sys

    from tests.sshserver.conftest import STANDIN

    return f"{sys.executable} {STANDIN}"
