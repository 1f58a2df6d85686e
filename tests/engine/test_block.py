"""RULES.md §1.6 completion and Block, A10, A11, A16, A22."""

from __future__ import annotations

from typing import Any

from engine.actions import Block, CloseBlockWindow, Discard, PassBlock, PlayCard, PlaySkip
from engine.cards import Colour
from engine.config import RulesConfig
from engine.events import BlockPassed, ChipAwarded, PileBlocked, PileCleared, PileCompleted
from engine.rules import legal_actions
from engine.state import Phase, State, Zone
from tests.engine.scenario import Cards, act, illegal, of_type, one, pile, table, types


def _completion(
    c: Cards,
    *,
    hand: list[int] | None = None,
    colour: Colour = Colour.RED,
    players: int = 3,
    **kwargs: Any,
) -> tuple[State, int]:
    """Seat 1 holds a 5 (plus ``hand``) for the 4-high pile 0 of ``colour``."""
    five = c(f"{colour.letter}5")
    base = c.many(*(f"{colour.letter}{r}" for r in range(1, 5)))
    hands = dict(kwargs.pop("hands", {}))
    hands[1] = [five, *(c.many("B3", "R3") if hand is None else hand)]
    state = table(players, hands=hands, piles=[pile(0, colour, base)], **kwargs)
    return state, five


def test_1_6_1_placing_the_5th_card_completes_the_pile_and_opens_a_block_window() -> None:
    c = Cards()
    state, five = _completion(c, hands={0: [c("BLOCK")], 2: [c("BLOCK")]})
    events = act(state, PlayCard(1, five, 0))
    assert one(events, PileCompleted) == PileCompleted(1, 0, False, (0, 2))
    assert state.phase == Phase.BLOCK_WINDOW
    assert state.window is not None
    assert state.window.pile.height == 5
    assert state.piles == []
    assert not of_type(events, ChipAwarded)  # no chip before the window closes
    assert state.chips[1] == [0, 0]


def test_1_6_2_the_active_player_waits_while_the_window_is_open() -> None:
    c = Cards()
    state, five = _completion(c, hands={2: [c("BLOCK")]})
    act(state, PlayCard(1, five, 0))
    illegal(state, Discard(1, state.hands[1][0]), "Block window is open")
    illegal(state, PlayCard(1, state.hands[1][0], 0), "Block window is open")
    assert legal_actions(state, 1) == []


def test_1_6_2_only_other_players_are_eligible_and_the_completer_cannot_block() -> None:
    c = Cards()
    own, theirs = c("BLOCK"), c("BLOCK")
    state, five = _completion(c, hand=[own], hands={2: [theirs]})
    events = act(state, PlayCard(1, five, 0))
    assert 1 not in one(events, PileCompleted).eligible
    illegal(state, Block(1, own), "can't block your own")
    assert legal_actions(state, 1) == []
    assert Block(2, theirs) in legal_actions(state, 2)


def test_1_6_2_window_skipped_when_every_block_is_public() -> None:
    c = Cards()
    b1, b2, b3 = c.many("BLOCK", "BLOCK", "BLOCK")
    state, five = _completion(
        c,
        hands={0: [c("R2")]},
        discards={2: [b1, b2]},
        special_discard=[b3],
        rest="out_of_play",
    )
    assert state.hands[2] == []
    state.hands[2] = [state.out_of_play.pop()]  # seat 2 holds a card, but it can't be a Block
    events = act(state, PlayCard(1, five, 0))
    assert one(events, PileCompleted).eligible == ()
    assert types(events) == ["CardPlayed", "PileCompleted", "PileCleared", "ChipAwarded"]
    assert state.phase == Phase.PLAY
    assert state.chips[1] == [1, 0]


def test_1_6_2_window_skipped_when_no_opponent_holds_a_card() -> None:
    c = Cards()
    state, five = _completion(c)
    events = act(state, PlayCard(1, five, 0))
    assert one(events, PileCompleted).eligible == ()
    assert one(events, ChipAwarded) == ChipAwarded(1, Colour.RED)


def test_1_6_2_opponents_with_cards_are_eligible_even_without_a_block() -> None:
    # Hands are hidden: who is asked may not reveal who holds a Block.
    c = Cards()
    state, five = _completion(c, hands={2: [c("B1")]})
    events = act(state, PlayCard(1, five, 0))
    assert one(events, PileCompleted).eligible == (2,)
    assert legal_actions(state, 2) == [PassBlock(2)]
    events = act(state, PassBlock(2))
    assert types(events) == ["BlockPassed", "PileCleared", "ChipAwarded"]


