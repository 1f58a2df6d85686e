"""The table screen at 80x24: what it shows, and how keys become actions.

The screen renders a fixed view here (no network); what it asks to send is recorded.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from engine.actions import (
    Block,
    Discard,
    PassBlock,
    PlayCard,
    StealCard,
    StealChip,
)
from engine.cards import CARDS_BY_KIND, Colour, Kind
from engine.rules import legal_actions
from engine.state import NEW_PILE, Phase, Zone
from engine.views import spectator_view
from tests.tui import states
from tests.tui.conftest import until
from tests.tui.showcase import Recorder, plain, show_table, table_on_screen
from tui.app import make_app
from tui.screens.block import BlockPrompt
from tui.screens.choice import ChoiceScreen
from tui.screens.table import TableScreen
from tui.widgets.hand import Hand, picks
from tui.widgets.opponents import Opponents, seat_order
from tui.widgets.piles import SlotView, place_id
from tui.words import card_code

pytestmark = pytest.mark.asyncio


async def test_table_at_80x24_shows_every_opponent_the_piles_your_hand_and_whose_turn(
    stacks_home: Path,
) -> None:
    async with table_on_screen(stacks_home, away=2) as (_app, pilot, screen):
        await pilot.pause()
        view = screen.view
        assert view is not None
        status = plain(screen.query_one("#table-status").render())
        assert "YOUR TURN" in status and "play goes You ▸" in status
        lines = plain(screen.query_one(Opponents).render()).splitlines()
        assert len(lines) == 3
        for seat, line in zip(seat_order(view, 0), lines, strict=True):
            name = states.NAMES[seat]
            assert name in line
            assert f"hand {len(view.hands[seat])}" in line
            red, blue = view.chips[seat]
            assert f"chips R{red} B{blue}" in line
        assert "away" in "\n".join(lines)  # Cy's presence, in words
        slots = [plain(s.render()) for s in screen.query(SlotView)]
        # Each open pile shows its engine name as its key; the first free slot shows n.
        names = sorted(p.name for p in view.piles)
        shown = [s.split()[0] for s in slots]
        assert sorted(k for k in shown if k != "n") == names
        assert shown.count("n") <= len(Colour)  # one free slot per colour shows the key
        assert sum("Red" in s for s in slots) == 2 and sum("Blue" in s for s in slots) == 2
        counts = plain(screen.query_one(".pile-counts").render())
        assert f"Draw pile {len(view.draw_pile)}" in counts
        assert f"Out of play {len(view.out_of_play)}" in counts
        hand = plain(screen.query_one(Hand).render())
        for index in range(len(view.hands[0])):
            assert f"{index + 1} " in hand or f"{index + 1}• " in hand
        assert "playable now" in hand
        assert all(region.bottom <= 24 for region in
                   (w.region for w in screen.query("#table-you, #table-log")))


async def test_a_number_key_picks_a_card_and_a_pile_letter_plays_it_there(
    stacks_home: Path,
) -> None:
    async with table_on_screen(stacks_home) as (app, pilot, screen):
        sent = Recorder(app)
        view = screen.view
        assert view is not None
        play = next(a for a in screen.legal if isinstance(a, PlayCard) and a.pile != NEW_PILE
                    and a.card in view.hands[0])
        pick = next(p for p in picks(view, 0) if p.card == play.card)
        slot = next(s for s in screen.slots if s.pile is not None and s.pile.id == play.pile)
        await pilot.press(pick.key)
        assert screen.selected == pick
        bar = plain(screen.query_one("#table-playbar").render())
        assert f"{slot.letter} on" in bar and "x discard (ends turn)" in bar
        assert slot.letter in screen.query_one("#table-piles").targets  # type: ignore[attr-defined]
        await pilot.press(slot.letter)
        assert sent.actions == [PlayCard(0, play.card, play.pile)]


async def test_a_card_that_does_not_fit_a_pile_is_explained_in_the_engines_words(
    stacks_home: Path,
) -> None:
    async with table_on_screen(stacks_home) as (app, pilot, screen):
        sent = Recorder(app)
        view = screen.view
        assert view is not None
        for pick in picks(view, 0):
            fits = {a.pile for a in screen.legal if isinstance(a, PlayCard) and a.card == pick.card}
            wrong = [s for s in screen.slots if s.pile is not None and s.pile.id not in fits]
            if wrong and pick.key:
                break
        else:
            pytest.skip("every card fits every pile")
        await pilot.press(pick.key, wrong[0].letter)
        await pilot.pause()
        assert sent.actions == []
        bar = plain(screen.query_one("#table-playbar").render())
        assert "can't go on" in bar or "action card" in bar, bar
        assert f"pile {wrong[0].letter}" in bar or "action card" in bar, bar


async def test_x_discards_the_picked_card_and_enter_does_the_highlighted_choice(
    stacks_home: Path,
) -> None:
    async with table_on_screen(stacks_home) as (app, pilot, screen):
        sent = Recorder(app)
        view = screen.view
        assert view is not None
        first = picks(view, 0)[0]
        await pilot.press(first.key, "x")
        if not sent.actions:  # it could go on a pile: the misclick guard asks once more
            await pilot.press("x")
        assert sent.actions == [Discard(0, first.card)]
        await pilot.press(first.key)
        choices = screen._choices_for(first)
        await pilot.press(*["down"] * (len(choices) - 1), "enter")
        assert sent.actions[-1] == choices[-1].action


async def test_steal_a_card_asks_whom_and_hand_or_discard_by_number_keys(
    stacks_home: Path,
) -> None:
    app = make_app(profiles=stacks_home, frozen=True)
    game = states.mid_game()
    steal = CARDS_BY_KIND[Kind.STEAL_CARD][0]
    view = states.seat_view(game)
    view.hands[0][0] = steal
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await show_table(app, game)
        screen.view = view
        sent = Recorder(app)
        await pilot.press("1", "p")
        assert isinstance(app.screen, ChoiceScreen)
        assert "from whom" in app.screen.question
        await pilot.press("1")
        await pilot.pause()
        legal = [a for a in legal_actions(view, 0) if isinstance(a, StealCard)]
        first_target = sorted({a.target for a in legal}, key=seat_order(view, 0).index)[0]
        options = [a for a in legal if a.target == first_target]
        if len(options) > 1:
            assert isinstance(app.screen, ChoiceScreen)
            assert "hand or discard" in app.screen.question
            await pilot.press("2")
            await pilot.pause()
        assert len(sent.actions) == 1
        action = sent.actions[0]
        assert isinstance(action, StealCard) and action in legal
        assert action.zone in (Zone.HAND, Zone.DISCARD)


async def test_steal_a_chip_asks_whom_and_which_colour(stacks_home: Path) -> None:
    app = make_app(profiles=stacks_home, frozen=True)
    game = states.mid_game()
    view = states.seat_view(game)
    view.hands[0][0] = CARDS_BY_KIND[Kind.STEAL_CHIP][0]
    view.chips[0] = [0, 0]
    for seat in (1, 2, 3):
        view.chips[seat] = [1, 1]
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await show_table(app, game)
        screen.view = view
        sent = Recorder(app)
        await pilot.press("1", "p", "2")
        await pilot.pause()
        assert isinstance(app.screen, ChoiceScreen) and "colour" in app.screen.question
        await pilot.press("2")
        await pilot.pause()
        assert len(sent.actions) == 1
        action = sent.actions[0]
        assert isinstance(action, StealChip) and action.colour == Colour.BLUE


async def test_i_hints_the_bots_move_and_enter_plays_it(stacks_home: Path) -> None:
    async with table_on_screen(stacks_home) as (app, pilot, screen):
        sent = Recorder(app)
        await pilot.press("i")
        assert screen.hint is not None
        assert "Hint:" in plain(screen.query_one("#table-playbar").render())
        await pilot.press("enter")
        assert sent.actions == [screen.hint] or sent.actions[0] in screen.legal


async def test_the_block_prompt_blocks_with_b(stacks_home: Path) -> None:
    async with table_on_screen(stacks_home, states.block_window()) as (app, pilot, _):
        sent = Recorder(app)
        await until(pilot, lambda: isinstance(app.screen, BlockPrompt), "the Block prompt")
        await pilot.pause()
        what = plain(app.screen.query_one("#block-what").render())
        assert "completed Blue pile" in what or "completed Red pile" in what
        assert "You hold a Block card" in what or "Block cards" in what
        # The question on a line of its own, not after the last card's padding ("B5 .").
        assert " . Block it?" not in what and "\nBlock it?" in what, what
        await pilot.press("b")
        assert len(sent.actions) == 1 and isinstance(sent.actions[0], Block)
        assert not isinstance(app.screen, BlockPrompt)


async def test_the_block_prompt_passes_with_p_and_goes_when_the_window_closes(
    stacks_home: Path,
) -> None:
    game = states.block_window()
    async with table_on_screen(stacks_home, game) as (app, pilot, screen):
        sent = Recorder(app)
        await until(pilot, lambda: isinstance(app.screen, BlockPrompt), "the Block prompt")
        await pilot.press("p")
        assert sent.actions == [PassBlock(0)]
        # A new window on a later pile prompts again; its closing takes the prompt away.
        view = states.seat_view(game)
        assert view.window is not None
        view.window = replace(view.window, pile=replace(view.window.pile, id=999))
        screen.view = view
        await until(pilot, lambda: isinstance(app.screen, BlockPrompt), "a second prompt")
        closed = states.seat_view(game)
        closed.phase, closed.window = Phase.PLAY, None
        screen.view = closed
        await until(pilot, lambda: not isinstance(app.screen, BlockPrompt), "the prompt to go")


async def test_without_a_block_in_hand_you_pass_by_yourself(stacks_home: Path) -> None:
    app = make_app(profiles=stacks_home)
    game = states.block_window()
    view = states.seat_view(game)
    blocks = set(CARDS_BY_KIND[Kind.BLOCK])
    view.hands[0] = [c for c in view.hands[0] if c not in blocks] or [0]
    async with app.run_test(size=(80, 24)) as pilot:
        screen = TableScreen("friday", states.NAMES, 0)
        await app.control.show(screen)
        sent = Recorder(app)
        screen.view = view
        await until(pilot, lambda: sent.actions == [PassBlock(0)], "the automatic pass")
        assert not isinstance(app.screen, BlockPrompt)


async def test_t_opens_the_chat_and_enter_sends_the_line(stacks_home: Path) -> None:
    async with table_on_screen(stacks_home) as (app, pilot, screen):
        sent = Recorder(app)
        await pilot.press("t", *"gg all", "enter")
        assert sent.said == ["gg all"]
        screen.heard("Bo", "thanks!")
        await pilot.pause()
        assert screen.focused is None  # the keys belong to the cards again


async def test_a_spectator_sees_the_table_but_no_hand_and_keys_do_nothing(
    stacks_home: Path,
) -> None:
    app = make_app(profiles=stacks_home, frozen=True)
    game = states.mid_game()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = TableScreen("friday", states.NAMES, None, frozen=True)
        await app.control.show(screen)
        sent = Recorder(app)
        screen.view = spectator_view(game.state)
        await pilot.press("1", "a", "x", "enter")
        assert sent.actions == []
        assert "watching" in plain(screen.query_one(Hand).render())
        assert len(plain(screen.query_one(Opponents).render()).splitlines()) == 4


async def test_a_large_terminal_gets_a_log_column_and_big_cards(stacks_home: Path) -> None:
    app = make_app(profiles=stacks_home, frozen=True)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await show_table(app, states.mid_game())
        await pilot.pause()
        assert screen.has_class("-wide") and screen.has_class("-big")
        assert screen.query_one(Hand).big
        log = screen.query_one("#table-log")
        main = screen.query_one("#table-main")
        assert log.region.x >= main.region.right - 1
        await pilot.resize_terminal(80, 24)
        await pilot.pause()
        assert not screen.has_class("-wide")


async def test_the_mouse_picks_a_card_and_a_click_on_a_pile_plays_it(stacks_home: Path) -> None:
    async with table_on_screen(stacks_home) as (app, pilot, screen):
        sent = Recorder(app)
        view = screen.view
        assert view is not None
        play = next(a for a in screen.legal if isinstance(a, PlayCard) and a.pile != NEW_PILE
                    and a.card in view.hands[0])
        pick = next(p for p in picks(view, 0) if p.card == play.card)
        slot = next(s for s in screen.slots if s.pile is not None and s.pile.id == play.pile)
        await pilot.pause()  # laid out: the click lands where the card is drawn
        hand = screen.query_one(Hand)
        first_line = plain(hand.render()).splitlines()[0]
        column = first_line.index(f"{pick.key}• {card_code(pick.card)}") + 3  # on its code
        await pilot.click(Hand, offset=(column, 0))
        await pilot.pause()
        assert screen.selected == pick
        await pilot.click(f"#{place_id(slot)}")
        await pilot.pause()
        assert sent.actions == [PlayCard(0, play.card, play.pile)]


async def test_a_steal_with_one_opponent_to_take_from_does_not_ask_from_whom(
    stacks_home: Path,
) -> None:
    app = make_app(profiles=stacks_home, frozen=True)
    game = states.mid_game()
    view = states.seat_view(game)
    view.hands[0][0] = CARDS_BY_KIND[Kind.STEAL_CHIP][0]
    view.chips[0] = [0, 0]
    view.chips[1], view.chips[2], view.chips[3] = [0, 0], [0, 1], [0, 0]
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await show_table(app, game)
        screen.view = view
        sent = Recorder(app)
        await pilot.press("1", "p")
        await pilot.pause()
        assert sent.actions == [StealChip(0, CARDS_BY_KIND[Kind.STEAL_CHIP][0], 2,
                                          Colour.BLUE)]
        assert not isinstance(app.screen, ChoiceScreen)


async def test_a_steal_from_a_hand_of_one_card_says_one_card(stacks_home: Path) -> None:
    app = make_app(profiles=stacks_home, frozen=True)
    game = states.mid_game()
    steal = CARDS_BY_KIND[Kind.STEAL_CARD][0]
    view = states.seat_view(game)
    view.hands[0][0] = steal
    for seat in range(1, view.players):
        del view.hands[seat][1:]
    legal = [a for a in legal_actions(view, 0) if isinstance(a, StealCard)]
    target = sorted({a.target for a in legal}, key=seat_order(view, 0).index)[0]
    assert {a.zone for a in legal if a.target == target} == {Zone.HAND, Zone.DISCARD}
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await show_table(app, game)
        screen.view = view
        await pilot.press("1", "p", "1")
        await pilot.pause()
        assert isinstance(app.screen, ChoiceScreen)
        assert "hand or discard" in app.screen.question
        labels = [plain(a.label) for a in app.screen.answers]
        assert any("hand (1 card)" in label for label in labels), labels


async def test_keys_show_on_a_players_piles_only_and_slots_side_by_side_are_apart(
    stacks_home: Path,
) -> None:
    from tests.tui.showcase import show_replay, show_table
    from tui.widgets.piles import Piles, SlotView

    app = make_app(profiles=stacks_home, frozen=True)
    async with app.run_test(size=(80, 24)) as pilot:
        mine = await show_table(app, states.mid_game())
        await pilot.pause()
        views = list(mine.query(SlotView))
        assert any(plain(v.render()).startswith("n ") for v in views)  # the player's keys
        later = [v for v in views if v.slot is not None and v.slot.place]
        assert later and all(v.styles.border_left[0] != "" for v in later)
        watched = TableScreen("friday", ("Ana", "Bo", "Cy", "Di"), None, frozen=True)
        await app.control.show(watched)
        watched.view = states.mid_game().state
        await pilot.pause()
        await until(pilot, lambda: bool(list(watched.query(SlotView))), "the piles")
        await pilot.pause()
        _piles_named_without_keys(list(watched.query(SlotView)))
        replay = await show_replay(app, states.finished())
        await pilot.pause()
        assert replay.query_one(Piles).keys is False
        _piles_named_without_keys(list(replay.query(SlotView)))


def _piles_named_without_keys(views: list[SlotView]) -> None:
    """Where no key plays (a spectator, a replay) every open pile still shows its name, the
    letter the log calls it by ("Red pile d"), and no free slot offers the new-pile key."""
    rows = [(v.slot, plain(v.render())) for v in views if v.slot is not None]
    named = [(slot, row) for slot, row in rows if slot.pile is not None]
    assert named, rows
    for slot, row in named:
        assert row.startswith(f"{slot.pile.name} "), (slot.pile.name, row)
    assert all(row[:2].strip() == "" for slot, row in rows if slot.pile is None), rows
    assert not any("[reverse" in v.render() for v in views)  # a name, not a key


async def test_a_five_card_pile_reads_complete_in_a_replay_step_before_its_window(
    stacks_home: Path,
) -> None:
    from engine.cards import FACES
    from engine.state import Pile
    from tui.widgets.piles import Slot

    red = [next(c for c, f in enumerate(FACES) if f.colour is Colour.RED and f.rank == rank)
           for rank in range(1, 6)]
    view = SlotView()
    view.slot = Slot("d", Colour.RED, Pile(7, Colour.RED, red, "d"))
    view.keys = False
    assert "complete!" in plain(view.render())
    assert "next" not in plain(view.render())
