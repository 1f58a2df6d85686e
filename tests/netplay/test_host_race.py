"""The Block race (``netplay.hosting.race``): a window opens whole, presses are listed with
their time and result, a press meant for an earlier window is stale, and a closed race is
told once its late presses are in."""

from __future__ import annotations

from typing import Any

from engine.actions import Block, PassBlock
from engine.games import AnyAction, TableGame
from netplay.hosting.journal import HostJournal
from netplay.hosting.race import BlockRace, Race
from netplay.hosting.state import Stage, TableState


class _Stream:
    def __init__(self) -> None:
        self.published: list[tuple[str, dict[str, Any]]] = []

    def publish(self, type_: str, body: dict[str, Any]) -> None:
        self.published.append((type_, body))


class _Table:
    """What a race needs of its table: a clock, the state, the public stream."""

    def __init__(self) -> None:
        self.now = 10.0
        self.game: TableGame | None = None
        self.state = TableState()
        self.state.started_game()
        self.stream = _Stream()
        self.journal = HostJournal()
        self.batch_count = 7
        self.stepped: list[AnyAction] = []

    def step(self, action: AnyAction, proof: bytes | None, key: bytes | None, *,
             standin: bool = False) -> bool:
        self.stepped.append(action)
        return True


def _race() -> tuple[_Table, BlockRace]:
    table = _Table()
    return table, BlockRace(table, 3.0, 0.25)  # type: ignore[arg-type]


def test_a_window_opens_whole_on_the_tables_clock_and_says_when_it_closes() -> None:
    table, race = _race()
    assert race.next_deadline(table.now) is None and not race.open
    race.reopen(4)
    assert race.open and table.state.stage is Stage.RACE
    current = race.current
    assert current is not None and (current.pile, current.opened_at) == (4, 7)
    assert race.next_deadline(table.now) == 13.0 and race.left(12.0) == 1.0


def test_presses_are_listed_with_their_offset_and_result() -> None:
    _table, race = _race()
    race.reopen(4)
    race.press(PassBlock(1), "passed", 10.5)
    assert race.refused(Block(2, 5), "no Block in hand", 11.0) == "no Block in hand"
    assert race.current is not None
    assert race.current.to_body()["presses"] == [[1, "pass", 500.0, "passed"],
                                                 [2, "block", 1000.0, "rejected"]]


def test_a_block_after_the_window_closed_is_late_and_told_who_blocked_first() -> None:
    _table, race = _race()
    race.reopen(4)
    assert race.current is not None
    race.current.closed, race.current.winner = 12.0, 0
    assert race.refused(Block(2, 5), "the window is closed", 12.1) == "seat 0 blocked first"
    assert race.current.presses[-1].result == "late"


def test_a_press_sent_before_the_window_opened_is_stale() -> None:
    _, race = _race()
    assert not race.stale(3)
    race.reopen(4)
    assert race.stale(6) and not race.stale(7)


def test_a_closed_race_is_told_once_its_settle_time_is_up() -> None:
    table, race = _race()
    race.reopen(4)
    assert race.current is not None
    race.current.closed = 13.0
    assert race.next_deadline(table.now) == 13.25
    race.tick(13.2)
    assert table.stream.published == [] and race.current is not None
    race.tick(13.25)
    assert table.stream.published == [("race", {"pile": 4, "winner": None, "presses": []})]
    assert race.current is None


def test_an_overdue_window_with_no_game_in_a_window_is_not_closed_by_the_race() -> None:
    table, race = _race()
    race.reopen(4)
    table.now = 20.0
    race.close_overdue()
    assert table.stepped == []


def test_a_journaled_race_reads_back_with_its_result() -> None:
    body = {"pile": 2, "winner": 1, "presses": [[1, "block", 12.5, "won"]]}
    back = Race.from_body(body)
    assert back.to_body() == body and back.closed is not None