def test_1_6_2_window_closes_after_every_eligible_player_passes() -> None:
    c = Cards()
    b0, b2, b3 = c.many("BLOCK", "BLOCK", "BLOCK")
    state, five = _completion(c, players=4, hands={0: [b0], 2: [b2], 3: [b3]})
    act(state, PlayCard(1, five, 0))
    events = act(state, PassBlock(2), PassBlock(0))
    assert not of_type(events, ChipAwarded)
    assert state.window is not None
    assert state.window.passed == {0, 2}
    illegal(state, PassBlock(2), "already passed")
    illegal(state, Block(2, b2), "already passed")
    events = act(state, PassBlock(3))
    assert types(events) == ["BlockPassed", "PileCleared", "ChipAwarded"]
    assert state.phase == Phase.PLAY


def test_1_6_2_host_closing_the_window_pays_the_chip() -> None:
    c = Cards()
    state, five = _completion(c, hands={0: [c("BLOCK")], 2: [c("BLOCK")]})
    act(state, PlayCard(1, five, 0))
    events = act(state, CloseBlockWindow())
    assert types(events) == ["PileCleared", "ChipAwarded"]
    assert state.chips[1] == [1, 0]
    illegal(state, CloseBlockWindow(), "no Block window")


def test_1_6_3_blocked_pile_goes_out_of_play_without_chip_and_the_turn_continues() -> None:
    c = Cards()
    block = c("BLOCK")
    r1 = c("R1")
    state, five = _completion(c, hand=[r1, c("B4")], hands={2: [block]})
    base = list(state.piles[0].cards)
    supply = list(state.supply)
    events = act(state, PlayCard(1, five, 0), Block(2, block))
    assert one(events, PileBlocked) == PileBlocked(2, block, Zone.HAND, 0)
    assert not of_type(events, ChipAwarded)
    assert not of_type(events, PileCleared)
    assert state.out_of_play[-5:] == [*base, five]
    assert state.special_discard == [block]
    assert state.hands[2] == []
    assert state.chips == [[0, 0]] * 3
    assert state.supply == supply
    assert state.phase == Phase.PLAY
    assert state.current == 1
    act(state, PlayCard(1, r1, -1))  # P keeps playing
    assert state.current == 1


def test_1_6_2_only_one_block_applies_and_A22_the_first_block_wins() -> None:
    c = Cards()
    slow, fast = c("BLOCK"), c("BLOCK")
    state, five = _completion(c, players=4, hands={2: [slow], 3: [fast]})
    act(state, PlayCard(1, five, 0))
    events = act(state, Block(3, fast))
    assert one(events, PileBlocked).seat == 3
    illegal(state, Block(2, slow), "no completed pile")
    assert state.hands[2] == [slow]  # the slower blocker keeps the card
    assert state.special_discard == [fast]


def test_1_6_2_a_player_with_skip_tokens_may_still_block() -> None:
    c = Cards()
    block = c("BLOCK")
    state, five = _completion(c, hands={2: [block]}, skip_tokens={2: 1})
    events = act(state, PlayCard(1, five, 0))
    assert 2 in one(events, PileCompleted).eligible
    act(state, Block(2, block))
    assert state.chips[1] == [0, 0]
    assert state.skip_tokens[2] == 1


def test_A10_block_cannot_be_played_from_the_discard_top() -> None:
    c = Cards()
    in_hand, on_top = c("BLOCK"), c("BLOCK")
    state, five = _completion(c, hands={0: [in_hand]}, discards={0: [on_top]})
    act(state, PlayCard(1, five, 0))
    illegal(state, Block(0, on_top), "in your hand")
    assert Block(0, on_top) not in legal_actions(state, 0)
    act(state, Block(0, in_hand))


def test_A10_block_from_discard_setting_allows_the_discard_top() -> None:
    # The other Blocks are public: the discard-top holder alone can block.
    c = Cards()
    on_top, b2, b3 = c.many("BLOCK", "BLOCK", "BLOCK")
    state, five = _completion(
        c,
        config=RulesConfig(block_from_discard=True),
        hands={2: [c("R2")]},
        discards={0: [on_top]},
        special_discard=[b2, b3],
    )
    events = act(state, PlayCard(1, five, 0))
    assert one(events, PileCompleted).eligible == (0,)
    assert Block(0, on_top) in legal_actions(state, 0)
    events = act(state, Block(0, on_top))
    assert one(events, PileBlocked) == PileBlocked(0, on_top, Zone.DISCARD, 0)
    assert state.discards[0] == []


