"""Every key answers, the playable cue tells the truth, the table fits or says so.

Fixed views (no network) on the real app; what the screen asks to send is recorded.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace

import pytest
from textual.content import Content

from engine.actions import Discard, PlayCard
from engine.cards import FACES
from engine.state import NEW_PILE, Phase
from tests.netplay.harness import Table
from tests.tui import states
from tests.tui.conftest import until
from tests.tui.showcase import Recorder, notes, plain, settle, table_on_screen
from tui.app import make_app
from tui.follow import Following
from tui.model import TableModel
from tui.screens.history import HistoryScreen
from tui.screens.table import TableScreen
from tui.widgets.hand import Hand, picks
from tui.widgets.piles import SlotView
from tui.widgets.toosmall import TooSmall

pytestmark = pytest.mark.asyncio


def screen_text(app: object) -> str:
    """What the terminal shows, as words (from a screenshot)."""
    import html
    import re

    svg = app.export_screenshot()  # type: ignore[attr-defined]
    words = html.unescape(" ".join(re.findall(r">([^<>]*)</text>", svg)))
    return " ".join(words.replace("\xa0", " ").split())


def bar(screen: TableScreen) -> str:
    return plain(screen.query_one("#table-playbar").render())


async def test_the_playable_mark_differs_between_a_playable_and_an_unplayable_card(
    stacks_home: Path,
) -> None:
    async with table_on_screen(stacks_home) as (app, pilot, screen):
        view = screen.view
        assert view is not None
        hand = screen.query_one(Hand)
        line = plain(hand.render()).splitlines()[0]
        playable = {a.card for a in screen.legal if hasattr(a, "card")
                    and not isinstance(a, Discard)}
        cards = [p for p in picks(view, 0) if not p.from_discard]
        yes = [p for p in cards if p.card in playable]
        no = [p for p in cards if p.card not in playable]
        assert yes and no, "the position must hold both kinds"
        for pick in yes:
            assert f"{pick.key}•" in line, line
        for pick in no:
            assert f"{pick.key} " in line and f"{pick.key}•" not in line, line
        # No link underline on any card (it marked every card alike).
        assert "underline" not in app.export_screenshot()
        # The cue changes with the turn: out of turn nothing is marked playable.
        other = replace(view, current=1)
        screen.view = other
        await pilot.pause()
        assert "•" not in plain(hand.render()).splitlines()[0]


async def test_the_pile_marks_follow_the_selection(stacks_home: Path) -> None:
    async with table_on_screen(stacks_home) as (_app, pilot, screen):
        view = screen.view
        assert view is not None
        for pick in picks(view, 0):
            fits = {a.pile for a in screen.legal
                    if isinstance(a, PlayCard) and a.card == pick.card and a.pile != NEW_PILE}
            await pilot.press(pick.key)
            marked = {s.slot.pile.id for s in screen.query(SlotView)
                      if s.target and s.slot is not None and s.slot.pile is not None}
            assert marked == fits, (FACES[pick.card], marked, fits)
            await pilot.press("escape")


async def test_every_key_out_of_turn_says_why(stacks_home: Path) -> None:
    game = states.mid_game()
    async with table_on_screen(stacks_home, game) as (app, pilot, screen):
        sent = Recorder(app)
        view = screen.view
        assert view is not None
        screen.view = replace(view, current=2)
        await pilot.pause()
        for key in ("1", "a", "n", "p", "x", "enter", "i", "right"):
            await pilot.press(key)
            assert "Not your turn: Cy is playing" in bar(screen), (key, bar(screen))
        await pilot.press("g")
        assert "results come when the game is over" in bar(screen)
        assert sent.actions == []


async def test_keys_that_cant_act_on_your_turn_say_why(stacks_home: Path) -> None:
    async with table_on_screen(stacks_home) as (app, pilot, screen):
        sent = Recorder(app)
        view = screen.view
        assert view is not None
        await pilot.press("x")
        assert "Pick a card first" in bar(screen)
        await pilot.press("z")
        assert "No pile z is open" in bar(screen)
        await pilot.press("e")
        assert "ends your turn only once your hand is empty" in bar(screen)
        number = next(p for p in picks(view, 0) if FACES[p.card].colour is not None and p.key)
        await pilot.press(number.key, "p")
        assert "is not an action card" in bar(screen)
        opens = any(isinstance(a, PlayCard) and a.card == number.card and a.pile == NEW_PILE
                    for a in screen.legal)
        await pilot.press("n")
        if not opens:
            assert "can't start a pile" in bar(screen), bar(screen)
        await pilot.press("9")
        assert "You hold" in bar(screen) and "pick one" in bar(screen)
        assert all(not isinstance(a, PlayCard) or opens for a in sent.actions)


async def test_b_just_after_the_window_closed_says_how_long_ago(stacks_home: Path) -> None:
    async with table_on_screen(stacks_home, states.block_window()) as (app, pilot, screen):
        await until(pilot, lambda: screen._prompted is not None, "the Block prompt")
        view = screen.view
        assert view is not None
        screen.view = replace(view, window=None, phase=Phase.PLAY)
        await until(pilot, lambda: isinstance(app.screen, TableScreen), "the prompt to go")
        await pilot.press("b")
        text = bar(screen)
        assert "Too late: the Block window closed" in text and "s ago" in text, text


async def test_discarding_a_card_that_could_go_on_a_pile_asks_once_more(
    stacks_home: Path,
) -> None:
    async with table_on_screen(stacks_home) as (app, pilot, screen):
        sent = Recorder(app)
        view = screen.view
        assert view is not None
        fits = {a.card for a in screen.legal if isinstance(a, PlayCard)}
        pick = next(p for p in picks(view, 0) if p.card in fits and not p.from_discard)
        await pilot.press(pick.key, "x")
        assert sent.actions == []
        assert "could go on" in bar(screen) and "x again discards" in bar(screen)
        await pilot.press("x")
        assert sent.actions == [Discard(0, pick.card)]
        # Any other key keeps the card: the next x asks again.
        sent.actions.clear()
        await pilot.press(pick.key, "x", "escape", pick.key, "x")
        assert sent.actions == []


async def test_below_80x24_a_plain_notice_instead_of_a_broken_table(stacks_home: Path) -> None:
    async with table_on_screen(stacks_home, size=(60, 20)) as (_app, pilot, screen):
        await pilot.pause()
        notice = screen.query_one(TooSmall)
        assert notice.region.height > 0
        text = plain(notice.render())
        assert "60x20" in text and "at least 80x24" in text
        assert screen.query_one("#table-body").region.height == 0
        await pilot.resize_terminal(80, 24)
        await settle(pilot)
        assert notice.region.height == 0
        assert screen.query_one("#table-body").region.height > 0


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_a_complete_pile_of_five_fits_its_slot(stacks_home: Path,
                                                     size: tuple[int, int]) -> None:
    async with table_on_screen(stacks_home, states.block_window(), size=size) as (
        _app, pilot, screen,
    ):
        await settle(pilot)
        complete = [v for v in screen.query(SlotView) if v.slot is not None and v.slot.complete]
        assert complete
        for view in complete:
            rows = str(view.render()).split("\n")
            assert "complete!" in plain(view.render())
            width = max(Content.from_markup(row).cell_length for row in rows)
            assert width <= view.content_region.width, (width, view.content_region.width)


async def test_l_shows_the_whole_history_after_a_rejoin(stacks_home: Path) -> None:
    table = Table(2, seed=32)
    table.run(lambda: len(table.host.batches) >= 6 and table.state.phase == Phase.PLAY)
    away = table.players[1]
    table.remove(away)
    table.run(lambda: any(b.standin for b in table.host.batches)
              and table.state.phase == Phase.PLAY and len(table.host.batches) >= 20)
    back = table.add_player("p1 back", identity=away.identity)
    table.pump()  # the session fetches what the snapshot stood in for
    assert back.view is not None and back.seat is not None
    app = make_app(profiles=stacks_home, frozen=True)
    async with app.run_test(size=(80, 24)) as pilot:
        names = back.names
        screen = TableScreen("t1", names, back.seat, frozen=True)
        control = app.control
        following = control.following = Following(
            control, TableModel(table="t1", me=back.seat, names=names))
        control.session = SimpleNamespace(player=SimpleNamespace(player=back))  # type: ignore[assignment]
        following.table = screen
        await control.show(screen)
        screen.view = back.view
        await pilot.press("l")
        await until(pilot, lambda: isinstance(app.screen, HistoryScreen), "the history")
        history = app.screen
        assert isinstance(history, HistoryScreen)
        text = "\n".join(plain(line.markup) for line in history.lines)
        assert "not received" not in text
        assert "(a bot played for you)" in text and "for You" not in text
        marked = [plain(line.markup) for line in history.lines if "a bot played" in line.markup]
        batches = {line.n for line in history.lines if "a bot played" in line.markup}
        assert len(marked) == len(batches), marked  # once a move: on the bot's own line
        assert "── 1." in text and "The cards are dealt" in text
        await pilot.press("escape")
        assert app.screen is screen


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_the_leave_question_shows_every_word(stacks_home: Path,
                                                   size: tuple[int, int]) -> None:
    from tui.screens.choice import ChoiceScreen

    async with table_on_screen(stacks_home, size=size) as (app, pilot, _):
        await pilot.press("q")
        await until(pilot, lambda: isinstance(app.screen, ChoiceScreen), "the question")
        await pilot.pause()
        assert "join again to sit back down" in screen_text(app)  # the last words, whole


async def test_the_log_scrolls_back_by_keys_and_stays_there_while_lines_come(
    stacks_home: Path,
) -> None:
    from tui.widgets.log import TableLog

    async with table_on_screen(stacks_home) as (_app, pilot, screen):
        await settle(pilot)
        log = screen.query_one(TableLog)
        end = log.max_scroll_y
        assert end > 0 and log.scroll_y == end
        await pilot.press("pageup")
        await pilot.pause()
        back = log.scroll_y
        assert back < end
        screen.say("a new line")
        await pilot.pause()
        assert log.scroll_y == back  # still reading where we were
        await pilot.press("pagedown", "pagedown", "pagedown")
        await pilot.pause()
        screen.say("another line")
        await settle(pilot)
        assert log.scroll_y == log.max_scroll_y  # back at the end: following again


async def test_the_log_wraps_its_lines_again_when_the_terminal_narrows(
    stacks_home: Path,
) -> None:
    from tui.widgets.log import TableLog

    async with table_on_screen(stacks_home, size=(200, 40)) as (_app, pilot, screen):
        log = screen.query_one(TableLog)
        await settle(pilot)
        words = " ".join(f"w{i}" for i in range(log.scrollable_content_region.width // 4))
        screen.say(words)
        await settle(pilot)
        wide = [strip.text.rstrip() for strip in log.lines]
        assert words in wide  # one line in the wide terminal
        await pilot.resize_terminal(120, 40)  # the side log: 63 columns to 36
        await settle(pilot)
        width = log.scrollable_content_region.width
        narrow = [strip.text.rstrip() for strip in log.lines]
        assert words not in narrow
        assert all(len(line) <= width for line in narrow), (width, narrow[-4:])
        # Nothing cut off: every word is still there, in order, at the end of the log.
        tail = " ".join(narrow).split()
        assert tail[-len(words.split()):] == words.split()
        assert log.scroll_y == log.max_scroll_y


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_the_status_line_is_never_cut(stacks_home: Path, size: tuple[int, int]) -> None:
    # A Block window on an opponent's pile is the longest status: at 80x24 the play order
    # behind it did not fit and ended in "…".
    async with table_on_screen(stacks_home, states.block_window(), size=size) as (
        _app, pilot, screen,
    ):
        await settle(pilot)
        status = screen.query_one("#table-status")
        text = plain(status.render())
        assert "Block window on" in text
        assert Content.from_markup(screen._status()).cell_length <= status.content_region.width
        await pilot.resize_terminal(200, 40)
        await settle(pilot)
        assert "play goes" in plain(status.render())  # the order, wherever it fits


async def test_a_spectators_keys_answer_where_they_can_be_seen(stacks_home: Path) -> None:
    # A spectator has no hand, so no play bar under it: the answer went to a hidden line.
    from engine.views import spectator_view

    app = make_app(profiles=stacks_home, frozen=True)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = TableScreen("friday", states.NAMES, None, frozen=True)
        await app.control.show(screen)
        screen.view = spectator_view(states.mid_game().state)
        await settle(pilot)
        assert not screen.query_one("#table-playbar").region.height  # hidden with the hand
        for key in ("1", "a", "x", "1"):
            await pilot.press(key)
            await until(pilot, lambda: any("You are watching" in message
                                           for message in notes(app)), "the answer")
        assert len(notes(app)) == 1  # the same answer once, not a pile of them


async def test_the_history_title_shows_every_word_at_80x24(stacks_home: Path) -> None:
    # A table name of a usual length and a long game: the one-line title ended in "…".
    from tests.tui.showcase import steps_of
    from tui.history import History

    game = states.finished()
    app = make_app(profiles=stacks_home, frozen=True)
    async with app.run_test(size=(80, 24)) as pilot:
        history = History(states.NAMES[: game.state.players], 0)
        history.extend(steps_of(game, 0))
        screen = HistoryScreen("fridaynight-downstairs", history.lines)
        await app.push_screen(screen)
        await settle(pilot)
        title = " ".join(plain(screen.query_one("#history-title").render()).split())
        assert title.endswith("Home End scroll") and title in screen_text(app), title


async def test_a_rejoined_log_keeps_numbering_its_turns(stacks_home: Path) -> None:
    from engine.events import TurnStarted
    from netplay.playing.notices import Resynced
    from tui.history import History, Step

    table = Table(2, seed=33)
    table.run(lambda: len(table.host.batches) >= 6 and table.state.phase == Phase.PLAY)
    away = table.players[1]
    table.remove(away)
    table.run(lambda: len(table.host.batches) >= 20 and table.state.phase == Phase.PLAY)
    back = table.add_player("p1 back", identity=away.identity)
    table.pump()
    assert back.view is not None and back.seat is not None
    app = make_app(profiles=stacks_home, frozen=True)
    async with app.run_test(size=(80, 24)) as pilot:
        names = back.names
        screen = TableScreen("t1", names, back.seat, frozen=True)
        control = app.control
        following = control.following = Following(
            control, TableModel(table="t1", me=back.seat, names=names))
        control.session = SimpleNamespace(player=SimpleNamespace(player=back, view=back.view))  # type: ignore[assignment]
        following.table = screen
        history = following.history = History(names, back.seat)
        history.add(Step.of(1, None, ()))  # it saw the start, then left
        await control.show(screen)
        await control.notice(Resynced(back.applied, "snapshot"))
        turn, start = back.view.turn, back.applied
        table.run(lambda: any(isinstance(e, TurnStarted) for b in table.host.batches[start:]
                              for e in b.events))
        lines = [line for b in table.host.batches[start:]
                 for line in history.add(Step.of(b.n, b.action, b.events))]
        headers = [plain(line.markup) for line in lines if line.header]
        assert headers and headers[0].startswith(f"── {turn + 1}. "), headers
        await pilot.pause()
