"""A player as the page and the API show it: name, identity, rating per game on the
points scale (``?`` while provisional, as ``stacks ratings`` shows it), the rated games
left before their end, and recent games."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ratings.browse import identities_named
from ratings.display import points, provisional
from ratings.moderation import ModerationStore
from webserver import params

if TYPE_CHECKING:
    from ratings.store import Store

RECENT_GAMES = 20


async def player_data(store: Store, name: str) -> dict[str, Any] | list[str]:
    """The player ``name`` means (`ratings.browse.identities_named`), as JSON; else the
    fingerprints it may mean: none, or several."""
    wanted = params.player_name(name)
    if wanted is None:
        return []
    found = await identities_named(store, wanted)
    if len(found) != 1:
        return found
    fingerprint = found[0]
    card = await store.card(fingerprint)
    if card is None:
        return []
    played = await store.games_of(fingerprint, limit=RECENT_GAMES)
    left = (await ModerationStore(store).abandonment([fingerprint]))[fingerprint]
    bot = any(s.bot for s in card.kinds.values()) or fingerprint.startswith("bot-")
    return {
        "name": card.name, "fingerprint": fingerprint, "bot": bot,
        "ratings": {kind: {"points": points(s.mu), "provisional": provisional(s.sigma),
                           "games": s.games, "wins": s.wins, "rating": round(s.rating, 3),
                           "mu": round(s.mu, 3), "sigma": round(s.sigma, 3)}
                    for kind, s in sorted(card.kinds.items())},
        "left_early": left.left,
        "games": [{"id": g.id, "game": g.kind, "table": g.table, "ended_at": g.ended_at,
                   "seat": g.seat + 1, "won": g.won, "draw": g.draw,
                   "points_before": points(g.before.mu), "points_after": points(g.after.mu),
                   "others": list(g.others)} for g in played],
    }
