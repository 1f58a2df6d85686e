"""Classic Sequence bots: legal, from their own view, and in the order of their levels."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from engine.cards import HIDDEN
from engine.classic.actions import ExchangeDeadCard, PlaceChip, RemoveChip, SequenceAction
from engine.classic.board import WINDOW_OF, parse_cell
from engine.classic.bots import (
    DEFAULT_WIDTH,
    SEQUENCE_BOT_NAMES,
    HardSequenceBot,
    MediumSequenceBot,
    SequenceBot,
    make_sequence_bot,
)
from engine.classic.config import PLAYER_COUNTS
from engine.classic.game import SequenceGame
from engine.classic.lines import Board, spent_windows
from engine.classic.rules import legal_actions
from engine.classic.runner import SequenceTally, play_sequence_game
from engine.classic.scores import ranked, sequence_rewards
from engine.classic.search import SequenceGameForSearch, SequenceSampler
from engine.classic.state import SequenceState, default_teams
from engine.classic.views import view_for
from engine.rng import Rng
from engine.runner import game_seed
from tests.engine.scenario import SequenceCards, sequence_table


@pytest.mark.parametrize("name", SEQUENCE_BOT_NAMES)
@pytest.mark.parametrize("players", PLAYER_COUNTS)
def test_every_bot_plays_legal_games_to_the_end_at_every_player_count(
    name: str, players: int
) -> None:
    bots = [_make(name, bytes([s])) for s in range(players)]
    result = play_sequence_game(players, bots, game_seed(3, players), check=True)
    assert result.invariant_violations == 0
    assert result.termination == "win" and result.winner is not None


def _make(name: str, seed: bytes) -> SequenceBot:
    """A bot of the named level; ``hard`` with a small fixed search (a test's time)."""
    return make_sequence_bot(name, seed, iterations=3 if name == "hard" else None)


def _tally(players: int, names: tuple[str, str], games: int) -> SequenceTally:
    seats = tuple(names[s % 2] for s in range(players))
    tally = SequenceTally(players, default_teams(players), seats)
    for k in range(games):
        bots = [make_sequence_bot(n, game_seed(11, k) + bytes([s])) for s, n in enumerate(seats)]
        tally.add(play_sequence_game(players, bots, game_seed(11, k)))
    return tally


@pytest.mark.parametrize(("strong", "weak"), [("medium", "easy"), ("easy", "random")])
def test_each_level_beats_the_one_below_it(strong: str, weak: str) -> None:
    for players in (2, 4):
        wins = _tally(players, (strong, weak), 16).wins_by_bot()
        assert wins[strong] >= 12, (players, wins)  # measured: 26-29 of 30


def _bot_choice(name: str, state: SequenceState, seat: int = 0) -> SequenceAction:
    view = view_for(state, seat)
    bot = make_sequence_bot(name, b"t", iterations=40 if name == "hard" else None)
    return bot.choose(view, seat, legal_actions(view, seat))


@pytest.mark.parametrize("name", ["easy", "medium", "hard"])
def test_bots_make_the_sequence_one_card_makes(name: str) -> None:
    c = SequenceCards()
    card = c("6S")
    state = sequence_table(2, hands={0: [card]}, chips=dict.fromkeys(["B1", "C1", "D1", "E1"], 0))
    assert _bot_choice(name, state) == PlaceChip(0, card, parse_cell("F1"))


def test_medium_blocks_an_open_line_of_four() -> None:
    c = SequenceCards()
    card = c("6S")
    state = sequence_table(2, hands={0: [card]}, chips=dict.fromkeys(["B1", "C1", "D1", "E1"], 1))
    assert _bot_choice("medium", state) == PlaceChip(0, card, parse_cell("F1"))


def test_medium_breaks_a_line_of_four_it_cannot_block_with_a_one_eyed_jack() -> None:
    c = SequenceCards()
    jack = c("JS")
    hand = [jack, *c.many("2H", "3H", "4H", "5H", "6H", "7H")]
    # Green's B3..E3 plus F3 (5D) would win; we hold no 5D, and A3's 7C is ours already.
    chips = dict.fromkeys(["B3", "C3", "D3", "E3"], 1) | {"A3": 0}
    state = sequence_table(2, hands={0: hand}, chips=chips)
    choice = _bot_choice("medium", state)
    assert isinstance(choice, RemoveChip) and choice.cell in {
        parse_cell(n) for n in ("B3", "C3", "D3", "E3")
    }


def test_medium_keeps_a_two_eyed_jack_when_a_plain_card_does_as_well() -> None:
    c = SequenceCards()
    jack = c("JD")
    hand = [jack, *c.many("2H", "3H", "4H", "5H", "6H", "7H")]
    state = sequence_table(2, hands={0: hand})
    choice = _bot_choice("medium", state)
    assert isinstance(choice, PlaceChip) and choice.card != jack


@pytest.mark.parametrize("name", ["easy", "medium", "hard"])
def test_bots_turn_in_a_dead_card_first(name: str) -> None:
    c = SequenceCards()
    dead = c("5H")
    state = sequence_table(2, hands={0: [dead]}, chips={"E5": 1, "I7": 1})
    assert _bot_choice(name, state) == ExchangeDeadCard(0, dead)


def test_an_unknown_bot_is_refused_with_the_choices() -> None:
    with pytest.raises(ValueError, match="random, easy, medium, hard"):
        make_sequence_bot("grandmaster")


def _positions(players: int, count: int) -> list[tuple[SequenceState, int]]:
    """Host states along a game between medium bots, each with the seat to move."""
    game = SequenceGame.new(players, game_seed(8, players))
    bots = [make_sequence_bot("medium", bytes([s])) for s in range(players)]
    out: list[tuple[SequenceState, int]] = []
    while game.state.outcome is None and len(out) < count:
        state = game.state
        seat = state.current
        out.append((state.copy(), seat))
        view = view_for(state, seat)
        game.act(bots[seat].choose(view, seat, legal_actions(view, seat)))
    return out


def test_hard_samples_agree_with_the_view_and_deal_only_unseen_cards() -> None:
    for host, seat in _positions(2, 30)[::6]:
        view = view_for(host, seat)
        sampler = SequenceSampler(view)
        for k in range(3):
            sample = sampler.sample(random.Random(k))
            assert Counter(c for hand in sample.hands for c in hand) + Counter(
                sample.draw_pile) + Counter(c for pile in sample.discards for c in pile) \
                == Counter(host.deck)
            assert sample.hands[seat] == view.hands[seat]
            assert sample.discards == view.discards and sample.chips == view.chips
            for other in range(2):
                assert len(sample.hands[other]) == len(host.hands[other])
                assert HIDDEN not in sample.hands[other]
            assert len(sample.draw_pile) == len(host.draw_pile)


def test_hard_decides_the_same_with_the_same_seed_and_legally() -> None:
    def decisions(seed: bytes) -> list[SequenceAction]:
        chosen: list[SequenceAction] = []
        for host, seat in _positions(2, 12)[::3]:
            view = view_for(host, seat)
            legal = legal_actions(view, seat)
            action = HardSequenceBot(seed, iterations=10).choose(view, seat, legal)
            assert action in legal
            chosen.append(action)
        return chosen

    assert decisions(b"one") == decisions(b"one")


def test_hard_searches_the_given_number_of_iterations() -> None:
    host, seat = _positions(2, 1)[0]
    view = view_for(host, seat)
    bot = HardSequenceBot(b"n", iterations=17)
    bot.choose(view, seat, legal_actions(view, seat))
    assert bot.stats.iterations == 17


def test_hard_searches_only_the_spaces_that_matter_and_blocks_a_four_with_a_wild_jack() -> None:
    c = SequenceCards()
    jack = c("JD")
    hand = [jack, *c.many("2H", "3H", "4H", "6H", "7H", "8H")]
    # Green's B3..E3 wins on F3 (5D), which we don't hold; A3 (7C) is ours already.
    chips = dict.fromkeys(["B3", "C3", "D3", "E3"], 1) | {"A3": 0}
    state = sequence_table(2, hands={0: hand}, chips=chips)
    view = view_for(state, 0)
    legal = legal_actions(view, 0)
    assert len(legal) > 80  # the jack alone may take any of 88 empty spaces
    bot = HardSequenceBot(b"w", iterations=60)
    assert bot.choose(view, 0, legal) == PlaceChip(0, jack, parse_cell("F3"))
    assert DEFAULT_WIDTH is not None and bot.stats.choices == DEFAULT_WIDTH


def _beside_a_sequence() -> tuple[SequenceState, int, int]:
    """Blue's sequence B1..F1, Green's open four B3..E3; Blue holds 7S (G1, beside its
    sequence) and 5D (F3, Green's fifth space). The 7S and 5D ids come back too."""
    c = SequenceCards()
    seven, five = c("7S"), c("5D")
    hand = [seven, five, *c.many("2H", "3H", "4H", "6H", "8H")]
    ours = ["B1", "C1", "D1", "E1", "F1"]
    chips = dict.fromkeys(ours, 0) | dict.fromkeys(["B3", "C3", "D3", "E3"], 1)
    return sequence_table(2, hands={0: hand}, chips=chips, sequences=[(0, ours)]), seven, five


def test_the_windows_sharing_two_spaces_with_a_sequence_are_spent() -> None:
    state, _, _ = _beside_a_sequence()
    row = [parse_cell(f"{col}1") for col in "ABCDEFGHIJ"]
    # A1..E1 holds four of B1..F1's spaces, E1..I1 two, F1..J1 only F1 (a second sequence
    # may share one space): the first five windows of the row can make no sequence.
    assert {WINDOW_OF[tuple(row[s:s + 5])] for s in range(5)} <= spent_windows(state)
    assert WINDOW_OF[tuple(row[5:10])] not in spent_windows(state)
    assert not spent_windows(sequence_table(2, chips=dict.fromkeys(["B1", "C1"], 0)))


def test_hard_without_spent_windows_blocks_the_four_medium_leaves_for_a_void_line() -> None:
    state, seven, five = _beside_a_sequence()
    view = view_for(state, 0)
    legal = legal_actions(view, 0)
    # Medium counts C1..G1 as an open line of four: G1 "completes" it, a sequence the
    # rules won't register (it shares four spaces with B1..F1), and Green's four stays.
    assert MediumSequenceBot(b"m").choose(view, 0, legal) == PlaceChip(0, seven, parse_cell("G1"))
    for iterations in (1, 40):
        bot = HardSequenceBot(b"w", iterations=iterations, spent="mine")
        assert bot.choose(view, 0, legal) == PlaceChip(0, five, parse_cell("F3"))


def test_hard_with_opponents_playing_medium_searches_its_own_decisions_only() -> None:
    host, seat = _positions(2, 8)[-1]
    view = view_for(host, seat)
    legal = legal_actions(view, seat)

    def deciders(bot: HardSequenceBot) -> set[int]:
        bot.choose(view, seat, legal)
        root = bot._search.root
        assert root is not None
        seen: set[int] = set()
        stack = list(root.children.values())
        while stack:
            node = stack.pop()
            if node.visits > 1:
                seen.add(node.to_move)
            stack.extend(node.children.values())
        return seen

    assert deciders(HardSequenceBot(b"t", iterations=80)) == {0, 1}
    assert deciders(HardSequenceBot(b"t", iterations=80, opponents="policy")) == {seat}
    with pytest.raises(ValueError, match="opponent model"):
        HardSequenceBot(b"t", opponents="nobody")


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_searchs_kept_lines_score_as_medium_counts_them_afresh(players: int) -> None:
    """The search keeps each sample's lines up to date move by move (``Board``); after
    every move of random games (placements, and removals by one-eyed jacks) its scores of
    every legal action, and its rewards, are those worked out from the whole board."""
    rng = random.Random(players)
    search = SequenceGameForSearch(MediumSequenceBot(b"m"), Rng(b"tie"), width=None)
    checked = removals = 0
    for k in range(5):
        state = SequenceGame.new(players, game_seed(5, k)).state
        search.track(state, Board.of(state))
        while state.outcome is None:
            seat, legal = state.current, legal_actions(state, state.current)
            fresh = ranked(state, seat, legal)
            kept = ranked(state, seat, legal, search._board)
            assert kept == fresh
            assert search.rewards(state) == sequence_rewards(state)
            # Half medium's move (lines of four, sequences), half any legal one.
            move = fresh[0][1] if rng.random() < 0.5 else legal[rng.randrange(len(legal))]
            search.step(state, move, Rng(bytes([k, checked % 256])))
            checked += 1
            removals += isinstance(move, RemoveChip)
    assert checked > 150 and removals > 3, (checked, removals)


def test_a_playouts_move_taken_at_once_is_the_pruned_searchs_move() -> None:
    """``playout_action`` (the playout's step, with no sorting or pruning) picks what
    ``decider`` then ``playout`` pick, ties drawn alike from the same generator."""
    rng = random.Random(7)
    fast = SequenceGameForSearch(MediumSequenceBot(b"m"), Rng(b"tie"), width=DEFAULT_WIDTH)
    slow = SequenceGameForSearch(MediumSequenceBot(b"m"), Rng(b"tie"), width=DEFAULT_WIDTH)
    moves = ties = 0
    for k in range(8):
        state = SequenceGame.new(2, game_seed(6, k)).state
        fast.track(state, Board.of(state))
        while state.outcome is None:
            seat, legal = slow.decider(state)
            expected = slow.playout(state, seat, legal)
            assert fast.playout_action(state) == expected
            ties += len(legal) > 1 and slow._ranked[0][0] == slow._ranked[1][0]
            # Not always medium's move, so that the board fills in other ways too.
            move = expected if rng.random() < 0.7 else rng.choice(legal_actions(state, seat))
            fast.step(state, move, Rng(bytes([k, moves % 256])))
            moves += 1
    assert moves > 200 and ties > 10, (moves, ties)