def test_A11_block_only_answers_a_completion() -> None:
    c = Cards()
    block, other = c("BLOCK"), c("BLOCK")
    state = table(hands={1: [block, c("R2")], 2: [other]}, piles=[pile(0, Colour.RED, [c("R1")])])
    illegal(state, Block(1, block), "no completed pile")
    illegal(state, Block(2, other), "no completed pile")
    illegal(state, PlaySkip(1, block), "not a Skip")
    illegal(state, PlayCard(1, block, 0), "action card")
    assert not any(isinstance(a, Block) for a in legal_actions(state, 1))


def test_1_6_2_a_block_must_be_a_block_card() -> None:
    c = Cards()
    other = c("SKIP")
    state, five = _completion(c, hands={2: [other]})
    act(state, PlayCard(1, five, 0))
    illegal(state, Block(2, other), "Skip is not a Block")


def test_1_6_4_unblocked_completion_pays_a_chip_of_the_pile_colour() -> None:
    c = Cards()
    state, five = _completion(c, hands={2: [c("BLOCK")]}, colour=Colour.BLUE)
    events = act(state, PlayCard(1, five, 0), PassBlock(2))
    assert one(events, PileCleared) == PileCleared(0)
    assert one(events, ChipAwarded) == ChipAwarded(1, Colour.BLUE)
    assert state.chips[1] == [0, 1]
    assert state.supply == [20, 19]
    assert len(state.out_of_play) == 5
    assert state.current == 1
    assert state.phase == Phase.PLAY


def test_A16_empty_supply_pays_no_chip_but_the_pile_still_goes() -> None:
    c = Cards()
    state, five = _completion(c, chips={0: (20, 0)})
    assert state.supply[Colour.RED] == 0
    events = act(state, PlayCard(1, five, 0))
    assert types(events) == ["CardPlayed", "PileCompleted", "PileCleared"]
    assert state.chips[1] == [0, 0]
    assert state.piles == []
    assert len(state.out_of_play) == 5


def test_A16_unlimited_chips_setting_pays_even_from_an_empty_supply() -> None:
    c = Cards()
    state, five = _completion(c, config=RulesConfig(unlimited_chips=True), chips={0: (20, 0)})
    events = act(state, PlayCard(1, five, 0))
    assert one(events, ChipAwarded) == ChipAwarded(1, Colour.RED)
    assert state.chips[1] == [1, 0]
    assert state.supply[Colour.RED] == 0


def test_A15_completion_that_empties_the_hand_refills_after_the_window() -> None:
    c = Cards()
    block = c("BLOCK")
    state, five = _completion(c, hand=[], hands={2: [block]})
    events = act(state, PlayCard(1, five, 0))
    assert one(events, PileCompleted).refill is True
    assert state.hands[1] == []  # no draw while the window is open
    events = act(state, Block(2, block))
    assert types(events) == ["PileBlocked", "CardsDrawn"]
    assert len(state.hands[1]) == 5


def test_A15_completion_refill_also_follows_an_unblocked_window() -> None:
    c = Cards()
    state, five = _completion(c, hand=[])
    events = act(state, PlayCard(1, five, 0))
    assert types(events)[-2:] == ["ChipAwarded", "CardsDrawn"]
    assert len(state.hands[1]) == 5


def test_1_6_2_pass_is_refused_outside_a_window_and_for_ineligible_seats() -> None:
    c = Cards()
    state, five = _completion(c, hands={2: [c("BLOCK")]})
    illegal(state, PassBlock(2), "no completed pile")
    act(state, PlayCard(1, five, 0))
    illegal(state, PassBlock(0), "can't block this sequence")
    illegal(state, PassBlock(1), "your own")
    assert of_type(act(state, PassBlock(2)), BlockPassed) == [BlockPassed(2)]


def test_A1_two_player_window_counts_only_the_blocks_left_in_the_deck() -> None:
    # The GH 2-player deck holds 2 Blocks: once both are public, no window opens.
    c = Cards()
    b1, b2 = c.many("BLOCK", "BLOCK")
    state, five = _completion(c, players=2, hands={0: [c("R2")]}, special_discard=[b1, b2])
    events = act(state, PlayCard(1, five, 0))
    assert one(events, PileCompleted).eligible == ()
    assert state.chips[1] == [1, 0]


def test_1_6_2_the_window_opens_while_one_block_is_unseen() -> None:
    c = Cards()
    b1, b2 = c.many("BLOCK", "BLOCK")
    state, five = _completion(c, hands={0: [c("R2")], 2: [c("B2")]}, special_discard=[b1, b2])
    events = act(state, PlayCard(1, five, 0))
    assert one(events, PileCompleted).eligible == (0, 2)
