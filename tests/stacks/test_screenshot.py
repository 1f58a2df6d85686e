"""The README's picture of the table (docs/table.svg) is what the interface shows today."""

from __future__ import annotations

import asyncio
import html
import re
from pathlib import Path

from stacks.screenshot import SIZE, table_svg

ROOT = Path(__file__).resolve().parents[2]
PICTURE = ROOT / "docs" / "table.svg"
COMMAND = "python -m stacks.screenshot docs/table.svg"


def _text(svg: str) -> str:
    lines = re.findall(r"<text[^>]*>(.*?)</text>", svg)
    return html.unescape(" ".join(lines)).replace("\xa0", " ")


def test_the_committed_picture_of_the_table_is_the_one_the_interface_draws_now() -> None:
    fresh = asyncio.run(table_svg())
    committed = PICTURE.read_text(encoding="utf-8")
    assert fresh == committed, (
        f"docs/table.svg is not what the table screen shows now: run `{COMMAND}` "
        "and commit the result")


def test_the_picture_is_the_same_every_time_it_is_made() -> None:
    # no clock, no random ids: two runs in one process give the same bytes
    assert asyncio.run(table_svg()) == asyncio.run(table_svg())


def test_the_picture_shows_the_seats_the_piles_the_hand_and_the_log_at_100x30() -> None:
    svg = PICTURE.read_text(encoding="utf-8")
    text = _text(svg)
    for part in ("Opponents", "Piles", "You", "Log", "Hand", "Draw pile", "YOUR TURN"):
        assert part in text, f"the picture lacks {part!r}"
    for name in ("Bo", "Cy", "Di"):
        assert name in text
    rows = {y for y in re.findall(r'<text[^>]*\by="([\d.]+)"', svg)}
    assert SIZE == (100, 30)
    assert len(rows) == SIZE[1] + 1  # the terminal's rows and the window's title


def test_the_readme_shows_the_picture_and_says_how_to_make_it() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "](docs/table.svg)" in readme
    assert COMMAND in readme
