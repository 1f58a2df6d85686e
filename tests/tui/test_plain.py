"""Plain mode (tui/plain/): the typed commands, and the table told in numbered lines."""

from __future__ import annotations

from typing import Any

import pytest

from engine.actions import PlayCard, PlaySkip, StealCard
from engine.cards import FACES, Colour, Kind
from engine.classic.actions import PlaceChip
from engine.classic.board import cell_name
from engine.classic.cards import CODES as CLASSIC_CODES
from engine.classic.cards import FACES as CLASSIC_FACES
from engine.classic.cards import JackKind
from engine.classic.game import SequenceGame
from engine.classic.state import EMPTY
from engine.config import RulesConfig
from engine.events import (
    CardDiscarded,
    CardPlayed,
    ChipAwarded,
    PileCleared,
    PileCompleted,
    TurnStarted,
)
from engine.game import Game
from engine.state import NEW_PILE, Phase, Zone
from netplay.playing.notices import Applied, ChatLine, GameStarted, Joined, Rejected
from tui.plain.commands import Command, CommandError, parse
from tui.plain.table import PlainTable
from tui.plain.words import plain


def card(code: str) -> int:
    return next(i for i, f in enumerate(FACES) if f.code == code)


def kind(wanted: Kind) -> int:
    return next(i for i, f in enumerate(FACES) if f.kind is wanted)


# -- the parser ---------------------------------------------------------------------------------


@pytest.mark.parametrize(("line", "command"), [
    ("play 3 on a", Command("play", 3, where="a")),
    ("PLAY 3 a", Command("play", 3, where="a")),
    ("play 0 on new", Command("play", 0, where="new")),
    ("play 4 from Bot 2 hand", Command("play", 4, zone="hand", target="bot 2")),
    ("play 4 steal from bob's discard", Command("play", 4, zone="discard", target="bob")),
    ("play 5 from d red", Command("play", 5, colour="red", target="d")),
    ("play 2 at E5", Command("play", 2, where="e5")),
    ("play 2", Command("play", 2)),
    ("discard 2", Command("discard", 2)),
    ("dead 1", Command("dead", 1)),
    ("block", Command("block")),
    ("  pass ", Command("pass")),
    ("end", Command("end")),
    ("exit", Command("quit")),
    ("?", Command("help")),
    ("say well played [b]!", Command("say", text="well played [b]!")),
])
def test_a_typed_line_is_read_as_its_command(line: str, command: Command) -> None:
    assert parse(line) == command


@pytest.mark.parametrize(("line", "words"), [
    ("dance", "I don't know 'dance'. Type help"),
    ("play", "Play which card? Give its number"),
    ("play R4", "Play which card?"),
    ("discard 2 on a", "Discard takes only the card's number: discard 2."),
    ("block now", "block needs nothing after it"),
    ("play 3 on a c", "Two places (a and c)"),
    ("say", "Say what?"),
])
def test_a_line_that_is_no_command_gets_a_sentence(line: str, words: str) -> None:
    with pytest.raises(CommandError, match=words.replace("?", r"\?").replace("(", r"\(")
                       .replace(")", r"\)").replace(".", r"\.")):
        parse(line)


@pytest.mark.parametrize(("line", "words"), [
    ("play ²", "Play which card? Give its number"),  # str.isdigit takes it, int refuses
    ("discard ¹", "Discard which card? Give its number"),
    ("play \uff11\uff12", "Play which card? Give its number"),  # full-width digits
    ("play " + "5" * 5000, "There is no card 5555…: a card's number is its place"),
    ("x" * 3000, "I don't know 'xxxxxxxxxxxxxxxxxxxx…'."),
], ids=["superscript-two", "superscript-one", "full-width", "5000-digits", "a-long-word"])
def test_a_number_that_is_no_card_number_gets_a_short_sentence(line: str, words: str) -> None:
    with pytest.raises(CommandError) as caught:
        parse(line)
    assert str(caught.value).startswith(words) and len(str(caught.value)) < 200, caught.value


def test_an_odd_number_typed_at_the_table_is_answered_in_words() -> None:
    told = Told()
    view = _stacks_table(told)
    _my_turn(view, [card("R1"), kind(Kind.STEAL_CARD)])
    for line in ("play ²", "discard ¹", "play 2 from ²", "play 2 from seat " + "9" * 5000,
                 "play " + "1" * 5000):
        told.lines.clear()
        assert told.table.line(line) is True
        said = told.words()
        assert said and all(len(w) < 200 and "went wrong" not in w for w in said), said


