"""A creator's `join TABLE` takes the held table's settings from the server's answer, and
an answer that is wrong in any field leaves that field as it was (never a crash)."""

from __future__ import annotations

from engine.config import RulesConfig
from tui.launch import Launch, as_held

SHORT = RulesConfig(win_chips=3, win_min_each_colour=1)


def test_the_tables_settings_replace_the_defaults_of_a_join() -> None:
    launch = as_held(Launch(role="join", table="duo"), {
        "players": 2, "bots": 0, "block_window": 2, "turn_clock": 30.0, "password": "pw",
        "game": "stacks", "rules": SHORT.to_wire(),
    })
    assert launch.held and (launch.players, launch.bots) == (2, 0)
    assert launch.block_window == 2.0 and launch.turn_clock == 30.0
    assert launch.password == "pw" and launch.rules == SHORT


def test_a_wrong_answer_keeps_the_launch_as_it_was() -> None:
    before = Launch(role="join", table="duo", password="pw")
    launch = as_held(before, {"players": "two", "bots": -1, "turn_clock": True,
                              "password": 7, "game": "poker", "rules": "x"})
    assert launch.held
    assert (launch.players, launch.bots, launch.turn_clock, launch.password, launch.rules) \
        == (before.players, before.bots, before.turn_clock, "pw", before.rules)


def test_the_host_key_the_server_names_is_followed_unless_the_user_pinned_one() -> None:
    from tui.session import _server_pin

    assert _server_pin(Launch(role="join", table="duo", host_pin="ab" * 16)) == "ab" * 16
    assert _server_pin(Launch(role="join", table="duo")) is None
    assert _server_pin(Launch(role="join", table="duo@cd12", host_pin="ab" * 16)) is None
