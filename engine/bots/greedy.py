"""A greedy bot: scores every legal action with a few rules of thumb and takes the best.

What it knows is its own view only. Its habits:
- completes piles, preferring a real 5 to a wild and colours it still needs;
- keeps wilds for fives and never hands an opponent a pile at 4 it can't finish itself;
- blocks when the completing opponent would win, or would reach the colour mix;
- steals the chip it needs from the leader, steals a discard top it can play at once;
- skips the next player, reverses away from the stronger neighbour;
- discards the card least useful to itself and to anyone who might steal it.

Medium makes every play it can before it discards. With ``hold_below`` (the search
bot's own policy, engine.bots.search) it ends its turn instead once the best play scores
below that: it keeps a wild that would not finish a pile, or a fourth card it cannot
follow with a fifth.

Equal scores are broken with the bot's own generator, never by list order: the legal
actions list steal targets from seat 0 up, so keeping the first of equals made seat 0
everyone's default victim.
"""

from __future__ import annotations

import os
import random

from engine.actions import (
    Action,
    Block,
    Discard,
    EndTurn,
    PassBlock,
    PlayCard,
    PlayReverse,
    PlaySkip,
    StealCard,
    StealChip,
)
from engine.cards import COLOUR, HIDDEN, KIND, RANK, CardId, Kind
from engine.state import NEW_PILE, Seat, State, Zone

_DISCARD_BASE = -1000.0


class GreedyBot:
    """``seed`` feeds the tie-breaking generator (``None``: unpredictable, from the OS);
    ``rng`` shares a generator instead (the search bot's rollouts)."""

    name = "medium"

    def __init__(
        self, seed: bytes | None = None, *, rng: random.Random | None = None,
        hold_below: float | None = None,
    ) -> None:
        self._rng = rng or random.Random(os.urandom(16) if seed is None else seed)
        self.hold_below = hold_below
        """``None`` (medium): every play is made while one is legal. Else the turn ends
        (the best discard) once the best play scores below it: a wild that would not
        finish a pile, a fourth card it cannot follow with a fifth."""

    def choose(self, view: State, seat: Seat, legal: list[Action]) -> Action:
        if type(legal[-1]) is PassBlock or type(legal[0]) is Block:
            return _block_decision(view, seat, legal)
        scorer = _Scorer(view, seat)
        # Every play scores above every discard (_DISCARD_BASE), so while something can be
        # played the discards need no scoring (they are most of the list at most decisions).
        plays = [a for a in legal if type(a) is not Discard and type(a) is not EndTurn]
        if not plays:
            return self._best(scorer, legal)
        chosen, score = self._best_scored(scorer, plays)
        if self.hold_below is not None and score < self.hold_below and len(plays) < len(legal):
            return self._best(scorer, [a for a in legal if type(a) in (Discard, EndTurn)])
        return chosen

    def _best(self, scorer: _Scorer, legal: list[Action]) -> Action:
        return self._best_scored(scorer, legal)[0]

    def _best_scored(self, scorer: _Scorer, legal: list[Action]) -> tuple[Action, float]:
        """The best-scored action (equal scores: the generator picks) and its score."""
        best = [legal[0]]
        best_score = scorer.score(legal[0])
        for action in legal[1:]:
            score = scorer.score(action)
            if score > best_score:
                best, best_score = [action], score
            elif score == best_score:
                best.append(action)
        pick = best[0] if len(best) == 1 else best[self._rng.randrange(len(best))]
        return pick, best_score

    def scores(self, view: State, seat: Seat, legal: list[Action]) -> list[float]:
        """The score of each legal action of the play phase (higher = better)."""
        scorer = _Scorer(view, seat)
        return [scorer.score(action) for action in legal]


def _block_decision(view: State, seat: Seat, legal: list[Action]) -> Action:
    window = view.window
    blocks = [a for a in legal if isinstance(a, Block)]
    passes = [a for a in legal if isinstance(a, PassBlock)]
    if not blocks or window is None:
        return passes[0] if passes else legal[0]
    red, blue = view.chips[window.seat]
    if window.pile.colour == 0:
        red += 1
    else:
        blue += 1
    cfg = view.config
    need = cfg.win_min_each_colour
    had_mix = min(view.chips[window.seat]) >= need
    reaches_mix = not had_mix and red >= need and blue >= need
    if view.meets_win(red, blue) or (reaches_mix and red + blue >= cfg.win_chips - 2):
        return blocks[0]
    return passes[0] if passes else blocks[0]


