"""What a player missed, in one sentence (tui.away): counted from its last own move, with
its stand-in's turns and the news a player cares about (chips, blocks, sequences)."""

from __future__ import annotations

from engine.actions import EndTurn
from engine.cards import Colour
from engine.classic import events as classic
from engine.events import ChipAwarded, ChipTaken, PileBlocked, TurnEnded, TurnStarted
from engine.state import Zone
from tui.away import MissedBatch, away_span, away_summary

NAMES = ("Ana", "Bo", "Cy")
ME = 0


def _turn(n: int, seat: int, *, standin: bool = False,
          extra: tuple[object, ...] = ()) -> MissedBatch:
    """Batch ``n``: ``seat`` plays and ends its turn; the next seat's turn starts."""
    action = EndTurn(seat)
    events = (*extra, TurnEnded(seat), TurnStarted((seat + 1) % 3))
    return MissedBatch(n, action, events, standin)  # type: ignore[arg-type]


def test_the_time_away_starts_after_the_players_last_own_move() -> None:
    batches = [_turn(1, 0), _turn(2, 1), _turn(3, 2), _turn(4, 0), _turn(5, 1),
               _turn(6, 2), _turn(7, 0, standin=True), _turn(8, 1)]
    assert [b.n for b in away_span(batches, ME)] == [5, 6, 7, 8]
    # A stand-in's move is not the player's own: the time away goes on through it.
    assert away_summary(away_span(batches, ME), NAMES, ME) \
        == "While you were away: 4 turns; your stand-in played 1."


def test_a_player_who_never_moved_missed_everything_it_was_sent() -> None:
    batches = [_turn(1, 1), _turn(2, 2)]
    assert [b.n for b in away_span(batches, ME)] == [1, 2]
    assert away_summary(batches, NAMES, ME) == "While you were away: 2 turns."


def test_chips_and_blocks_are_said_by_name_the_rest_counted() -> None:
    batches = [
        _turn(1, 1, extra=(ChipAwarded(1, Colour.RED),)),
        _turn(2, 2, extra=(ChipTaken(2, 0, Colour.BLUE),)),
        _turn(3, 0, standin=True, extra=(ChipAwarded(0, Colour.BLUE),)),
        _turn(4, 1, extra=(PileBlocked(1, 0, Zone.HAND, 3),)),
        _turn(5, 2, extra=(ChipAwarded(2, Colour.RED),)),
    ]
    assert away_summary(batches, NAMES, ME) == (
        "While you were away: 5 turns; your stand-in played 1, Bo took a Red chip, "
        "Cy took a Blue chip from you, your stand-in took a Blue chip, "
        "and 2 more (l: the whole story)."
    )


def test_a_sequence_made_at_a_classic_table_is_news() -> None:
    batch = MissedBatch(9, None, (classic.SequenceMade(1, ()), classic.TurnEnded(2)), False)
    assert away_summary([batch], NAMES, ME) == \
        "While you were away: 1 turn; Green made a sequence."


def test_nothing_played_is_said_so() -> None:
    assert away_summary([], NAMES, ME) == \
        "You are back: nothing was played while you were away."
    assert away_span([_turn(1, 1), _turn(2, 0)], ME) == []
