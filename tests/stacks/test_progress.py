"""The long commands' progress bar (stacks.progress): on a terminal's stderr only, and only
once the run has lasted a moment; never in a pipe, a file, or the --json object."""

from __future__ import annotations

import io
import json

import pytest

from stacks.cli import main
from stacks.progress import Bar


class Terminal(io.StringIO):
    """A stream that says it is a terminal."""

    def isatty(self) -> bool:
        return True


def test_a_terminal_gets_the_bar_with_its_count() -> None:
    out = Terminal()
    with Bar("playing", 4, stream=out, delay=0) as bar:
        assert bar.shown
        for _ in range(4):
            bar.advance()
        assert bar.progress is not None
        bar.progress.refresh()
        assert "playing" in out.getvalue()
        assert "4/4" in out.getvalue()


def test_a_pipe_or_a_file_gets_no_bar() -> None:
    out = io.StringIO()
    with Bar("playing", 4, stream=out, delay=0) as bar:
        bar.advance()
        assert not bar.shown
    assert out.getvalue() == ""


def test_a_short_run_shows_no_bar() -> None:
    out = Terminal()
    with Bar("playing", 4, stream=out, delay=3600) as bar:
        bar.advance(4)
    assert not bar.shown
    assert out.getvalue() == ""


def test_a_bar_without_a_total_shows_the_time() -> None:
    out = Terminal()
    with Bar("finishing", None, stream=out, delay=0) as bar:
        assert bar.progress is not None
        bar.progress.refresh()
        assert "finishing" in out.getvalue()


def test_tournament_json_holds_no_bar(capsys: pytest.CaptureFixture[str]) -> None:
    status = main(["tournament", "--games", "2", "--players", "2", "--bots", "medium",
                   "--json"])
    captured = capsys.readouterr()
    assert status == 0
    assert json.loads(captured.out)["games"] == 2
    assert "playing" not in captured.err
