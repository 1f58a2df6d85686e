"""``stacks host --headless`` and a seat in plain mode (a screen reader): the host says so
and how to lengthen the Block window; ``--plain-window S`` does it when such a seat joins
before the deal."""

from __future__ import annotations

import asyncio

import pytest

from netplay.host import HostSession, HostSettings
from netplay.identity import Identity
from stacks.commands.host import _report_seats, plain_seat_words
from stacks.parser import build_parser
from tests.support import wait_until_async


def _join(host: HostSession, name: str, *, plain: bool) -> None:
    body = {"name": name, "entropy_commit": b"\x07" * 32, "watch": False, "at": None,
            "password": None, **({"plain": True} if plain else {})}
    host.lobby.join(Identity.generate().key, body)


@pytest.mark.asyncio
async def test_the_headless_host_says_a_plain_seat_joined_and_how_to_lengthen_the_window(
) -> None:
    host = HostSession(Identity.generate(), HostSettings("friday", 3), 0.0)
    said: list[str] = []
    reporter = asyncio.create_task(_report_seats(host, every=0.01, say=said.append))

    async def told(words: str) -> str:
        return await wait_until_async(lambda: next((line for line in said if words in line),
                                                   None),
                                      f"{words!r} said", 10, interval=0.01,
                                      diagnostics=lambda: f"what was said: {said!r}")

    try:
        await asyncio.sleep(0)  # the reporter takes its first look at the seats
        _join(host, "Bo", plain=False)
        await told("Bo joined (seat 1)")
        _join(host, "Cy", plain=True)
        line = await told("Cy (seat 2) plays in plain mode")
        assert "a 3 s Block window is over before the question is heard" in line
        assert "--plain-window 10" in line
        assert not any("Bo (seat 1) plays" in line for line in said)
    finally:
        reporter.cancel()


def test_plain_window_lengthens_the_window_when_a_plain_seat_joins_and_says_so() -> None:
    args = build_parser().parse_args(["host", "--headless", "--players", "3",
                                      "--plain-window", "12"])
    assert args.plain_window == 12.0
    host = HostSession(Identity.generate(), HostSettings("friday", 3,
                                                         plain_window=args.plain_window), 0.0)
    _join(host, "Bo", plain=False)
    assert host.settings.block_window == 3.0
    _join(host, "Cy", plain=True)
    assert host.settings.block_window == 12.0
    assert plain_seat_words("Cy", 1, host).endswith("the Block window is 12 s (--plain-window)")
    assert build_parser().parse_args(["host", "--headless"]).plain_window is None  # off


def test_plain_window_out_of_range_is_refused_in_words(capsys: pytest.CaptureFixture[str]
                                                       ) -> None:
    with pytest.raises(SystemExit):
        build_parser().parse_args(["host", "--headless", "--plain-window", "90"])
    assert "at most 60 seconds" in capsys.readouterr().err
