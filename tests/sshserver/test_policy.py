"""What the ssh server decides without a connection: which commands run, under which
profile and name, with which environment; and that the rest of `stacks` never loads
asyncssh."""

from __future__ import annotations

import hashlib
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("asyncssh")

from sshserver.request import (
    Request,
    RequestError,
    parse_request,
    player_name,
    profile_for_key,
    session_argv,
    session_env,
)

ROOT = Path(__file__).resolve().parents[2]
STACKS = ("python", "-m", "stacks.cli")


@pytest.mark.parametrize(
    ("command", "request_"),
    [
        (None, Request("menu")),
        ("", Request("menu")),
        ("menu", Request("menu")),
        ("join friday", Request("join", "friday")),
        ("stacks join friday", Request("join", "friday")),
        ("join", Request("join")),
        ("join friday --password", Request("join", "friday", ask_password=True)),
        ("watch t-2", Request("watch", "t-2")),
        ("  watch   t-2 ", Request("watch", "t-2")),
    ],
)
def test_the_commands_a_player_may_give(command: str | None, request_: Request) -> None:
    assert parse_request(command) == request_


@pytest.mark.parametrize(
    ("command", "says"),
    [
        ("ls /", "'ls' is not something this server runs"),
        ("bash -c 'id'", "'bash' is not something this server runs"),
        ("play", "'play' is not something this server runs"),
        ("host --headless", "'host' is not something this server runs"),
        ("watch", "watch needs a table name"),
        ("join a b", "join takes a table name and nothing else"),
        ("join friday --broker mqtt://evil:1", "join takes a table name and nothing else"),
        ("watch friday --password", "watch takes a table name and nothing else"),
        ("join Friday!", "table name"),
        ("join 'unclosed", "can't read the command"),
    ],
)
def test_anything_else_is_refused_in_words(command: str, says: str) -> None:
    with pytest.raises(RequestError) as caught:
        parse_request(command)
    assert says in str(caught.value)


def test_the_profile_is_bound_to_the_key() -> None:
    blob = b"\x00\x00\x00\x0bssh-ed25519" + bytes(36)
    profile = profile_for_key(blob)
    assert profile == "ssh-" + hashlib.sha256(blob).hexdigest()[:16]
    assert profile_for_key(blob) == profile
    assert profile_for_key(blob[:-1] + b"\x01") != profile
    from netplay.names import is_profile_name

    assert is_profile_name(profile) and is_profile_name(profile + "-w-9")


@pytest.mark.parametrize(
    ("user", "name"),
    [
        ("alice", "alice"),
        ("  Bob  Smith ", "Bob Smith"),
        ("evil\x1b[2Jname", "evil[2Jname"),
        ("tab\there", "tabhere"),
        ("", "player"),
        ("\x07\x08", "player"),
        ("x" * 40, "x" * 24),
        ("Zoë", "Zoë"),
    ],
)
def test_the_user_name_becomes_a_clean_player_name(user: str, name: str) -> None:
    assert player_name(user) == name


def test_the_command_line_of_each_session() -> None:
    menu = session_argv(STACKS, Request("menu"), name="ann", profile="ssh-1", broker="mqtt://b:1")
    # The menu's join/watch (and host) meet on the server's broker too.
    assert menu == [*STACKS, "--profile", "ssh-1", "--name", "ann", "--broker", "mqtt://b:1"]
    join = session_argv(STACKS, Request("join", "t", ask_password=True), name="ann",
                        profile="ssh-1", broker="mqtt://b:1")
    assert join == [*STACKS, "join", "t", "--password", "--profile", "ssh-1", "--name", "ann",
                    "--broker", "mqtt://b:1"]
    watch = session_argv(STACKS, Request("watch", "t"), name="ann", profile="ssh-1-w",
                         broker=None)
    assert watch == [*STACKS, "watch", "t", "--profile", "ssh-1-w", "--name", "ann"]
    # Each parses as the `stacks` command line it is meant to be.
    from stacks.parser import build_parser

    for argv in (menu, join, watch):
        words = argv[len(STACKS):]
        args = build_parser(words[0] if not words[0].startswith("-") else None).parse_args(words)
        assert (getattr(args, "profile", None) or args.menu_profile).startswith("ssh-1")
        assert (getattr(args, "name", None) or args.menu_name) == "ann"


