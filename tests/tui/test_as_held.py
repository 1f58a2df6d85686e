"""A creator's `join TABLE` takes the held table's settings from the server's answer, and
an answer that is wrong in any field leaves that field as it was (never a crash)."""

from __future__ import annotations

import pytest

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


class _Link:
    """The ssh server's side of `tui.serve_link` for ``info``: its answer, and what was asked."""

    def __init__(self, reply: dict[str, object]) -> None:
        self.reply = reply
        self.asked: list[tuple[str, dict[str, object]]] = []

    async def request(self, kind: str, **fields: object) -> dict[str, object]:
        self.asked.append((kind, fields))
        return self.reply


class _App:
    def __init__(self, link: _Link) -> None:
        self.link = link


def _control(link: _Link) -> object:
    from tui.control import Control

    return Control(_App(link), profiles=None, frozen=False)  # type: ignore[arg-type]


@pytest.mark.asyncio
async def test_a_spectator_follows_the_key_the_server_names_but_takes_no_controls() -> None:
    """`watch TABLE` over ssh follows the held table's host at once (a spectator coming
    back after its node drained is not kept a second listening for rogues), yet never
    becomes the table's creator."""
    from netplay.identity import Identity

    host = Identity.generate()
    link = _Link({"held": True, "host": host.peer_id, "creator": True,
                  "settings": {"players": 2}})
    control = _control(link)
    watch = await control._ours(Launch(role="watch", table="duo"))  # type: ignore[attr-defined]
    assert link.asked == [("info", {"table": "duo"})]
    assert watch.host_pin == host.peer_id and watch.role == "watch" and not watch.held
    join = await control._ours(Launch(role="join", table="duo"))  # type: ignore[attr-defined]
    assert join.host_pin == host.peer_id and join.held  # a creator's join: its controls
    # The next game's session skips the ended game's host: its key is not pinned.
    again = await control._ours(  # type: ignore[attr-defined]
        Launch(role="watch", table="duo"), host.key)
    assert again.host_pin is None
