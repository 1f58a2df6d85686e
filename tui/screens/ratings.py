"""The ratings screens: the Leaderboard (per game kind, your row marked), Your games
(newest first, with result and rating change; Enter replays one from its stored record)
and a player's card (name, rating, games, wins, favourite opponents).

They read the ratings database of wherever the program runs: the user's own (every game
hosted here is in it), or, under ``stacks serve``, the server's (``STACKS_DATABASE``).
Keys: ``l`` leaderboard, ``y`` your games, ``c`` your card, ``g`` the other game,
Enter a row (a player's card, or a game's replay), Escape back.
"""

from __future__ import annotations

import time
from typing import Any, ClassVar

from rich.cells import cell_len
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.markup import escape
from textual.screen import Screen
from textual.widgets import Footer, Label, OptionList, Static
from textual.widgets.option_list import Option

from ratings.display import START, change_text, provisional, rating_text, record_text
from tui.appbase import GameApp
from tui.fit import cut, fit_names
from tui.launch import default_profile

KIND_TITLES = {"stacks": "Sequence Stacks", "sequence": "Sequence"}
KIND_SHORT = {"stacks": "Stacks", "sequence": "Sequence"}


def my_fingerprint(profile: str | None) -> str | None:
    """The identity fingerprint of the menu's profile (``None`` if it has no key yet)."""
    from netplay.errors import ProfileError
    from netplay.hosts import fingerprint
    from netplay.identity import load_profile

    try:
        return fingerprint(load_profile(profile or default_profile(), create=False).key)
    except (ProfileError, OSError, ValueError):
        return None


