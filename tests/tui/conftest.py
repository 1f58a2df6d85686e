"""Fixtures for the interface tests: identities in a temporary folder, scaled timeouts."""

from __future__ import annotations

import asyncio
import html
import os
import re
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from textual.pilot import Pilot

#: One factor scales every timeout (raise it on a slow machine).
SCALE = float(os.environ.get("STACKS_TEST_TIMEOUT_SCALE", "1"))
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
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not condition():
        if loop.time() > deadline:
            raise AssertionError(f"timed out waiting for {what}; {shown(pilot)}")
        await pilot.pause(0.02)


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
