"""`stacks bot`'s strategy is not seeded from its key: the key is public (its peer id is
the topic it writes on), so a bot seeded from it would make choices anyone can predict."""

from __future__ import annotations

import pytest

from engine.actions import StealCard
from engine.rules import legal_actions
from engine.views import view_for
from netplay.identity import Identity
from netplay.memory import AsyncMemoryBroker
from netplay.player_peer import BotPeer
from tests.engine.scenario import Cards, table


@pytest.mark.parametrize("strategy", ["easy", "medium"])
def test_bots_of_one_profile_do_not_make_the_same_choices(strategy: str) -> None:
    c = Cards()
    steal = c("STEAL_CARD")
    # Seats 0, 2 and 3 look alike to seat 1: which it steals from is the bot's own draw.
    state = table(4, hands={1: [steal, c("R3")], 0: c.many("B2", "B3"),
                            2: c.many("B4", "R4"), 3: c.many("R5", "B5")})
    view = view_for(state, 1)
    legal = legal_actions(view, 1)
    identity = Identity.from_seed(b"one profile, one key".ljust(32, b"."))
    broker = AsyncMemoryBroker()
    choices = []
    for _ in range(40):  # `stacks bot` started again and again with the same profile
        bot = BotPeer(identity, "friday", broker=broker, strategy=strategy).bot
        choices.append(bot.choose(view, 1, legal))
    targets = {a.target for a in choices if isinstance(a, StealCard)}
    assert len(set(choices)) > 1 and len(targets) > 1, choices
