"""The server's games in a real headless Chromium (`stacks web --database`): the
leaderboard, a player's page, and a finished game's replay at /game/ID, stepped with the
keys of `stacks replay`, each step showing what the same replay shows in a terminal."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable
from pathlib import Path

import requests

from stacks.bench.browser import Chromium, Page, wait_for_body, wait_for_text
from tests.support import free_port
from tests.webserver.conftest import TIMEOUT, Web
from tests.webserver.site import database
from tui.replay import replay_file

KEYS = {  # CDP key events: (key, code, Windows virtual key code, text)
    "right": ("ArrowRight", "ArrowRight", 39, ""),
    "end": ("End", "End", 35, ""),
    "home": ("Home", "Home", 36, ""),
    "]": ("]", "BracketRight", 221, "]"),
}


async def press(page: Page, name: str) -> None:
    key, code, vk, text = KEYS[name]
    down = {"type": "keyDown" if text else "rawKeyDown", "key": key, "code": code,
            "windowsVirtualKeyCode": vk, "nativeVirtualKeyCode": vk}
    if text:
        down["text"] = text
    await page.send("Input.dispatchKeyEvent", **down)
    await page.send("Input.dispatchKeyEvent", type="keyUp", key=key, code=code,
                    windowsVirtualKeyCode=vk, nativeVirtualKeyCode=vk)


def test_the_leaderboard_a_player_and_a_game_s_replay_stepped_with_the_keys(
    web: Callable[..., Web], browser: Chromium, tmp_path: Path,
) -> None:
    url = database(tmp_path)
    # No broker listens there: this test looks at the stored games only.
    server = web("--database", url, "--broker", f"mqtt://127.0.0.1:{free_port()}")
    board = requests.get(server.url + "api/players", timeout=30).json()["players"]
    ann = next(p for p in board if p["name"] == "ann")

    async def scenario() -> None:
        page = await browser.new_page()
        try:
            await page.open(server.url + "leaderboard")
            listing = await wait_for_body(page, r"Leaderboard: Sequence Stacks", TIMEOUT)
            # Every player, in the API's order, with the points `stacks ratings` shows.
            places = [listing.index(p["name"]) for p in board]
            assert places == sorted(places), listing
            assert f"{ann['points']}{'?' if ann['provisional'] else ''}" in listing
            await page.evaluate("document.querySelector('tr[data-player=\"ann\"] a').click()")
            # Her page (the leaderboard's links name "Recent games" too: wait for hers).
            mine = await wait_for_body(page, re.escape(ann["fingerprint"]), TIMEOUT)
            assert "Recent games" in mine and "Sequence Stacks" in mine
            game_id = await page.evaluate(
                "document.querySelector('tr[data-game-id]').dataset.gameId")
            assert isinstance(game_id, str) and len(game_id) == 64
            await page.evaluate("document.querySelector('tr[data-game-id] a[href^=\"../game/\"]')"
                                ".click()")
            # The replay as `stacks replay` would show the same record.
            path = tmp_path / "game.json"
            path.write_text(requests.get(f"{server.url}api/games/{game_id}", timeout=30).text)
            replay = replay_file(path)
            last = replay.last
            await wait_for_text(page, rf"event 0/{last} ", TIMEOUT)
            await page.send("Page.bringToFront")
            await page.evaluate("window.__stacksTerminal.focus()")
            await press(page, "right")
            await wait_for_text(page, rf"event 1/{last} ", TIMEOUT)
            turn = replay.next_turn(1)
            await press(page, "]")
            await wait_for_text(page, rf"event {turn}/{last} · turn "
                                      rf"{replay.moments[turn].turn} ", TIMEOUT)
            await press(page, "end")
            await wait_for_text(page, rf"event {last}/{last} ", TIMEOUT)
            await press(page, "home")
            await wait_for_text(page, rf"event 0/{last} .*before the deal", TIMEOUT)
        finally:
            await page.close()

    asyncio.run(scenario())
    server.wait_line(r"opened the replay of game " + "[0-9a-f]{12}")
