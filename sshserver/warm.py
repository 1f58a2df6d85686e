"""Warming the fork server (`sshserver.zygote`): the main menu, shown once, headless.

Importing the interface is most of a session's start, not all: Textual parses each
screen's CSS, Rich measures text, the menu builds its widgets, and some modules are
imported only then. The fork server shows the menu once to nobody before it forks
anything, so that what that leaves behind (modules, parsed styles, Textual's and Rich's
caches) is shared by every session instead of made again in each.

It runs in a throw-away home (``STACKS_HOME``, ``HOME`` and the XDG folders point into a
temporary folder, removed after), so it reads and writes nothing of the server's; the
project's own memoised functions are emptied after it (`netplay.identity` keeps boxes
derived from keys), and the environment is put back as it was.
"""

from __future__ import annotations

import asyncio
import functools
import gc
import logging
import os
import sys
import tempfile
from pathlib import Path

log = logging.getLogger(__name__)

WARM_WAIT_S = 60.0
PROJECT = ("tui", "netplay", "engine", "ratings", "broker", "sshserver", "stacks")
_HOME_VARIABLES = ("STACKS_HOME", "HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME",
                   "XDG_STATE_HOME", "XDG_CACHE_HOME", "XDG_RUNTIME_DIR")


async def _show_menu(home: Path) -> None:
    from tui.app import make_app
    from tui.launch import Launch

    app = make_app(None, defaults=Launch(role="play", name="warm-up", profile="warm-up"),
                   profiles=home / "profiles")
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        await pilot.press("down", "up")
        await pilot.pause()


def menu() -> None:
    """Show the main menu once, headless, in a throw-away home; a failure is logged, not
    raised (the sessions then do that work themselves)."""
    saved = dict(os.environ)
    try:
        with tempfile.TemporaryDirectory(prefix="stacks-warm-") as tmp:
            for name in _HOME_VARIABLES:
                os.environ[name] = tmp
            asyncio.run(asyncio.wait_for(_show_menu(Path(tmp)), WARM_WAIT_S))
    except Exception as exc:  # best effort: anything it fails on, a session will show
        log.warning("fork server: the warm-up menu failed: %s", exc)
    finally:
        os.environ.clear()
        os.environ.update(saved)
        forget_project_caches()


def forget_project_caches() -> int:
    """Empty the project's memoised functions (nothing a session derived from a key of
    its own may be handed to the next); how many there were."""
    emptied = 0
    for thing in gc.get_objects():
        if isinstance(thing, functools._lru_cache_wrapper) and \
                getattr(thing, "__module__", "").split(".")[0] in PROJECT:
            thing.cache_clear()
            emptied += 1
    return emptied


if __name__ == "__main__":  # pragma: no cover - by hand: python -m sshserver.warm
    menu()
    print(f"{len(sys.modules)} modules", file=sys.stderr)
