"""The suite's waits and free ports (tests/support.py) do what the tests rely on."""

from __future__ import annotations

import socket

import pytest

from tests.support import free_port, free_ports, wait_until, wait_until_async


def test_wait_until_gives_the_first_true_value_it_is_given() -> None:
    asked = []

    def third_time() -> str | None:
        asked.append(1)
        return "there" if len(asked) == 3 else None

    assert wait_until(third_time, "the third ask", interval=0) == "there"
    assert len(asked) == 3


def test_a_wait_that_runs_out_says_what_it_waited_for_and_what_it_saw() -> None:
    with pytest.raises(AssertionError) as failed:
        wait_until(lambda: False, "the moon to turn blue", 0.05, interval=0.01,
                   diagnostics=lambda: "the moon: grey")
    assert "waiting for the moon to turn blue" in str(failed.value)
    assert "the moon: grey" in str(failed.value)


def test_a_failing_diagnostic_does_not_hide_the_failure() -> None:
    def broken() -> str:
        raise RuntimeError("no screen")

    with pytest.raises(AssertionError, match="waiting for a screen") as failed:
        wait_until(lambda: False, "a screen", 0.01, interval=0.01, diagnostics=broken)
    assert "no screen" in str(failed.value)


def test_a_condition_that_raises_ends_the_wait_at_once() -> None:
    def ended() -> bool:
        raise AssertionError("the program ended")

    with pytest.raises(AssertionError, match="the program ended"):
        wait_until(ended, "a prompt", 60)


@pytest.mark.asyncio
async def test_the_async_wait_takes_plain_and_coroutine_conditions() -> None:
    seen: list[int] = []

    async def counted() -> int:
        seen.append(1)
        return len(seen) if len(seen) >= 2 else 0

    assert await wait_until_async(counted, "two asks", interval=0) == 2
    assert await wait_until_async(lambda: "yes", "a plain value") == "yes"
    with pytest.raises(AssertionError, match="waiting for nothing at all"):
        await wait_until_async(lambda: None, "nothing at all", 0.02, interval=0.01)


def test_free_ports_are_different_and_free() -> None:
    ports = free_ports(5)
    assert len(set(ports)) == 5
    for port in [*ports, free_port()]:
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", port))
