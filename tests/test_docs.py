"""The documents keep their shape: an operator's guide short enough to read, and every
measured figure in docs/benchmarks.md in a table that says what, how, where and when."""

from __future__ import annotations

import re
from pathlib import Path

DOCS = Path(__file__).resolve().parents[1] / "docs"
COLUMNS = ["what", "command", "machine", "date", "value"]
DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


def _cells(line: str) -> list[str]:
    return [cell.strip() for cell in re.split(r"(?<!\\)\|", line.strip())[1:-1]]


def _tables(text: str) -> list[tuple[int, list[list[str]]]]:
    """Every table of ``text``: its first line's number and its rows of cells."""
    tables: list[tuple[int, list[list[str]]]] = []
    rows: list[list[str]] = []
    for number, line in enumerate([*text.splitlines(), ""], start=1):
        if line.startswith("|"):
            if not rows:
                tables.append((number, rows))
            rows.append(_cells(line))
        elif rows:
            rows = []
    return tables


def test_the_operators_guide_stays_within_450_lines() -> None:
    # An operator reads it top to bottom: detail (a cluster, a service, the web) goes to a
    # page of its own that the guide links; measurements go to benchmarks.md.
    lines = (DOCS / "deploy.md").read_text(encoding="utf-8").count("\n")
    assert lines <= 450, f"docs/deploy.md has {lines} lines: detail goes to pages of its own"


def test_every_benchmark_table_says_what_command_machine_date_and_value() -> None:
    tables = _tables((DOCS / "benchmarks.md").read_text(encoding="utf-8"))
    assert len(tables) >= 10
    for start, (header, rule, *rows) in tables:
        assert [cell.lower() for cell in header] == COLUMNS, f"line {start}: {header}"
        assert all(set(cell) <= {"-", ":"} for cell in rule), f"line {start + 1}"
        assert rows, f"the table at line {start} has no figure"
        for offset, row in enumerate(rows, start=2):
            where = f"docs/benchmarks.md line {start + offset}"
            assert len(row) == len(COLUMNS), f"{where}: {len(row)} cells"
            assert all(row[i] for i in (0, 1, 2, 4)), f"{where}: an empty cell"
            assert DATE.fullmatch(row[3]), f"{where}: the date {row[3]!r} is not YYYY-MM-DD"


def test_benchmark_tables_put_the_newest_figure_first() -> None:
    for start, (_, _, *rows) in _tables((DOCS / "benchmarks.md").read_text(encoding="utf-8")):
        dates = [row[3] for row in rows]
        assert dates == sorted(dates, reverse=True), f"the table at line {start}: {dates}"
