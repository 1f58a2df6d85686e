"""`stacks acl`: the shipped Mosquitto ACL plus one section per host, each host confined
to its own tables (tests/broker/test_mosquitto_acl.py puts it in front of a real broker)."""

from __future__ import annotations

import pytest

from broker.acl import host_section, parse_grant, render_acl
from broker.mosquitto_runner import shipped
from stacks.cli import main

ONE = "00112233445566778899aabbccddeeff"
TWO = "fedcba9876543210fedcba9876543210"


def test_each_host_gets_its_own_tables_and_nothing_else() -> None:
    acl = render_acl([(ONE, ["friday", "saturday"]), (TWO, ["league"])])
    assert acl.startswith(shipped("acl").rstrip("\n"))
    one, two = acl.split(f"\nuser {ONE}\n")[1].split(f"\nuser {TWO}\n")
    assert "sstacks/v1/friday/announce" in one and "sstacks/v1/saturday/peer/+/in" in one
    assert "league" not in one
    assert two.splitlines() == [
        "topic readwrite sstacks/v1/league/announce",
        "topic write sstacks/v1/league/events",
        "topic write sstacks/v1/league/table",
        "topic write sstacks/v1/league/peer/+/in",
        "topic read sstacks/v1/league/peer/+/out",
    ]
    # No host line matches every table: each right names its table.
    assert not any("/+/announce" in line or "/#" in line
                   for line in (one + two).splitlines())


@pytest.mark.parametrize(("grants", "words"), [
    ([(ONE, ["friday"]), (TWO, ["friday"])], "given to two hosts"),
    ([("not-a-peer-id", ["friday"])], "is not a peer id"),
    ([(ONE, ["Friday/#"])], "table name"),
    ([(ONE, [])], "has no table"),
])
def test_what_the_acl_refuses(grants: list[tuple[str, list[str]]], words: str) -> None:
    with pytest.raises(ValueError, match=words):
        render_acl(grants)


def test_the_command_prints_the_acl_or_says_what_is_wrong(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert parse_grant(f" {ONE.upper()}:friday, saturday ") == (ONE, ["friday", "saturday"])
    assert main(["acl", f"{ONE}:friday"]) == 0
    assert capsys.readouterr().out.endswith(host_section(ONE, ["friday"]))
    assert main(["acl", f"{ONE}:friday", f"{TWO}:friday"]) != 0
    assert "two hosts" in capsys.readouterr().err
