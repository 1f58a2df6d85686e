"""The HTML of the server's games: the leaderboard of each game, a player's page, the
recent games, and a game's replay (``stacks replay`` in textual-serve's terminal client).

Every URL is relative, as in :mod:`webserver.pages`: ``prefix`` is the way back to the
site's root from the page (``""`` at the root, ``"../"`` one folder down).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from html import escape
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from ratings.display import counted, rating_text
from webserver.pages import _page
from webserver.params import GAME_TITLES, GAMES

if TYPE_CHECKING:
    from ratings.browse import BoardLine, GameLine


def player_href(name: str, prefix: str) -> str:
    return f"{prefix}player/{quote(name, safe='')}"


def _game_href(game_id: str, prefix: str) -> str:
    return f"{prefix}game/{game_id}"


def _when(seconds: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(seconds)) if seconds else "?"


def _nav(prefix: str) -> str:
    boards = " · ".join(f"<a href=\"{prefix}leaderboard?game={kind}\">{GAME_TITLES[kind]}</a>"
                        for kind in GAMES)
    return (f"<nav class=\"note\"><a href=\"{prefix or './'}\">Tables</a> · Leaderboards: "
            f"{boards} · <a href=\"{prefix}games\">Recent games</a> · "
            f"<a href=\"{prefix}api/openapi.json\">API</a></nav>")


def _layout(title: str, body: str, prefix: str) -> str:
    return _page(title, f"<main>\n{_nav(prefix)}\n<h1>{escape(title)}</h1>\n{body}\n</main>",
                 static=f"{prefix}static/")


def _pager(base: str, total: int, offset: int, limit: int, words: tuple[str, str]) -> str:
    links = []
    if offset > 0:
        links.append(f"<a rel=\"prev\" href=\"{base}&offset={max(offset - limit, 0)}"
                     f"&limit={limit}\">← {words[0]}</a>")
    if offset + limit < total:
        links.append(f"<a rel=\"next\" href=\"{base}&offset={offset + limit}"
                     f"&limit={limit}\">{words[1]} →</a>")
    return f"<p class=\"note\">{' · '.join(links)}</p>" if links else ""


def leaderboard(kind: str, rows: Sequence[BoardLine], *, total: int, offset: int,
                limit: int) -> str:
    """A game's leaderboard, a page of it: rank, player, points (``?`` provisional),
    games, wins, games left early."""
    if rows:
        lines = "\n".join(
            f"<tr data-player=\"{escape(r.name)}\"><td>{r.rank}</td>"
            f"<td><a href=\"{escape(player_href(r.name, ''))}\">{escape(r.name)}</a>"
            f"{' (bot)' if r.bot else ''}</td>"
            f"<td>{escape(rating_text(r.mu, r.sigma))}</td><td>{r.games}</td><td>{r.wins}</td>"
            f"<td class=\"left-early\">{r.left_early}</td></tr>"
            for r in rows)
        listing = ("<table><thead><tr><th>rank</th><th>player</th><th>points</th>"
                   "<th>games</th><th>wins</th><th>left early</th></tr></thead><tbody>\n"
                   f"{lines}\n</tbody></table>")
    else:
        listing = "<p class=\"words\">No rated game of this kind yet.</p>"
    note = ("<p class=\"note\">Points on the familiar 1500 scale; a <b>?</b> marks a rating "
            "still provisional (fewer than about ten games). Ranked by a cautious estimate, "
            "so a newcomer climbs as the games tell more. <b>Left early</b>: rated games "
            "(of every kind) the player left before their end, for the stand-in bot to "
            "finish.</p>")
    pager = _pager(f"leaderboard?game={kind}", total, offset, limit, ("above", "below"))
    body = f"{note}\n{listing}\n{pager}"
    return _layout(f"Leaderboard: {GAME_TITLES[kind]}", body, "")


def player(data: dict[str, Any]) -> str:
    """A player's page: rating per game, recent games with a link to each."""
    prefix = "../"
    ratings = data["ratings"]
    if ratings:
        lines = "\n".join(
            f"<tr data-game=\"{kind}\"><td>{GAME_TITLES.get(kind, kind)}</td>"
            f"<td>{r['points']}{'?' if r['provisional'] else ''}</td>"
            f"<td>{escape(counted(r['games'], 'game'))}, {escape(counted(r['wins'], 'win'))}"
            "</td></tr>" for kind, r in ratings.items())
        standing = ("<table><thead><tr><th>game</th><th>points</th><th>played</th></tr>"
                    f"</thead><tbody>\n{lines}\n</tbody></table>")
    else:
        standing = "<p class=\"words\">No rating yet.</p>"
    games = []
    for g in data["games"]:
        result = "draw" if g["draw"] else ("won" if g["won"] else "lost")
        change = g["points_after"] - g["points_before"]
        others = ", ".join(
            f"<a href=\"{escape(player_href(o, prefix))}\">{escape(o)}</a>" for o in g["others"])
        games.append(
            f"<tr data-game-id=\"{g['id']}\"><td>{_when(g['ended_at'])}</td>"
            f"<td>{GAME_TITLES.get(g['game'], escape(g['game']))}</td><td>{result}</td>"
            f"<td>{change:+d}</td><td>{others}</td>"
            f"<td><a href=\"{_game_href(g['id'], prefix)}\">replay</a></td></tr>")
    recent = ("<h2>Recent games</h2><table><thead><tr><th>ended</th><th>game</th>"
              "<th>result</th><th>points</th><th>against</th><th></th></tr></thead><tbody>\n"
              + "\n".join(games) + "\n</tbody></table>") if games else ""
    who = (f"<p class=\"note\">Identity {escape(data['fingerprint'])}"
           f"{' (a bot)' if data['bot'] else ''}.</p>")
    left = data["left_early"]
    early = "" if data["bot"] else (
        f"<p class=\"words\" id=\"left-early\">Left {escape(counted(left, 'rated game'))} "
        "early, for the stand-in bot to finish.</p>" if left else
        "<p class=\"words\" id=\"left-early\">Never left a rated game early.</p>")
    body = f"{who}\n{standing}\n{early}\n{recent}"
    return _layout(str(data["name"]), body, prefix)