def test_a_line_too_long_is_refused_unread_and_the_next_line_is_read() -> None:
    import io

    from tui.plain.run import MAX_LINE, LongLine, typed_lines

    lines = list(typed_lines(io.StringIO("hand\n" + "x" * (MAX_LINE * 300) + "\nseats\n"
                                         + "y" * MAX_LINE + "\n" + "z" * (MAX_LINE + 1))))
    assert lines == ["hand\n", LongLine(MAX_LINE * 300), "seats\n", "y" * MAX_LINE + "\n",
                     LongLine(MAX_LINE + 1)]


def test_plain_takes_the_markup_and_the_card_padding_off() -> None:
    from tui import words

    assert plain(f"[b]You[/] played{words.card(card('R4'))}on [bold red]Red[/] pile a") == \
        "You played R4 on Red pile a"
    assert plain("[b]unclosed[/i] tag") == "unclosed tag"  # bad markup: still words


# -- the table in lines -------------------------------------------------------------------------


class Told:
    """A plain table whose lines and actions are kept."""

    def __init__(self, game: str = "stacks") -> None:
        self.lines: list[str] = []
        self.sent: list[Any] = []
        self.table = PlainTable("friday", send=self.sent.append,
                                later=lambda _s, f: self.sent.append(("later", f)),
                                write=self.lines.append, block_window=3.0)
        self.table.game = game

    def words(self) -> list[str]:
        return [line.split(". ", 1)[1] for line in self.lines]


def _stacks_table(told: Told) -> Any:
    game = Game.new(2, b"plain", RulesConfig())
    view = game.view(0)
    told.table.notice(Joined(0))
    told.table.notice(GameStarted(("Ana", "Bob")), view)
    return view


def test_every_event_is_said_once_in_order_each_line_numbered() -> None:
    told = Told()
    view = _stacks_table(told)
    view.current = 1  # Bob's turn, as the events say
    r1, r4 = card("R1"), card("R4")
    told.table.notice(Applied(1, None, (
        TurnStarted(1),
        CardPlayed(1, r1, Zone.HAND, 0, True),
        CardDiscarded(1, r4),
    )), view)
    told.table.notice(Applied(2, None, (
        PileCompleted(1, 0, False, ()), PileCleared(0), ChipAwarded(1, Colour.RED),
    )), view)
    told.table.notice(ChatLine("Bob", "hi [b]there"), view)
    numbers = [int(line.split(".", 1)[0]) for line in told.lines]
    assert numbers == list(range(1, len(told.lines) + 1))
    said = told.words()
    start = said.index("Turn 1: Bob's turn")
    assert said[start:] == [
        "Turn 1: Bob's turn",
        "Bob started Red pile a with R1",
        "Bob discarded R4",
        "Bob completed Red pile a",
        "Red pile a goes out of play",
        "Bob took a Red chip",
        "Bob says: hi [b]there",
    ]
    assert "The game of Sequence Stacks starts. Seats: 1 You, 2 Bob." in said
    assert "You sit in seat 1. Waiting for the game to start." in said


def test_your_own_chat_comes_back_as_yours_not_under_the_os_users_name() -> None:
    said: list[str] = []
    told = Told()
    told.table.say_chat = said.append
    game = Game.new(2, b"plain", RulesConfig())
    told.table.notice(Joined(0))
    told.table.notice(GameStarted(("root", "Bob")), game.view(0))
    told.table.line("say well played [b]!")
    assert said == ["well played [b]!"]
    told.table.notice(ChatLine("root", "well played [b]!"))  # the table's echo of it
    assert told.words()[-1] == "You say: well played [b]!"
    told.table.notice(ChatLine("Bob", "well played [b]!"))
    assert told.words()[-1] == "Bob says: well played [b]!"
    told.table.notice(ChatLine("root", "well played [b]!"))  # said once: no echo pending
    assert told.words()[-1] == "root says: well played [b]!"


def test_the_end_says_each_seats_chips_by_colour_the_winner_first() -> None:
    from engine.events import GameOver
    from engine.state import Outcome, Termination

    told = Told()
    game = Game.new(3, b"plain", RulesConfig())
    view = game.view(0)
    told.table.notice(Joined(0))
    told.table.notice(GameStarted(("Ana", "Bob", "Cy")), view)
    view.chips = [[2, 1], [0, 0], [3, 2]]
    view.outcome = Outcome(Termination.WIN, 2)
    told.lines.clear()
    told.table.notice(Applied(1, None, (GameOver(Termination.WIN, 2),)), view)
    assert told.words() == [
        "Game over: Cy wins",
        "Chips, the winner first:",
        "Cy: 3 red, 2 blue (the winner).",
        "You: 2 red, 1 blue.",
        "Bob: no chips.",
    ]