class RatingsScreen(Screen[None]):
    CSS_PATH = "ratings.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("l", "show('leaderboard')", "Leaderboard"),
        Binding("y", "show('games')", "Your games"),
        Binding("c", "show('card')", "Your card"),
        Binding("g", "other_game", "Other game"),
        Binding("escape", "app.pop_screen", "Back"),
    ]

    def __init__(self, view: str = "leaderboard", kind: str = "stacks") -> None:
        super().__init__()
        self.view = view
        self.kind = kind if kind in KIND_TITLES else "stacks"
        self.me: str | None = None
        self.card_of: str | None = None
        self.rows: list[Any] = []
        self._fitted: tuple[list[Any], int] | None = None
        """The games shown in "Your games" and the row width they were fitted to."""

    def compose(self) -> ComposeResult:
        with Vertical(id="ratings-box"):
            yield Label("", id="ratings-title")
            yield OptionList(id="ratings-rows")
            yield Static("", id="ratings-card")
        yield Footer(compact=True)

    def on_mount(self) -> None:
        app = self.app
        profile = app.defaults.profile if isinstance(app, GameApp) else None
        self.me = my_fingerprint(profile)
        self.refresh_view()

    def action_show(self, view: str) -> None:
        self.view = view
        self.card_of = None
        self.refresh_view()

    def action_other_game(self) -> None:
        self.kind = "sequence" if self.kind == "stacks" else "stacks"
        self.refresh_view()

    def refresh_view(self) -> None:
        self.query_one("#ratings-title", Label).update("Loading…")
        self._load(self.view, self.kind, self.card_of or self.me)

    @work(exclusive=True)
    async def _load(self, view: str, kind: str, who: str | None) -> None:
        from ratings.local import local_database
        from ratings.schema import SchemaTooNew
        from ratings.store import DatabaseError, Store

        try:
            store = await Store.open(local_database())
        except (DatabaseError, SchemaTooNew, OSError) as exc:
            self._say(f"The ratings can't be read: {exc}")
            return
        try:
            from ratings.moderation import ModerationStore

            mods = ModerationStore(store)
            if view == "leaderboard":
                standings = await store.leaderboard(kind, 200)
                counts = await mods.abandonment([s.fingerprint for s in standings])
                self._leaderboard(kind, standings, {fp: a.left for fp, a in counts.items()})
            elif who is None:
                self._say("You have no identity here yet: play a game first.")
            elif view == "games":
                self._games(await store.games_of(who, 100))
            else:
                card = await store.card(who)
                left = (await mods.abandonment([who]))[who] if card is not None else None
                self._card(card, left.words() if left is not None and left.left else "")
        except DatabaseError as exc:
            self._say(f"The ratings can't be read: {exc}")
        finally:
            await store.close()

    def _say(self, text: str) -> None:
        self.query_one("#ratings-title", Label).update(escape(text))
        self.query_one("#ratings-rows", OptionList).clear_options()
        self.query_one("#ratings-card", Static).update("")

    def _leaderboard(self, kind: str, standings: list[Any],
                     left: dict[str, int] | None = None) -> None:
        """The leaderboard; a ``left`` column (games left before their end) when anyone
        on it left one."""
        left = left or {}
        shown = any(left.values())
        title = f"[b]Leaderboard[/]: {KIND_TITLES[kind]}  [dim]g: the other game[/]"
        self.query_one("#ratings-title", Label).update(title)
        rows = self.query_one("#ratings-rows", OptionList)
        rows.clear_options()
        self.query_one("#ratings-card", Static).update("")
        self.rows = standings
        if not standings:
            rows.add_option(Option(f"No rated {KIND_TITLES[kind]} games yet.", disabled=True))
            return
        rows.add_option(Option(f"[b]{'#':>3}  {'name':<20} {'games':>5} {'wins':>5} "
                               f"{'rating':>7}{' left' if shown else ''}[/]", disabled=True))
        for s in standings:
            mine = s.fingerprint == self.me
            mark = "▶" if mine else " "
            name = self._my_name(s.name) if mine else s.name
            line = (f"{s.rank:>3}{mark} {escape(name[:20]):<20} {s.games:>5} {s.wins:>5} "
                    f"{rating_text(s.mu, s.sigma):>7}"
                    + (f" {left.get(s.fingerprint, 0):>4}" if shown else ""))
            rows.add_option(Option(f"[b]{line}[/]" if mine else line, id=s.fingerprint))
        if shown:
            rows.add_option(Option("[dim]left: games left before their end, for the "
                                   "stand-in to finish[/]", disabled=True))
        if any(provisional(s.sigma) for s in standings):
            rows.add_option(Option(f"[dim]? provisional: fewer games than a settled rating "
                                   f"needs · a newcomer starts at {START}[/]", disabled=True))

    def _my_name(self, stored: str) -> str:
        """Our own row reads the name this profile plays under, not the one an old record
        (or the OS user, before a name was chosen) left in the database."""
        app = self.app
        name = app.defaults.name if isinstance(app, GameApp) else None
        return name or stored

    def _games(self, games: list[Any]) -> None:
        self.query_one("#ratings-title", Label).update(
            "[b]Your games[/], newest first  [dim]Enter: replay[/]")
        rows = self.query_one("#ratings-rows", OptionList)
        highlighted = rows.highlighted
        rows.clear_options()
        self.query_one("#ratings-card", Static).update("")
        self.rows = games
        width = self._row_width(len(games))
        self._fitted = (games, width)
        if not games:
            rows.add_option(Option("No rated games of yours yet.", disabled=True))
        for game in games:
            rows.add_option(Option(self._game_row(game, width),
                                   id=f"game:{game.id}"))
        if games and highlighted is not None:
            rows.highlighted = min(highlighted, len(games) - 1)

    def _row_width(self, count: int) -> int:
        """The cells a row of ``count`` rows has: the list's width inside its border,
        less the scrollbar's when they are more than it shows (the app's width, less
        those, before the first layout)."""
        rows = self.query_one("#ratings-rows", OptionList)
        region = rows.content_region
        width = region.width or self.app.size.width - 6
        if count > region.height:
            width -= rows.styles.scrollbar_size_vertical
        return width

    @staticmethod
    def _game_row(game: Any, width: int) -> str:
        """One game on one line of ``width`` cells: the others' names cut at a whole name
        ("+1 more"), never half a name or a second line."""
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(game.ended_at))
        result = "draw" if game.draw else ("won " if game.won else "lost")
        change = change_text(game.before.mu, game.after.mu)
        head = (f"{when}  {KIND_SHORT.get(game.kind, game.kind)[:8]:<8} {result}  "
                f"{change:>4}  {cut(game.table, 12)}: vs ")
        others = fit_names(list(game.others), width - cell_len(head))
        return escape(head + others)

    def on_resize(self) -> None:
        # A row's names are fitted to the width: a new width fits them again.
        fitted = self._fitted
        if fitted is None or fitted[0] is not self.rows:
            return  # not the games on the screen
        if self._row_width(len(self.rows)) != fitted[1]:
            self._games(self.rows)

    def _card(self, card: Any, left: str = "") -> None:
        rows = self.query_one("#ratings-rows", OptionList)
        rows.clear_options()
        if card is None:
            self._say("No rated games for this player yet.")
            return
        name = self._my_name(card.name) if card.fingerprint == self.me else card.name
        self.query_one("#ratings-title", Label).update(f"[b]{escape(name)}[/]  "
                                                       f"[dim]{card.fingerprint}[/]")
        lines = []
        for kind, standing in sorted(card.kinds.items()):
            sure = " (provisional: too few games yet to be sure)" \
                if provisional(standing.sigma) else ""
            lines.append(f"{KIND_TITLES.get(kind, kind)}: rating "
                         f"{rating_text(standing.mu, standing.sigma)}{sure}, "
                         f"{record_text(standing.games, standing.wins)}")
        if card.favourites:
            lines.append("Favourite opponents: " + ", ".join(
                f"{escape(name)} ({count})" for name, count in card.favourites))
        if left:
            lines.append(f"Abandoned games: {escape(left)}, for the stand-in to finish")
        self.query_one("#ratings-card", Static).update("\n".join(lines))

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        ident = event.option.id
        if ident is None:
            return
        if ident.startswith("game:"):
            self._replay(ident.removeprefix("game:"))
        else:
            self.view = "card"
            self.card_of = ident
            self.refresh_view()

    @work(exclusive=True, group="replay")
    async def _replay(self, game_id: str) -> None:
        from ratings.local import local_database
        from ratings.store import DatabaseError, Store
        from tui.replay import ReplayError, replay_record
        from tui.screens.replay import ReplayScreen

        try:
            store = await Store.open(local_database())
            try:
                record = await store.record(game_id)
            finally:
                await store.close()
        except DatabaseError as exc:
            self.app.notify(f"Can't read the game: {exc}", severity="error")
            return
        if record is None:
            self.app.notify("That game is no longer stored.", severity="error")
            return
        try:
            replay = replay_record(record, str(record.get("table") or "game"))
        except ReplayError as exc:
            self.app.notify(f"Can't replay it: {exc}", severity="error")
            return
        self.app.push_screen(ReplayScreen(replay))