def several(name: str, fingerprints: Sequence[str]) -> str:
    """A name several identities played under: one link each."""
    links = "\n".join(f"<li><a href=\"{escape(player_href(f, '../'))}\">{escape(f)}</a></li>"
                      for f in fingerprints)
    body = (f"<p class=\"words\">{len(fingerprints)} players have played here as "
            f"{escape(name)}. Which one?</p>\n<ul>\n{links}\n</ul>")
    return _layout(f"Players called {name}", body, "../")


def games(lines: Sequence[GameLine], *, kind: str | None, total: int, offset: int,
          limit: int) -> str:
    """The games that ended last, newest first, each a link to its replay."""
    rows = []
    for g in lines:
        people = ", ".join(
            f"<a href=\"{escape(player_href(s.name, ''))}\">{escape(s.name)}</a>"
            for s in g.seats)
        result = "draw" if g.draw else ", ".join(escape(w) for w in g.winners) or "?"
        rows.append(
            f"<tr data-game-id=\"{g.id}\"><td>{_when(g.ended_at)}</td>"
            f"<td>{GAME_TITLES.get(g.kind, escape(g.kind))}</td><td>{escape(g.table)}</td>"
            f"<td>{people}</td><td>{result}</td>"
            f"<td><a href=\"{_game_href(g.id, '')}\">replay</a></td></tr>")
    if rows:
        listing = ("<table><thead><tr><th>ended</th><th>game</th><th>table</th>"
                   "<th>players</th><th>won</th><th></th></tr></thead><tbody>\n"
                   + "\n".join(rows) + "\n</tbody></table>")
    else:
        listing = "<p class=\"words\">No game stored yet.</p>"
    base = f"games?game={kind}" if kind else "games?"
    title = f"Recent games: {GAME_TITLES[kind]}" if kind else "Recent games"
    note = f"<p class=\"note\">{escape(counted(total, 'game'))} stored.</p>"
    pager = _pager(base, total, offset, limit, ("newer", "older"))
    return _layout(title, f"{note}\n{listing}\n{pager}", "")


def notice(title: str, text: str, prefix: str) -> str:
    """A page that only says something (an unknown player or game, a full page)."""
    return _layout(title, f"<p class=\"words\" id=\"words\">{escape(text)}</p>", prefix)


# textual-serve's client connects at window load to the websocket named by the terminal
# element's data-session-websocket-url; the socket is wrapped so that the words the
# server closes it with are shown on the page.
_TERMINAL_HEAD = """<link rel="stylesheet" href="../static/css/xterm.css">
<style>
#terminal { position: absolute; top: 0; left: 0; width: 100vw; height: 100vh; }
#closed { display: none; position: absolute; inset: 0; z-index: 10;
  align-items: center; justify-content: center; background: rgba(12, 24, 31, .92); }
body.-closed #closed { display: flex; }
#connecting { position: absolute; inset: 0; z-index: 5; display: flex;
  align-items: center; justify-content: center; font-size: 1.2rem; color: #9fb3bf; }
body.-connected #connecting, body.-closed #connecting { display: none; }
#closed div { max-width: 40rem; padding: 2rem; background: #12232d; text-align: center; }
</style>
<script>
(() => {
  const Native = window.WebSocket;
  window.WebSocket = class extends Native {
    constructor(url, protocols) {
      super(url, protocols);
      this.addEventListener("message", () => {
        document.body.classList.add("-connected");
      }, { once: true });
      this.addEventListener("close", (event) => {
        const words = document.getElementById("closed-words");
        if (words && event.reason) { words.textContent = event.reason; }
      });
    }
  };
})();
</script>
<script src="../static/js/textual.js"></script>
"""


def replay(game_id: str, title: str, *, font_size: int = 16) -> str:
    """A game's replay: ``stacks replay`` of its record, in the terminal client; the
    same keys step it (→ ← an event, ] [ a turn, Home End, v a seat's view)."""
    body = (
        f"<div id=\"terminal\" class=\"textual-terminal\" data-font-size=\"{font_size}\">"
        "</div>\n"
        f"<div id=\"connecting\"><p>Opening the replay of {escape(title)}…</p></div>\n"
        "<div id=\"closed\"><div><p class=\"words\" id=\"closed-words\">The replay has "
        "closed.</p><p><a href=\"\">Open it again</a> · "
        f"<a href=\"../api/games/{game_id}\">its record</a> · "
        "<a href=\"../games\">Recent games</a></p></div></div>\n"
        "<script>\n(() => {\n"
        f"  const url = new URL(\"{game_id}/ws\", window.location.href);\n"
        "  url.protocol = window.location.protocol === \"https:\" ? \"wss:\" : \"ws:\";\n"
        "  url.search = \"\";\n"
        "  document.getElementById(\"terminal\").dataset.sessionWebsocketUrl = url.href;\n"
        "})();\n</script>"
    )
    return _page(f"{title}: Sequence Stacks replay", body, static="../static/",
                 head=_TERMINAL_HEAD)
