"""The menu's Rankings: the leaderboard with your row marked, your games newest first
(Enter replays one from the stored record), your card; read from this machine's
ratings database."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import OptionList, Static

from ratings.local import local_database
from ratings.store import Store
from tests.netplay.harness import identity_for
from tests.ratings.games import stacks_records
from tests.tui.conftest import until
from tests.tui.showcase import plain
from tui.app import make_app
from tui.launch import Launch
from tui.screens.ratings import RatingsScreen
from tui.screens.replay import ReplayScreen

pytestmark = pytest.mark.asyncio


def _prompts(screen: RatingsScreen) -> list[str]:
    rows = screen.query_one("#ratings-rows", OptionList)
    return [plain(rows.get_option_at_index(i).prompt) for i in range(rows.option_count)]


async def test_rankings_show_the_leaderboard_your_games_and_your_card(
    stacks_home: Path,
) -> None:
    ann = identity_for(0, "ann")  # the player of the stored games, as this profile
    folder = stacks_home / "ann"
    folder.mkdir(parents=True)
    (folder / "identity.key").write_text(bytes(ann.signing_key).hex() + "\n")
    records = stacks_records()
    store = await Store.open(local_database())
    for record in records:
        await store.add_record(record)
    await store.close()

    app = make_app(defaults=Launch("play", profile="ann"), profiles=stacks_home,
                   frozen=True)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("k")
        await until(pilot, lambda: isinstance(app.screen, RatingsScreen), "the rankings")
        screen = app.screen
        assert isinstance(screen, RatingsScreen)
        await until(pilot, lambda: len(_prompts(screen)) > 2, "the leaderboard")
        rows = _prompts(screen)
        marked = [r for r in rows if "▶" in r]
        assert len(marked) == 1 and "ann" in marked[0], rows
        assert any("Bot (medium)" in r for r in rows)

        await pilot.press("y")
        await until(pilot, lambda: any("won" in r or "lost" in r for r in _prompts(screen)),
                    "your games")
        games = _prompts(screen)
        assert len(games) == len(records), games  # ann sat at every table
        assert "bob" in games[-1] and "Bot 3 (medium)" in games[-1]  # the oldest: game 0
        assert "Stacks" in games[0]

        screen.query_one("#ratings-rows", OptionList).focus()
        await pilot.press("home", "enter")
        await until(pilot, lambda: isinstance(app.screen, ReplayScreen), "the replay")
        await pilot.press("escape")
        await until(pilot, lambda: app.screen is screen, "back to the rankings")

        await pilot.press("c")
        card = screen.query_one("#ratings-card", Static)
        await until(pilot, lambda: "Favourite opponents" in plain(card.render()), "the card")
        text = plain(card.render())
        assert f"{len(records)} games" in text and "bob" in text, text
        assert "rating 1" in text and "±" not in text, text  # points, not mu and sigma


async def test_ratings_read_as_points_with_a_provisional_mark_and_your_own_name(
    stacks_home: Path,
) -> None:
    import re

    ann = identity_for(0, "ann")
    folder = stacks_home / "ann"
    folder.mkdir(parents=True)
    (folder / "identity.key").write_text(bytes(ann.signing_key).hex() + "\n")
    store = await Store.open(local_database())
    for record in stacks_records():
        await store.add_record(record)
    await store.close()
    app = make_app(defaults=Launch("play", profile="ann", name="Annie"), profiles=stacks_home,
                   frozen=True)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("k")
        await until(pilot, lambda: isinstance(app.screen, RatingsScreen), "the rankings")
        screen = app.screen
        assert isinstance(screen, RatingsScreen)
        await until(pilot, lambda: len(_prompts(screen)) > 2, "the leaderboard")
        rows = _prompts(screen)
        players = [r for r in rows if re.match(r"\s*\d+", r)]
        assert players, rows
        for row in players:  # a few games each: every rating is provisional points
            assert re.search(r"\b1\d{3}\?$", row.rstrip()), row
            assert "." not in row.split()[-1], row
        mine = next(r for r in players if "▶" in r)
        assert "Annie" in mine, mine  # the profile's name, not the stored one
        assert any("provisional" in r for r in rows), rows
        await pilot.press("y")
        await until(pilot, lambda: any("won" in r or "lost" in r for r in _prompts(screen)),
                    "your games")
        for row in _prompts(screen):
            assert re.search(r"(won|lost|draw)\s+([+-]\d+|±0)\s", row), row


async def test_the_leaderboard_and_your_card_show_the_games_you_left_early(
    stacks_home: Path,
) -> None:
    from netplay.hosts import fingerprint
    from ratings.moderation import ModerationStore

    ann = identity_for(0, "ann")
    folder = stacks_home / "ann"
    folder.mkdir(parents=True)
    (folder / "identity.key").write_text(bytes(ann.signing_key).hex() + "\n")
    store = await Store.open(local_database())
    for record in stacks_records():
        await store.add_record(record)
    await ModerationStore(store).note_abandons("friday", 1.0, [(fingerprint(ann.key), "ann")])
    await store.close()

    app = make_app(defaults=Launch("play", profile="ann"), profiles=stacks_home,
                   frozen=True)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("k")
        await until(pilot, lambda: isinstance(app.screen, RatingsScreen), "the rankings")
        screen = app.screen
        assert isinstance(screen, RatingsScreen)
        await until(pilot, lambda: len(_prompts(screen)) > 2, "the leaderboard")
        rows = _prompts(screen)
        assert rows[0].split()[-1] == "left", rows
        [mine] = [r for r in rows if "▶" in r]
        assert mine.split()[-1] == "1", rows
        assert any(r.split()[-1] == "0" for r in rows if "Bot (" in r)
        await pilot.press("c")
        card = screen.query_one("#ratings-card", Static)
        await until(pilot, lambda: "Abandoned games" in plain(card.render()), "the card")
        assert "left 1 of 5 games before the end (20%)" in plain(card.render())