def test_the_environment_of_a_session() -> None:
    server = {"PATH": "/bin", "HOME": "/home/srv", "TMUX": "/tmp/tmux", "TERM": "screen",
              "SSH_AUTH_SOCK": "/tmp/agent", "COLUMNS": "80", "LANG": "C", "STACKS_HOME": "/s"}
    env = session_env(server, term="xterm-kitty",
                      client={"LANG": "de_DE.UTF-8", "LC_TIME": "C", "PATH": "/evil",
                              "LD_PRELOAD": "/evil.so", "COLORTERM": "truecolor"},
                      user="ann")
    assert env["TERM"] == "xterm-kitty"
    assert env["PATH"] == "/bin" and "LD_PRELOAD" not in env
    assert env["LANG"] == "de_DE.UTF-8" and env["LC_TIME"] == "C"
    assert env["COLORTERM"] == "truecolor"
    assert env["STACKS_HOME"] == "/s" and env["STACKS_SSH_USER"] == "ann"
    for gone in ("TMUX", "SSH_AUTH_SOCK", "COLUMNS"):
        assert gone not in env
    # Values that are not plain names are not passed on.
    odd = session_env(server, term="../../tmp/evil", client={"LANG": "x\ny", "LC_ALL": "$(id)"},
                      user="ann")
    assert odd["TERM"] == "xterm-256color" and odd["LANG"] == "C" and "LC_ALL" not in odd
    # Nor one that ends in a newline (a regex's ``$`` matches before it).
    newline = session_env(server, term="xterm\n", client={"LANG": "de_DE.UTF-8\n"},
                          user="ann")
    assert newline["TERM"] == "xterm-256color" and newline["LANG"] == "C"
    # No UTF-8 locale anywhere: the session gets one (the interface draws with it).
    plain = session_env(server, term=None, client={}, user="ann")
    assert plain["LC_CTYPE"] == "C.UTF-8" and plain["TERM"] == "xterm-256color"


def test_other_commands_never_load_asyncssh() -> None:
    code = (
        "import sys\n"
        "from stacks.cli import main\n"
        "main(['simulate', '--games', '1', '--players', '2', '--json'])\n"
        "print('asyncssh' in sys.modules, 'sshserver.server' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=ROOT, timeout=120, check=True)
    assert done.stdout.strip().splitlines()[-1] == "False False"
    shown = subprocess.run([sys.executable, "-m", "stacks.cli", "--help"], capture_output=True,
                           text=True, cwd=ROOT, timeout=60, check=True).stdout
    assert "serve" in shown


@pytest.mark.parametrize(("public", "port", "address", "shown"), [
    (None, 2222, ("127.0.0.1", 2222), "ssh -t -p 2222 NAME@127.0.0.1"),
    (None, 2222, ("::ffff:192.168.1.10", 2222, 0, 0), "ssh -t -p 2222 NAME@192.168.1.10"),
    ("game.example.org", 2222, ("10.0.0.5", 2222), "ssh -t -p 2222 NAME@game.example.org"),
    ("game.example.org", 22, ("10.0.0.5", 22), "ssh -t NAME@game.example.org"),
])
def test_the_join_line_names_the_address_the_player_reached_or_the_public_host(
    public: str | None, port: int, address: tuple[object, ...], shown: str
) -> None:
    from sshserver.server import GameServer, _Connection
    from sshserver.settings import ServeSettings

    server = GameServer(ServeSettings(port=port, public_host=public))

    class Conn:
        def get_extra_info(self, name: str) -> object:
            return address if name == "sockname" else None

    connection = _Connection(server)
    connection.conn = Conn()  # type: ignore[assignment]
    assert server.ssh_command(connection) == shown


def test_coming_back_to_a_held_table_names_the_player_in_the_ssh_line() -> None:
    from tui.control import _own

    assert _own("ssh -t -p 2222 NAME@game.example", "ana") == "ssh -t -p 2222 ana@game.example"
    assert _own("", "ana") == "ssh"