class _Scorer:
    """Scores for one decision; computed context is shared by all candidate actions."""

    __slots__ = ("hand", "mine", "needs", "nxt", "prv", "seat", "top", "view")

    def __init__(self, view: State, seat: Seat) -> None:
        self.view = view
        self.seat = seat
        self.hand = view.hands[seat]
        self.top = view.discard_top(seat)
        self.mine = mine = view.chips[seat]
        need = view.config.win_min_each_colour
        red, blue = mine
        # Weight of a chip of each colour to this seat: more when below the minimum.
        self.needs = [1.0 + (need - red if need > red else 0),
                      1.0 + (need - blue if need > blue else 0)]
        players, direction = view.players, view.direction
        self.nxt = (seat + direction) % players
        self.prv = (seat - direction) % players

    def _holds_finisher(self, colour: int, excluding: CardId) -> bool:
        for card in self.hand:
            if card != excluding and COLOUR[card] == colour and (
                KIND[card] is Kind.WILD or RANK[card] == 5
            ):
                return True
        return False

    def _threat(self, seat: Seat) -> float:
        chips = self.view.chips[seat]
        return chips[0] + chips[1] + 0.5 * min(chips)

    def score(self, action: Action) -> float:
        kind = type(action)
        if kind is PlayCard:
            assert isinstance(action, PlayCard)
            return self._play(action)
        if kind is Discard:
            assert isinstance(action, Discard)
            return _DISCARD_BASE - self._keep_value(action.card)
        if kind is EndTurn:
            return _DISCARD_BASE
        if kind is PlaySkip:
            return 30.0 if self.view.players == 2 else 8.0 + self._threat(self.nxt)
        if kind is PlayReverse:
            if self.view.players == 2:
                return 30.0
            return 6.0 + self._threat(self.nxt) - self._threat(self.prv) - 0.5
        if kind is StealChip:
            assert isinstance(action, StealChip)
            target = self.view.chips[action.target]
            return 40.0 + 3 * self._threat(action.target) + 8 * self.needs[action.colour] + (
                2.0 if target[action.colour] <= self.view.config.win_min_each_colour else 0.0
            )
        if kind is StealCard:
            assert isinstance(action, StealCard)
            return self._steal_card(action)
        return 0.0

    def _play(self, action: PlayCard) -> float:
        view = self.view
        card = action.card
        colour = COLOUR[card]
        assert colour is not None
        wild = KIND[card] is Kind.WILD
        from_hand = card != self.top
        bonus = 0.0
        if from_hand and len(self.hand) == 1:
            bonus += 6.0  # emptying the hand draws five fresh cards
        if not from_hand:
            bonus += 1.0  # the card below becomes playable; the hand stays private
        if action.pile == NEW_PILE:
            return (2.0 if wild else 15.0) + bonus
        pile = view.pile(action.pile)
        assert pile is not None
        height = len(pile.cards) + 1
        if height == 5:
            return 100.0 + 10 * self.needs[colour] - (3.0 if wild else 0.0) + bonus
        if wild:
            return -20.0 + bonus
        score = 20.0 + 2 * height + bonus
        if height == 4 and not self._holds_finisher(colour, card):
            score -= 30.0  # don't set up a completion for the next player
        return score

    def _steal_card(self, action: StealCard) -> float:
        view = self.view
        if action.zone == Zone.DISCARD:
            taken = view.discards[action.target][-1]
            useful = self._keep_value(taken)
            return 12.0 + useful + self._threat(action.target)
        return 15.0 + len(view.hands[action.target]) + self._threat(action.target)

    def _keep_value(self, card: CardId) -> float:
        """How much this seat wants to keep ``card`` (higher = keep)."""
        if card == HIDDEN:
            return 0.0
        kind = KIND[card]
        if kind is Kind.BLOCK:
            return 50.0
        if kind is Kind.STEAL_CHIP:
            return 45.0
        if kind is Kind.WILD:
            return 40.0
        if kind is not Kind.NUMBER:
            return 30.0
        colour = COLOUR[card]
        rank = RANK[card]
        best = 0.0
        for pile in self.view.piles:
            if pile.colour == colour:
                gap = rank - (pile.height + 1)
                if gap == 0:
                    best = max(best, 20.0)
                elif gap > 0:
                    best = max(best, 12.0 - 3 * gap)
        if rank == 1:
            best = max(best, 10.0)
        return best + rank * 0.1
