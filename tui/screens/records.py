"""Recent game records (the menu's "Replay a game"): pick one, step through it."""

from __future__ import annotations

import time
from pathlib import Path

from textual.app import App
from textual.markup import escape

from tui.screens.choice import Answer, ChoiceScreen


def _label(path: Path) -> str:
    try:
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(path.stat().st_mtime))
    except OSError:
        when = "?"
    return f"{escape(path.stem)}  [dim]{when}[/]"


def pick_record(app: App[None], folder: Path | None = None) -> None:
    """Ask which recent record to replay (or say where records would be)."""
    from tui.commands.replay import records_folder
    from tui.replay import recent_records

    folder = folder or records_folder()
    records = recent_records(folder)
    if not records:
        app.notify(f"No game records yet in {folder}. A host writes one at the end of each "
                   "game; `stacks replay FILE` opens any other.", timeout=6)
        return

    def chosen(path: Path | None) -> None:
        if path is not None:
            open_replay(app, path)

    app.push_screen(ChoiceScreen("Replay which game? (newest first)",
                                 [Answer(_label(p), p) for p in records]), chosen)


def open_replay(app: App[None], path: Path) -> None:
    from tui.replay import ReplayError, replay_file
    from tui.screens.replay import ReplayScreen

    try:
        replay = replay_file(path)
    except ReplayError as exc:
        app.notify(f"Can't replay {path.name}: {exc}", severity="error", timeout=6)
        return
    app.push_screen(ReplayScreen(replay))
