"""RULES.md §1.1 components, §1.2 players and setup, A1-A3."""

from __future__ import annotations

from collections import Counter

import pytest

from engine.actions import Discard, PlayCard, PlaySkip
from engine.cards import (
    CARDS_BY_KIND,
    DECK_SIZE,
    FACES,
    HIDDEN,
    Colour,
    Kind,
    TwoPlayerDeck,
    deck_for,
    removed_for_two_players,
)
from engine.config import RulesConfig
from engine.errors import ConfigError, IllegalActionError
from engine.events import CardsDrawn, DrawPileFormed, TurnStarted
from engine.reducer import apply
from engine.rng import Rng
from engine.rules import deal
from engine.state import NEW_PILE, Phase, State
from engine.views import view_for
from tests.engine.scenario import SEED, Cards, act, illegal, of_type, one, pile, table


def _kinds(cards: object) -> Counter[Kind]:
    assert isinstance(cards, tuple | list | frozenset)
    return Counter(FACES[c].kind for c in cards)


def test_1_1_deck_has_120_cards_with_the_stated_counts() -> None:
    assert DECK_SIZE == 120
    counts = Counter(f.code for f in FACES)
    for colour in "RB":
        for rank in range(1, 6):
            assert counts[f"{colour}{rank}"] == 9
        assert counts[f"{colour}W"] == 7
    assert counts["SKIP"] == 3
    assert counts["REV"] == 3
    assert counts["STEAL_CARD"] == 3
    assert counts["BLOCK"] == 3
    assert counts["STEAL_CHIP"] == 4


def test_1_1_card_id_layout() -> None:
    for rank in range(1, 6):
        for copy in range(9):
            assert FACES[(rank - 1) * 9 + copy].code == f"R{rank}"
            assert FACES[52 + (rank - 1) * 9 + copy].code == f"B{rank}"
    assert CARDS_BY_KIND[Kind.WILD] == (*range(45, 52), *range(97, 104))
    assert CARDS_BY_KIND[Kind.SKIP] == (104, 105, 106)
    assert CARDS_BY_KIND[Kind.REVERSE] == (107, 108, 109)
    assert CARDS_BY_KIND[Kind.STEAL_CARD] == (110, 111, 112)
    assert CARDS_BY_KIND[Kind.BLOCK] == (113, 114, 115)
    assert CARDS_BY_KIND[Kind.STEAL_CHIP] == (116, 117, 118, 119)


def test_1_1_chip_supply_is_20_red_and_20_blue() -> None:
    state = State.new(RulesConfig(), 4)
    assert state.supply == [20, 20]
    assert state.chips == [[0, 0]] * 4


def test_1_1_chips_per_colour_setting_sizes_the_supply() -> None:
    state = State.new(RulesConfig(chips_per_colour=3), 3)
    assert state.supply == [3, 3]


def test_1_1_wilds_are_coloured_and_only_go_on_their_own_colour() -> None:
    assert {FACES[c].colour for c in CARDS_BY_KIND[Kind.WILD]} == {Colour.RED, Colour.BLUE}
    c = Cards()
    bw = c("BW")
    state = table(hands={1: [bw, c("B2")]}, piles=[pile(0, Colour.RED, [c("R1")])])
    illegal(state, PlayCard(1, bw, 0), "Blue wild", "colours differ")


def test_A2_action_cards_are_colourless_and_never_go_on_a_pile() -> None:
    for kind in (Kind.SKIP, Kind.REVERSE, Kind.STEAL_CARD, Kind.BLOCK, Kind.STEAL_CHIP):
        assert all(FACES[c].colour is None for c in CARDS_BY_KIND[kind])
    c = Cards()
    skip = c("SKIP")
    state = table(hands={1: [skip, c("R2")]}, piles=[pile(0, Colour.RED, [c("R1")])])
    illegal(state, PlayCard(1, skip, 0), "Skip", "action card")
    illegal(state, PlayCard(1, skip, NEW_PILE), "action card")


def test_A3_nine_copies_of_each_number_per_colour() -> None:
    numbers = Counter(FACES[c].code for c in CARDS_BY_KIND[Kind.NUMBER])
    assert len(numbers) == 10
    assert set(numbers.values()) == {9}


@pytest.mark.parametrize("players", [1, 7])
def test_1_2_1_tables_are_for_2_to_6_players(players: int) -> None:
    with pytest.raises(ConfigError, match="2-6 players"):
        State.new(RulesConfig(), players)


@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_1_2_2_three_to_six_players_use_all_120_cards(players: int) -> None:
    state = State.new(RulesConfig(), players)
    assert sorted(state.deck) == list(range(120))


def test_1_2_3_A1_two_players_default_removes_the_GH_list_and_keeps_reverses() -> None:
    state = State.new(RulesConfig(), 2)
    assert len(state.deck) == 115
    removed = set(range(120)) - set(state.deck)
    assert _kinds(frozenset(removed)) == Counter(
        {Kind.BLOCK: 1, Kind.STEAL_CHIP: 2, Kind.STEAL_CARD: 1, Kind.SKIP: 1}
    )
    assert _kinds(state.deck)[Kind.REVERSE] == 3


def test_A1_two_player_GR_reading_also_removes_all_reverses() -> None:
    state = State.new(RulesConfig(two_player_deck=TwoPlayerDeck.GR), 2)
    assert len(state.deck) == 112
    assert _kinds(frozenset(removed_for_two_players(TwoPlayerDeck.GR))) == Counter(
        {Kind.BLOCK: 1, Kind.STEAL_CHIP: 2, Kind.STEAL_CARD: 1, Kind.SKIP: 1, Kind.REVERSE: 3}
    )
    assert _kinds(state.deck)[Kind.REVERSE] == 0