def test_the_end_of_classic_sequence_says_each_teams_sequences_the_winner_first() -> None:
    from engine.classic.events import GameOver
    from engine.state import Outcome, Termination

    told = Told("sequence")
    view = SequenceGame.new(2, b"plain", None).view(0)
    told.table.notice(Joined(0))
    told.table.notice(GameStarted(("Ana", "Bob")), view)
    view.outcome = Outcome(Termination.WIN, 1)
    told.lines.clear()
    told.table.notice(Applied(1, None, (GameOver(Termination.WIN, 1),)), view)
    said = told.words()
    assert said[1] == "Sequences, the winner first:", said
    assert said[2].endswith("(Bob): 0 of 2 sequences (the winner)."), said
    assert said[3].endswith("(You): 0 of 2 sequences."), said


def test_a_card_played_from_a_discard_says_whose_discard() -> None:
    told = Told()
    view = _stacks_table(told)
    told.lines.clear()
    told.table.notice(Applied(1, None, (
        CardPlayed(1, card("R1"), Zone.DISCARD, 0, True),
        CardPlayed(0, card("R2"), Zone.DISCARD, 0, False),
    )), view)
    assert told.words()[:2] == ["Bob started Red pile a with R1 from Bob's discard",
                                "You played R2 on Red pile a from your discard"]


def _my_turn(view: Any, hand: list[int]) -> None:
    view.phase = Phase.PLAY
    view.current = 0
    view.hands[0] = hand
    view.piles = []
    view.plays_this_turn = 0
    view.discards[1] = [card("B2")]


def test_typed_moves_become_actions_and_a_wrong_one_gets_the_engines_reason() -> None:
    told = Told()
    view = _stacks_table(told)
    r1, b3, skip, steal = card("R1"), card("B3"), kind(Kind.SKIP), kind(Kind.STEAL_CARD)
    _my_turn(view, [r1, b3, skip, steal])
    table = told.table
    told.lines.clear()
    table.line("moves")
    assert told.words()[-1].startswith("Moves: play 1 on new; play 3 (Skip); play 4 from Bob")
    table.line("play 2 on new")
    assert told.words()[-1] == "Blue 3 can't start a pile: a pile starts with a 1 or a wild."
    table.line("play 9 on new")
    assert told.words()[-1] == "You hold 4 cards: 9 is not one of them (hand lists them)."
    table.line("play 1 on c")
    assert told.words()[-1] == "There is no pile c: no pile is open (or new for a new pile)."
    assert told.sent == []
    table.line("play 1 on new")
    table.line("play 3")
    assert told.sent == [PlayCard(0, r1, NEW_PILE), PlaySkip(0, skip)]
    # A steal asks what the command left open; "discard" answers it (not a discard).
    table.line("play 4")
    assert told.words()[-1] == "From Bob's hand (a random card) or discard top?"
    table.line("discard")
    assert told.sent[-1] == StealCard(0, steal, 1, Zone.DISCARD)
    table.line("play 4 from zed")
    assert told.words()[-1] == "Nobody called 'zed' here: Bob."
    table.line("block")
    assert told.words()[-1] == "There is no completed pile to block now."
    table.line("dance")
    assert told.words()[-1] == "I don't know 'dance'. Type help for the commands."
    view.current = 1
    table.line("play 1 on new")
    assert told.words()[-1] == "Not your turn: Bob is playing."
    assert len(told.sent) == 3
    assert table.line("quit") is False


def test_a_refused_block_and_a_refused_move_are_said() -> None:
    told = Told()
    view = _stacks_table(told)
    _my_turn(view, [card("R1")])
    told.table.line("play 1 on new")
    told.table.notice(Rejected("not your turn"), view)
    assert told.words()[-1] == "The host refused that: not your turn."


def test_a_spectator_is_told_it_plays_nothing() -> None:
    told = Told()
    game = Game.new(2, b"plain", RulesConfig())
    told.table.notice(Joined(None))
    told.table.notice(GameStarted(("Ana", "Bob")), game.view(0))
    told.table.line("play 1 on new")
    assert told.words()[-1] == "You are watching: only the players play."
    told.table.line("hand")
    assert told.words()[-1] == "You are watching: you hold no cards."


