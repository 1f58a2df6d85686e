"""Fixtures for the interface tests: identities in a temporary folder, scaled timeouts."""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from textual.pilot import Pilot

from tests.support import SCALE, wait_until_async

TIMEOUT = 20.0 * SCALE


@pytest.fixture(autouse=True)
def stacks_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Profiles (and their keys) live in a temporary folder, never in the user's."""
    home = tmp_path / "stacks-home"
    monkeypatch.setenv("STACKS_HOME", str(home))
    yield home / "profiles"


async def until(pilot: Pilot[None], condition: Callable[[], bool], what: str,
                timeout: float = TIMEOUT) -> None:
    """Let the app run until ``condition()`` holds; fail with ``what`` after ``timeout``."""
    await wait_until_async(condition, what, timeout / SCALE, pause=pilot.pause,
                           diagnostics=lambda: shown(pilot))


def shown(pilot: Pilot[None]) -> str:
    """What the app shows (its screen and the text on it), for a failure's message."""
    app = pilot.app
    try:
        svg = app.export_screenshot()
    except Exception as exc:  # a failure's message must not fail itself
        return f"the screen is {type(app.screen).__name__} (no screenshot: {exc!r})"
    lines = re.findall(r"<text[^>]*>(.*?)</text>", svg)
    text = html.unescape("".join(lines)).replace("\xa0", " ")
    return f"the screen is {type(app.screen).__name__}, showing: {' '.join(text.split())}"