def test_A1_two_player_FULL_reading_removes_nothing() -> None:
    state = State.new(RulesConfig(two_player_deck=TwoPlayerDeck.FULL), 2)
    assert sorted(state.deck) == list(range(120))


def test_A1_removals_apply_only_to_two_players() -> None:
    for variant in TwoPlayerDeck:
        assert len(deck_for(3, variant)) == 120


def test_1_2_4_deal_gives_five_cards_each_from_the_top_and_the_rest_is_the_draw_pile() -> None:
    state = State.new(RulesConfig(), 4)
    events = deal(state, Rng(SEED))
    order = list(one(events, DrawPileFormed).cards)
    expected = list(range(120))
    Rng(SEED).shuffle(expected)
    assert order == expected
    drawn = of_type(events, CardsDrawn)
    assert [d.seat for d in drawn] == [0, 1, 2, 3]
    for i, d in enumerate(drawn):
        # The top of the pile is the end of the list: seat 0 gets the last five.
        assert d.cards == tuple(reversed(order[len(order) - 5 * (i + 1) : len(order) - 5 * i]))
        assert state.hands[i] == list(d.cards)
    assert len(state.draw_pile) == 100
    assert state.draw_pile == order[:100]
    assert state.phase == Phase.PLAY


def test_1_2_4_two_player_deal_uses_the_reduced_deck() -> None:
    state = State.new(RulesConfig(), 2)
    deal(state, Rng(SEED))
    assert [len(h) for h in state.hands] == [5, 5]
    assert len(state.draw_pile) == 105


def test_1_2_4_hand_size_setting_changes_the_deal() -> None:
    state = State.new(RulesConfig(hand_size=7), 3)
    deal(state, Rng(SEED))
    assert [len(h) for h in state.hands] == [7, 7, 7]


def test_A26_the_dealer_is_drawn_from_the_seed_and_its_left_neighbour_starts() -> None:
    for players in (2, 3, 6):
        for seed in (SEED, b"other", b"third"):
            rng = Rng(seed)
            rng.shuffle(list(State.new(RulesConfig(), players).deck))
            dealer = rng.below(players)  # drawn right after the shuffle
            state = State.new(RulesConfig(), players)
            events = deal(state, Rng(seed))
            assert events[-1] == TurnStarted((dealer + 1) % players)
            assert state.dealer == dealer
            assert state.current == (dealer + 1) % players
            assert state.direction == 1


def test_A26_every_seat_deals_and_starts_about_equally_often() -> None:
    players, games = 4, 800
    starts = [0] * players
    for i in range(games):
        state = State.new(RulesConfig(), players)
        deal(state, Rng(i.to_bytes(4, "big")))
        starts[state.current] += 1
    # Each seat expects 200; 3.5 standard deviations (~12.2) either way is chance.
    assert all(abs(count - games / players) < 43 for count in starts), starts


def test_A26_a_given_dealer_passes_the_start_to_its_left() -> None:
    for dealer in range(4):
        state = State.new(RulesConfig(), 4)
        deal(state, Rng(SEED), dealer)
        assert state.dealer == dealer
        assert state.current == (dealer + 1) % 4
    with pytest.raises(IllegalActionError, match="no seat 4"):
        deal(State.new(RulesConfig(), 4), Rng(SEED), 4)


def test_A26_views_know_the_dealer() -> None:
    state = State.new(RulesConfig(), 3)
    events = deal(state, Rng(SEED))
    view = State.new(RulesConfig(), 3)
    view.audience = 0
    for event in events:
        apply(view, event.redacted_for(0))
    assert view.dealer == state.dealer


def test_1_2_6_first_player_setting_picks_the_starting_seat() -> None:
    state = State.new(RulesConfig(first_player=0), 3)
    deal(state, Rng(SEED))
    assert state.current == 0
    state = State.new(RulesConfig(first_player=2), 3)
    deal(state, Rng(SEED))
    assert state.current == 2
    with pytest.raises(ConfigError, match="first_player"):
        State.new(RulesConfig(first_player=3), 3)


def test_1_2_6_play_goes_left_at_first() -> None:
    c = Cards()
    r3 = c("R3")
    state = table(4, hands={1: [r3, *c.many("R4", "R5", "B4", "B5")]})
    events = act(state, Discard(1, r3))
    assert events[-1] == TurnStarted(2)
    assert state.current == 2


def test_1_3_hands_and_the_draw_pile_are_hidden_discards_and_piles_are_public() -> None:
    c = Cards()
    hand1, hand2 = c.many("R1", "BW"), c.many("B2", "SKIP")
    discard2 = c.many("R5", "B4")
    state = table(
        hands={1: hand1, 2: hand2},
        discards={2: discard2},
        piles=[pile(0, Colour.RED, [c("R1")])],
        chips={2: (1, 0)},
    )
    view = view_for(state, 1)
    assert view.hands[1] == hand1
    assert view.hands[2] == [HIDDEN, HIDDEN]
    assert set(view.draw_pile) == {HIDDEN}
    assert len(view.draw_pile) == len(state.draw_pile)
    assert view.discards[2] == discard2
    assert view.piles[0].cards == state.piles[0].cards
    assert view.chips == state.chips
    assert view.supply == [19, 20]


def test_1_2_deal_can_happen_only_once_and_play_needs_a_deal() -> None:
    state = State.new(RulesConfig(), 3)
    skip = CARDS_BY_KIND[Kind.SKIP][0]
    illegal(state, PlaySkip(1, skip), "not been dealt")
    deal(state, Rng(SEED))
    with pytest.raises(ValueError, match="already been dealt"):
        deal(state, Rng(SEED))