def test_classic_sequence_plays_a_card_at_a_board_space() -> None:
    told = Told("sequence")
    game = SequenceGame.new(2, b"plain", None)
    view = game.view(0)
    told.table.notice(Joined(0))
    told.table.notice(GameStarted(("Ana", "Bob")), view)
    plain_card = next(c for c in range(len(CLASSIC_FACES))
                      if CLASSIC_FACES[c].jack is JackKind.NONE)
    two_eyed = next(c for c in range(len(CLASSIC_FACES))
                    if CLASSIC_FACES[c].jack is JackKind.TWO_EYED)
    view.current = 0
    view.hands[0] = [plain_card, two_eyed]
    spaces = [s for s in view.board.spaces[CLASSIC_CODES[plain_card]] if view.chips[s] == EMPTY]
    assert len(spaces) == 2
    told.table.line("play 1")
    assert told.words()[-1] == (f"At which space: {cell_name(spaces[0])} or "
                                f"{cell_name(spaces[1])}? Type the space, e.g. "
                                f"{cell_name(spaces[0])}.")
    told.table.line("play 1 at A1")
    assert told.words()[-1] == "A1 is a free corner: it never takes a chip."
    told.table.line("play 1 at K4")
    assert told.words()[-1] == "K4 is not a board space: they go from A1 to J10."
    told.table.line(cell_name(spaces[1]).lower())
    assert told.sent == []  # the question was dropped by the lines between
    told.table.line("play 1")
    told.table.line(cell_name(spaces[1]))
    assert told.sent == [PlaceChip(0, plain_card, spaces[1])]
    told.table.line("pass")
    assert told.words()[-1] == "At this table a player who can't play discards a card."


def _window(view: Any, hand: list[int]) -> None:
    from engine.state import BlockWindow, Pile

    pile = Pile(0, Colour.RED, [card(f"R{n}") for n in range(1, 6)], "a")
    view.phase = Phase.BLOCK_WINDOW
    view.current = 1
    view.hands[0] = hand
    view.window = BlockWindow(pile, 1, False, (0,))


def test_a_block_window_asks_a_player_holding_a_block_once_and_block_blocks() -> None:
    """The completion is said once, as the question, the question first."""
    from engine.actions import Block

    told = Told()
    view = _stacks_table(told)
    block = kind(Kind.BLOCK)
    _window(view, [card("B2"), block])
    told.lines.clear()
    told.table.notice(Applied(1, None, (PileCompleted(1, 0, False, (0,)),)), view)
    assert told.words() == ["Block Bob's Red pile a? block or pass, 3 s"]
    told.table.line("play 1 on new")
    assert told.words()[-1] == "Wait: the Block window on Bob's Red pile a is open."
    told.table.line("block")
    assert told.sent == [Block(0, block)]


def test_a_block_window_passes_by_itself_for_a_player_without_a_block() -> None:
    from engine.actions import PassBlock

    told = Told()
    view = _stacks_table(told)
    _window(view, [card("B2")])
    told.lines.clear()
    told.table.notice(Applied(1, None, (PileCompleted(1, 0, False, (0,)),)), view)
    assert told.words() == ["Bob completed pile a — Block window open"]  # nothing to ask
    assert len(told.sent) == 1 and told.sent[0][0] == "later"
    told.sent[0][1]()  # the short pause is over
    assert told.sent[-1] == PassBlock(0)


def test_the_block_question_says_the_window_the_table_announces() -> None:
    """A joiner knows the window only from the announcement; a host may lengthen it before
    the deal (for a seat in plain mode), and the question says the new seconds."""
    from netplay.playing.notices import TableSeen

    lines: list[str] = []
    table = PlainTable("friday", send=lambda _a: None, later=lambda _s, _f: None,
                       write=lines.append)
    table.notice(TableSeen({"block_window": 3.0, "variant": "stacks"}))
    assert table.block_window == 3.0
    table.notice(TableSeen({"block_window": 10.0, "variant": "stacks"}))
    assert lines[-1].endswith("The host made the Block window 10 s.")
    table.notice(TableSeen({"block_window": "long"}))  # an odd announcement changes nothing
    told = Told()
    told.table = table
    table.write = told.lines.append
    view = _stacks_table(told)
    _window(view, [card("B2"), kind(Kind.BLOCK)])
    told.lines.clear()
    table.notice(Applied(1, None, (PileCompleted(1, 0, False, (0,)),)), view)
    assert told.words() == ["Block Bob's Red pile a? block or pass, 10 s"]
