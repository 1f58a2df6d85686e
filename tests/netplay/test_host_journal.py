"""The host's side of its journal (``netplay.hosting.journal``): entries wait, in order,
for the driver to write them; what went to the players carries its wall time."""

from __future__ import annotations

import math

import pytest

from netplay.hosting.journal import HostJournal, WentOut, wall_time_of


def test_entries_wait_in_order_until_the_driver_drains_them_once() -> None:
    journal = HostJournal()
    journal.append({"t": "seat", "seat": 0})
    journal.append({"t": "start"})
    assert [e["t"] for e in journal.drain()] == ["seat", "start"]
    assert journal.drain() == [] and journal.pending == []


def test_the_driver_hears_of_each_entry_as_it_is_added() -> None:
    journal = HostJournal()
    heard: list[int] = []
    journal.on_entry = lambda: heard.append(len(journal.pending))
    journal.append({"t": "a"})
    journal.append({"t": "b"})
    assert heard == [1, 2]


def test_an_entry_carries_the_wall_time_it_went_out_only_when_the_driver_set_the_clock() -> None:
    journal = HostJournal()
    journal.append_with_wall_time({"t": "batch", "n": 1}, 10.0)
    assert "at" not in journal.pending[-1]
    journal.wall_offset = 1_700_000_000.0
    journal.append_with_wall_time({"t": "batch", "n": 2}, 10.12345)
    assert journal.pending[-1]["at"] == 1_700_000_010.123


@pytest.mark.parametrize("at", [None, True, "10", math.nan, math.inf])
def test_a_wall_time_that_is_no_finite_number_is_no_wall_time(at: object) -> None:
    assert wall_time_of({"t": "batch", "at": at}) is None


def test_a_resumed_host_notes_what_went_out_and_when() -> None:
    journal = HostJournal()
    journal.read_went_out({"t": "batch", "n": 3, "at": 5.5})
    journal.read_went_out({"t": "race", "race": {"pile": 1}})
    assert journal.went_out == [WentOut("batch", 3, 5.5), WentOut("race", {"pile": 1}, None)]
