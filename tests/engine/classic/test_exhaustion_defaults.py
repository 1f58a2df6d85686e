"""RULES.md §3.5 (deck exhaustion) and every engine DEFAULT of §3.6."""

from __future__ import annotations

import pytest

from engine.classic.actions import (
    DiscardUnplayable,
    ExchangeDeadCard,
    PassTurn,
    PlaceChip,
    RemoveChip,
)
from engine.classic.board import CORNERS, cell_name, parse_cell
from engine.classic.config import HAND_SIZES, PLAYER_COUNTS, NoPlay, SequenceConfig
from engine.classic.events import (
    CardDiscarded,
    CardsDrawn,
    DeadCardExchanged,
    GameOver,
    Reshuffled,
    TurnPassed,
)
from engine.classic.game import SequenceGame
from engine.classic.rules import legal_actions
from engine.classic.views import view_for
from engine.rng import Rng
from engine.state import SPECTATOR, Termination
from tests.engine.scenario import (
    CLASSIC_SEED,
    SequenceCards,
    act,
    illegal,
    one,
    sequence_table,
    types,
)

E5 = parse_cell("E5")


# -- §3.5 deck exhaustion ------------------------------------------------------------------


def test_deck_exhaustion_shuffles_every_discard_pile_into_a_new_draw_pile() -> None:
    c = SequenceCards()
    card, mine = c("5H"), c("2S")
    # Nothing left to draw: the cards nobody holds lie on seat 1's discard pile.
    state = sequence_table(2, hands={0: [card]}, discards={0: [mine]}, rest=1)
    assert state.draw_pile == []
    pool = [*state.discards[0], card, *state.discards[1]]
    events = act(state, PlaceChip(0, card, E5))
    assert types(events)[:3] == ["ChipPlaced", "Reshuffled", "CardsDrawn"]
    expected = list(pool)  # seat 0's pile (the card just played on top), then seat 1's
    Rng(CLASSIC_SEED).shuffle(expected)
    assert one(events, Reshuffled).cards == tuple(expected)
    assert one(events, CardsDrawn).cards == (expected[-1],)
    assert state.discards == [[], []]
    assert len(state.draw_pile) == len(pool) - 1


def test_reshuffled_cards_are_hidden_from_every_player() -> None:
    c = SequenceCards()
    card = c("5H")
    state = sequence_table(2, hands={0: [card]}, rest=1)
    events = act(state, PlaceChip(0, card, E5))
    shuffled = one(events, Reshuffled)
    assert set(shuffled.redacted_for(1).cards) == {-1}
    assert set(shuffled.redacted_for(SPECTATOR).cards) == {-1}


def test_a_dead_card_turned_in_on_an_empty_draw_pile_joins_the_reshuffle() -> None:
    c = SequenceCards()
    dead = c("5H")
    state = sequence_table(2, hands={0: [dead]}, chips={"E5": 1, "I7": 1}, rest=1)
    events = act(state, ExchangeDeadCard(0, dead))
    assert dead in one(events, Reshuffled).cards


@pytest.mark.parametrize("players", PLAYER_COUNTS)
def test_cards_live_in_three_places_and_hands_hold_14_to_36_cards(players: int) -> None:
    game = SequenceGame.new(players, CLASSIC_SEED)
    state = game.state
    held = sum(len(hand) for hand in state.hands)
    assert held == players * HAND_SIZES[players] and 14 <= held <= 36
    assert len(state.draw_pile) + held + sum(len(d) for d in state.discards) == 104
    assert state.draw_pile  # the draw and discard piles are never both empty


# -- §3.6 defaults -------------------------------------------------------------------------


def test_one_eyed_jack_with_no_removable_opponent_chip_cannot_be_played_and_is_not_dead() -> None:
    c = SequenceCards()
    jack = c("JS")
    # Only own chips and an opponent chip locked in a sequence.
    chips = {"C3": 0} | dict.fromkeys(["B1", "C1", "D1", "E1", "F1"], 1)
    state = sequence_table(2, hands={0: [jack]}, chips=chips,
                           sequences=[(1, ["B1", "C1", "D1", "E1", "F1"])])
    assert not any(a.card == jack for a in legal_actions(state, 0) if hasattr(a, "card"))
    illegal(state, RemoveChip(0, jack, parse_cell("C1")), "completed sequence")
    illegal(state, ExchangeDeadCard(0, jack), "never dead")


def _full_board(team: int) -> dict[str, int]:
    return {cell_name(c): team for c in range(100) if c not in CORNERS}


