"""Events in words: what the log says."""

from __future__ import annotations

from engine.cards import CARDS_BY_KIND, FACES, Colour, Kind
from engine.events import (
    CardPlayed,
    CardTaken,
    ChipAwarded,
    PileBlocked,
    PileCleared,
    PileCompleted,
)
from engine.state import Zone
from netplay.clock import Wait
from tests.tui.showcase import plain
from tui.words import Narrator, card_code, short_name, wait_line

RED_4 = next(i for i, f in enumerate(FACES) if f.colour is Colour.RED and f.rank == 4)
RED_5 = next(i for i, f in enumerate(FACES) if f.colour is Colour.RED and f.rank == 5)
BLOCK = CARDS_BY_KIND[Kind.BLOCK][0]
RED_1, RED_1B = [i for i, f in enumerate(FACES) if f.colour is Colour.RED and f.rank == 1][:2]
RED_2 = next(i for i, f in enumerate(FACES) if f.colour is Colour.RED and f.rank == 2)


def test_a_blocked_pile_reads_ana_completed_red_blocked_by_bo() -> None:
    narrator = Narrator(("Ana", "Bo", "Cy"), me=2)
    narrator.describe(CardPlayed(0, RED_4, Zone.HAND, 3, False))
    narrator.describe(CardPlayed(0, RED_5, Zone.HAND, 3, False))
    assert plain(narrator.describe(PileCompleted(0, 3, False, (1, 2)))) == \
        "Ana completed Red pile f — Block window open"
    assert plain(narrator.describe(PileBlocked(1, BLOCK, Zone.HAND, 3))) == \
        "Ana completed Red pile f — blocked by Bo"


def test_a_cleared_pile_pays_a_chip_and_you_are_you() -> None:
    narrator = Narrator(("Ana", "Bo"), me=0)
    narrator.describe(CardPlayed(0, RED_5, Zone.HAND, 1, False))
    narrator.describe(PileCompleted(0, 1, False, (1,)))
    assert plain(narrator.describe(PileCleared(1))) == \
        "The Block window closed with no Block: Red pile c goes out of play"
    assert plain(narrator.describe(ChipAwarded(0, Colour.RED))) == "You took a Red chip"


def test_log_lines_name_the_pile_when_two_of_a_colour_are_open() -> None:
    narrator = Narrator(("Ana", "Bo"), me=1)
    first = plain(narrator.describe(CardPlayed(0, RED_1, Zone.HAND, 0, True)))
    second = plain(narrator.describe(CardPlayed(0, RED_1B, Zone.HAND, 1, True)))
    assert first.startswith("Ana started Red pile a") and "pile c" in second
    assert plain(narrator.describe(CardPlayed(0, RED_2, Zone.HAND, 1, False))) == \
        "Ana played R2 on Red pile c"


def test_a_card_taken_from_your_hand_names_the_card_only_to_you() -> None:
    mine = Narrator(("Ana", "Bo", "Cy"), me=1)
    assert "R4" in plain(mine.describe(CardTaken(0, 1, Zone.HAND, RED_4)))
    theirs = Narrator(("Ana", "Bo", "Cy"), me=2)
    line = plain(theirs.describe(CardTaken(0, 1, Zone.HAND, -1)))
    assert "a card" in line and "Bo's hand" in line


def test_every_card_reads_without_colour() -> None:
    codes = {card_code(c) for c in range(len(FACES))}
    assert {"R1", "R5", "RW", "B1", "BW", "Skip", "Reverse", "Steal card", "Steal chip",
            "Block"} <= codes
    assert short_name("Bot 3 (greedy)") == "Bot 3" and short_name("Ana") == "Ana"
    assert short_name("Bot 3 (greedy)\n") == "Bot 3 (greedy)\n"  # not a host's bot name


def test_red_looks_red_and_blue_blue_on_8_and_16_colour_terminals() -> None:
    from rich.color import ColorSystem
    from rich.style import Style

    from tui.words import card_style, colour_word

    def standard(style: str) -> tuple[int | None, int | None]:
        parsed = Style.parse(style)
        fg = parsed.color.downgrade(ColorSystem.STANDARD).number if parsed.color else None
        bg = parsed.bgcolor.downgrade(ColorSystem.STANDARD).number if parsed.bgcolor else None
        return fg, bg

    red, blue = RED_4, next(i for i, f in enumerate(FACES) if f.colour is Colour.BLUE)
    assert standard(card_style(red))[1] == 1  # red (SGR 41), not yellow (43)
    assert standard(card_style(blue))[1] in (4, 12)  # blue or bright blue
    assert standard(card_style(BLOCK))[1] in (3, 11)  # action cards: yellow, not red
    word_red = colour_word(Colour.RED).split("]")[0].removeprefix("[")
    word_blue = colour_word(Colour.BLUE).split("]")[0].removeprefix("[")
    assert standard(word_red)[0] in (1, 9) and standard(word_blue)[0] in (4, 12)