def test_two_eyed_jack_with_no_empty_space_cannot_be_played() -> None:
    c = SequenceCards()
    jack = c("JD")
    others = c.many("2S", "3S", "4S", "5S", "6S", "7S")
    state = sequence_table(2, hands={0: [jack, *others]}, chips=_full_board(1))
    state.exchanges = 1  # the dead-card exchange of this turn is used up
    illegal(state, PlaceChip(0, jack, parse_cell("B2")), "already holds")
    assert legal_actions(state, 0) == [DiscardUnplayable(0, x) for x in state.hands[0]]


def test_no_legal_play_discards_one_card_with_no_effect_then_draws() -> None:
    # Ten players hold three cards: three one-eyed jacks on an empty board play nothing.
    c = SequenceCards()
    jacks = c.many("JS", "JS", "JH")
    top = c("2S")
    state = sequence_table(10, hands={0: jacks}, draw=[top])
    assert legal_actions(state, 0) == [DiscardUnplayable(0, j) for j in jacks]
    chips = list(state.chips)
    events = act(state, DiscardUnplayable(0, jacks[1]))
    assert types(events) == ["CardDiscarded", "CardsDrawn", "TurnEnded", "TurnStarted"]
    assert one(events, CardDiscarded).card == jacks[1]
    assert state.discards[0] == [jacks[1]] and top in state.hands[0]
    assert state.chips == chips
    assert state.current == 1


def test_no_legal_play_waits_for_the_dead_card_exchange_first() -> None:
    c = SequenceCards()
    dead = c("5H")
    jacks = c.many("JS", "JH")
    state = sequence_table(10, hands={0: [dead, *jacks]}, chips={"E5": 0, "I7": 0})
    assert legal_actions(state, 0) == [ExchangeDeadCard(0, dead)]
    illegal(state, DiscardUnplayable(0, jacks[0]), "dead card to turn in")


def test_no_legal_play_pass_setting() -> None:
    c = SequenceCards()
    jacks = c.many("JS", "JS", "JH")
    config = SequenceConfig(no_play=NoPlay.PASS)
    state = sequence_table(10, config=config, hands={0: jacks})
    assert legal_actions(state, 0) == [PassTurn(0)]
    illegal(state, DiscardUnplayable(0, jacks[0]), "passes")
    before = list(state.hands[0])
    events = act(state, PassTurn(0))
    assert types(events) == ["TurnPassed", "TurnEnded", "TurnStarted"]
    assert one(events, TurnPassed).seat == 0
    assert state.hands[0] == before
    default = sequence_table(10, hands={0: c.many("JH")})
    illegal(default, PassTurn(0), "discards a card")


def test_max_turns_guard_ends_the_game_as_a_draw() -> None:
    c = SequenceCards()
    card = c("5H")
    state = sequence_table(2, config=SequenceConfig(max_turns=7), hands={0: [card]}, turn=7)
    events = act(state, PlaceChip(0, card, E5))
    assert one(events, GameOver) == GameOver(Termination.MAX_TURNS, None)
    game = SequenceGame.new(2, b"short", SequenceConfig(max_turns=3))
    while not game.over:
        game.act(legal_actions(game.state, game.state.current)[0])
    assert game.outcome is not None and game.outcome.termination == Termination.MAX_TURNS
    assert game.outcome.winner is None and game.state.turn == 3


def test_team_play_a_one_eyed_jack_may_target_any_chip_not_of_the_players_team() -> None:
    # 6 players in 3 teams: seat 0 (blue) and seat 3 are teammates.
    c = SequenceCards()
    jack = c("JH")
    config = SequenceConfig(teams=3)
    state = sequence_table(6, config=config, hands={0: [jack]},
                           chips={"B2": 0, "C3": 1, "D4": 2})
    targets = {a.cell for a in legal_actions(state, 0) if isinstance(a, RemoveChip)}
    assert targets == {parse_cell("C3"), parse_cell("D4")}
    assert state.team_of(3) == 0


def test_team_play_chips_are_per_team() -> None:
    c = SequenceCards()
    card = c("5H")
    state = sequence_table(4, hands={2: [card]}, current=2)
    act(state, PlaceChip(2, card, E5))
    assert state.chips[E5] == 0 == state.team_of(0)


def test_table_talk_teammates_do_not_see_each_others_hands() -> None:
    state = sequence_table(4)
    view = view_for(state, 0)
    assert view.hands[0] == state.hands[0]
    assert set(view.hands[2]) == {-1}  # the teammate's hand stays hidden


def test_a_dead_card_is_announced_to_everyone() -> None:
    event = DeadCardExchanged(0, 5)
    assert event.redacted_for(SPECTATOR) == event
    drawn = CardsDrawn(0, (7,))
    assert drawn.redacted_for(1).cards == (-1,) and drawn.redacted_for(0) == drawn