def test_the_waiting_line_says_on_whom_and_how_long_as_the_issue_words_it() -> None:
    names = ("ana", "bob", "cy")
    # Bob is away (no heartbeat) on his turn: how long, and when the stand-in plays.
    assert wait_line([Wait(1, away=12.0, bot_in=8.0, left=40.0)], names, me=0) == \
        "waiting for bob — away 12 s, bot plays in 8 s"
    # The stand-in plays now.
    assert wait_line([Wait(1, away=30.0, bot_in=0.0)], names, me=0) == \
        "waiting for bob — away 30 s, a bot plays for them"
    # Present, on the turn clock: the others see his time, he sees his own.
    assert wait_line([Wait(1, left=25.0, bot_in=25.0)], names, me=0) == \
        "waiting for bob — 25 s left, then a bot plays"
    assert wait_line([Wait(1, left=25.0, bot_in=25.0)], names, me=1) == \
        "25 s left for you, then a bot plays"
    # No clock and nobody away: nothing to say.
    assert wait_line([Wait(1)], names, me=0) == ""
    # A silent host is said first, whoever the table waits for.
    assert wait_line([Wait(1, away=12.0, bot_in=8.0)], names, me=0, host_silent=6.0) == \
        "host not responding 6 s"


def test_a_block_window_on_your_own_pile_reads_your_pile_not_yous() -> None:
    from engine.rules import legal_actions
    from engine.state import Phase
    from tests.tui.states import NAMES, find, seat_view
    from tui.turn import Turn, why_not
    from tui.widgets.piles import SlotMap

    def mine(game: object) -> bool:
        state = game.state  # type: ignore[attr-defined]
        return state.phase == Phase.BLOCK_WINDOW and state.window is not None \
            and state.window.seat == 0

    view = seat_view(find(3, mine), 0)
    turn = Turn("friday", view, 0, NAMES[:3], legal_actions(view, 0),
                SlotMap().slots(view))
    assert view.window is not None
    pile = f"{view.window.pile.colour.title} pile {view.window.pile.name}"
    assert f"Block window on your {pile}" in plain(turn.status())
    assert f"the Block window on your {pile} is open" in plain(why_not(turn, "pick", []))
    assert "You's" not in plain(turn.status()) + plain(why_not(turn, "pick", []))


def test_a_spectator_without_a_name_is_a_spectator_once() -> None:
    from stacks.commands.peer import verdict_label as _verdict_label

    names = ["Ana", "Bo"]
    assert _verdict_label("seat 1", names) == "Bo, seat 2"  # counted from 1, as the lobby
    assert _verdict_label("seat 0", []) == "seat 1"
    assert _verdict_label("spectator spectator", names) == "a spectator"
    assert _verdict_label("spectator Cy", names) == "Cy (spectator)"


def test_game_over_offers_each_their_own_next_game() -> None:
    from tui.model import TableModel
    from tui.screens.gameover import GameOverScreen

    def keys(*, me: int | None, spectator: bool, hosting: bool) -> str:
        model = TableModel(table="friday", me=me, names=("Ana", "Bo"), spectator=spectator)
        return plain(GameOverScreen(model, hosting=hosting)._keys())

    assert keys(me=0, spectator=False, hosting=True).startswith("r play again")
    assert keys(me=1, spectator=False, hosting=False).startswith("r join the next game")
    watcher = keys(me=None, spectator=True, hosting=False)
    assert watcher.startswith("r watch the next game") and "join" not in watcher


def test_the_history_title_counts_lines_and_turns_in_their_number() -> None:
    from tui.history import Line
    from tui.screens.history import HistoryScreen

    one = HistoryScreen("friday", [Line(0, "deal"), Line(1, "Turn 1", header=True)])
    assert "2 lines, 1 turn ·" in one._title(), one._title()
    deal = HistoryScreen("friday", [Line(0, "deal")])
    assert "1 line, 0 turns ·" in deal._title(), deal._title()


def test_a_spectator_of_a_delayed_table_is_told_how_far_behind_it_is() -> None:
    waits = [Wait(1, away=12.0, bot_in=8.0)]  # the live table's: not the spectator's game
    assert wait_line(waits, ["ana", "bo"], None, behind=6.0) == "6 s behind the players"
    assert wait_line(waits, ["ana", "bo"], None, host_silent=5.0, behind=2.5) == \
        "2.5 s behind the players · host not responding 5 s"


def test_a_seat_without_a_name_is_counted_from_1() -> None:
    from tui.model import TableModel
    from tui.words import Narrator

    assert TableModel(table="t").name(0) == "Seat 1"
    assert "Seat 2" in Narrator(["Ana"], None).who(1)
