"""Following the game: what each notice from the table's session does to the model, the
log and the screens (the half of :class:`tui.control.Control` that watches the table; the
other half opens, leaves and closes it).

Notices update :class:`tui.model.TableModel` and go down to the screen on show as
attributes (``view``, ``seats``, ``problem``) and log lines; the history screen and the
replay of the game just played are told from the batches this peer holds.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from textual.markup import escape

from engine.actions import Block, PassBlock
from engine.events import Event
from engine.games import AnyAction
from netplay.playing.notices import (
    Applied,
    ChatLine,
    Desynced,
    GameEnded,
    GameStarted,
    HostChanged,
    HostConflict,
    HostsDisagree,
    Impostor,
    Joined,
    Missed,
    Notice,
    RaceResult,
    Refused,
    Rejected,
    Resynced,
    TableClosed,
    TableSeen,
    UnexpectedHost,
    Unseated,
    Verified,
)
from tui.away import MissedBatch, away_span, away_summary
from tui.bell import calls_for
from tui.history import History, Line, Step, history_of
from tui.messages import Problem
from tui.words import Narrator, short_name

if TYPE_CHECKING:
    from textual.screen import Screen

    from tui.appbase import GameApp
    from tui.launch import Launch
    from tui.model import TableModel
    from tui.screens.board import BoardScreen
    from tui.screens.gameover import GameOverScreen
    from tui.screens.history import HistoryScreen
    from tui.screens.lobby import LobbyScreen
    from tui.screens.table import TableScreen
    from tui.session import TableSession


class Following:
    """The notices of one table, told to its model and screens (mixed into ``Control``,
    which owns the attributes below)."""

    app: GameApp
    frozen: bool
    launch: Launch | None
    session: TableSession | None
    model: TableModel | None
    history: History | None
    notes: list[Line]
    broker_warning: str
    history_screen: HistoryScreen | None
    lobby: LobbyScreen | None
    table: TableScreen | BoardScreen | None
    gameover: GameOverScreen | None
    rated_words: str
    problem: Problem | None
    waiting: str
    _desynced: bool
    _away_batches: list[MissedBatch]
    _away_upto: int
    _sent: AnyAction | None

    if TYPE_CHECKING:
        async def show(self, screen: Screen[None]) -> None: ...

        async def failed(self, problem: Problem) -> None: ...

    async def notice(self, notice: Notice) -> None:
        model = self.model
        if model is None:
            return
        if isinstance(notice, TableSeen):
            model.read_announce(notice.announce)
            seats = tuple(model.seats)
            if self.lobby is not None:
                self.lobby.seats = seats
                self.lobby.announce = dict(notice.announce)
            if self.table is not None:
                self.table.seats = seats
        elif isinstance(notice, TableClosed):
            if self.table is not None and model.status != "over":
                self.table.say(f"[b]The host closed table {escape(repr(model.table))}.[/] "
                               "[b]Esc[/] goes back to the menu.")
        elif isinstance(notice, Joined):
            model.me = notice.seat
            model.joined = True
            if self.lobby is not None:
                self.lobby.me = notice.seat
        elif isinstance(notice, Refused):
            await self.failed(Problem(
                "The table refused you.", notice.reason.capitalize() + ".",
                _refused_advice(notice.reason), severe=True,
            ))
        elif isinstance(notice, GameStarted):
            await self._game_started(notice.names)
        elif isinstance(notice, Applied):
            self._applied(notice)
        elif isinstance(notice, Resynced):
            self._resynced(notice.n)
        elif isinstance(notice, Missed):
            self._missed(notice)
        elif isinstance(notice, Desynced):
            self._desynced = True
            self.app.notify(
                f"Your copy of the game disagreed with the host's at batch {notice.n}. "
                "Asking the host for its version…", severity="warning", timeout=5,
            )
        elif isinstance(notice, Rejected):
            self._rejected(notice.reason)
        elif isinstance(notice, RaceResult):
            narrator = self.history.narrator if self.history is not None else None
            if isinstance(narrator, Narrator) and self.history is not None \
                    and self.table is not None:
                line = narrator.race(notice.pile, notice.winner, notice.presses)
                if line:
                    self.notes.append(self.history.note(line))
                    self.table.say(line)
        elif isinstance(notice, ChatLine):
            for screen in (self.table, self.lobby):
                if screen is not None and screen.is_attached:
                    screen.heard(notice.name, notice.text)
        elif isinstance(notice, GameEnded):
            await self._game_ended()
        elif isinstance(notice, Verified):
            model.verdict = (notice.verdict.ok, notice.verdict.detail)
            if self.gameover is not None:
                self.gameover.verdict = model.verdict
        elif isinstance(notice, Impostor):
            self.app.notify(
                f"Someone is impersonating this table: {notice.what}. The host put its own "
                "announcement back; you stay with your host.", severity="warning", timeout=10,
            )
        elif isinstance(notice, HostConflict):
            self.app.notify(
                f"Another host ({notice.other.fingerprint}) claims this table; you stay at "
                f"yours ({notice.current.fingerprint}).", severity="warning", timeout=10,
            )
        elif isinstance(notice, HostsDisagree):
            await self._hosts_disagree(notice)
        elif isinstance(notice, UnexpectedHost):
            self.app.notify(
                f"Another host ({notice.other.fingerprint}) announces this table; you joined "
                f"its game with host {notice.expected}, so you stay with that one until the "
                f"game ends. To follow the other instead, join "
                f"{notice.table}@{notice.other.fingerprint}.", severity="warning", timeout=15,
            )
        elif isinstance(notice, HostChanged):
            self.app.notify(
                f"The host {notice.old.fingerprint} closed this table; following its new host "
                f"{notice.new.fingerprint}.", severity="warning", timeout=10,
            )
        elif isinstance(notice, Unseated):
            self.app.notify(
                f"{notice.name} lost seat {notice.seat + 1} before the deal ({notice.why}). "
                "Nothing was dealt: the game starts once the seat is taken again.",
                severity="warning", timeout=10,
            )

    async def _hosts_disagree(self, notice: HostsDisagree) -> None:
        """Two host keys claim the table we have not joined yet: we follow neither until
        the user picks one (as if pinned, TABLE@FINGERPRINT)."""
        from textual.markup import escape

        from tui.screens.choice import Answer, ChoiceScreen

        def picked(key: bytes | None) -> None:
            if key is None:
                pins = ", ".join(notice.pins())
                self.app.notify(f"You follow no host of table {notice.table}: leave, and "
                                f"join one of {pins}.", severity="warning", timeout=15)
            elif self.session is not None:
                self.session.follow(key)

        await self.app.push_screen(ChoiceScreen(
            f"{len(notice.claims)} hosts announce table {notice.table}: you follow neither "
            "until you choose. Compare the fingerprints with the one your host gives you "
            "(its lobby shows it); joining TABLE@FINGERPRINT pins one.",
            [Answer(f"follow: {escape(claim.words())}", claim.key) for claim in notice.claims],
        ), picked)

    def _rejected(self, reason: str) -> None:
        sent, self._sent = self._sent, None
        if isinstance(sent, PassBlock):
            return  # the window closed before our pass arrived: nothing lost
        if isinstance(sent, Block):
            self.app.notify(f"Your Block came too late: {reason}.", severity="warning",
                            timeout=4)
            return
        self.app.notify(f"The host refused that: {reason}", severity="warning", timeout=4)

    def _view(self) -> None:
        session, model = self.session, self.model
        if session is None or session.player is None or model is None:
            return
        view = session.player.view
        if view is not model.view:
            before, model.view = model.view, view
            if self.table is not None and view is not None:
                self.table.view = view
            if view is not None:
                self._call_back(before, view)

    def _call_back(self, before: object | None, view: object) -> None:
        """Ring when the table turns to us, at a networked table only (``tui.bell``)."""
        launch, model = self.launch, self.model
        if launch is None or launch.role not in ("host", "join") or model is None:
            return
        words = calls_for(before, view, model.me)
        if words is not None:
            self.app.ring(words)

    def game(self) -> str:
        """The table's game: the one our player follows (else the announced one)."""
        player = self.session.player.player if self.session and self.session.player else None
        if player is not None:
            return player.definition.name
        return self.model.game if self.model is not None else "stacks"

    def _teams(self) -> int | None:
        view = self.model.view if self.model is not None else None
        return getattr(view, "teams", None)

    async def _game_started(self, names: tuple[str, ...]) -> None:
        from tui.screens.board import BoardScreen
        from tui.screens.table import TableScreen

        model = self.model
        assert model is not None
        if self.table is not None:
            return  # told twice (a welcome back and the start): one table is enough
        names = tuple(short_name(name) for name in names)
        model.names = names
        model.status = "playing"
        if self.session is not None and self.session.player is not None:
            model.me = self.session.player.seat
        model.stats.ensure(len(names))
        game = model.game = self.game()
        self.history = History(names, model.me, game)
        if game == "stacks":
            self.table = TableScreen(model.table, names, model.me,
                                     block_window=model.block_window, frozen=self.frozen)
        else:
            self.table = BoardScreen(model.table, names, model.me, frozen=self.frozen)
        self.table.seats = tuple(model.seats)
        self.table.problem = self.problem
        self.table.waiting = self.waiting
        await self.show(self.table)
        self.lobby = None
        self._view()
        if game != "stacks" and model.view is not None:
            self.history.narrator.learn(model.view)  # its teams

    def _applied(self, notice: Applied) -> None:
        model, history, table = self.model, self.history, self.table
        if model is None:
            return
        for event in notice.events:
            if isinstance(event, Event):  # the counts of the game-over screen (Stacks')
                model.stats.add(event)
        if history is not None:
            lines = history.add(Step.of(notice.n, notice.action, notice.events, notice.standin))
            if table is not None:
                for line in lines:
                    table.say(line.markup)
        self._view()
        self._refresh_history()

    def _missed(self, notice: Missed) -> None:
        """What happened while we were away: gathered until the last batch the snapshot
        stood in for, then said in one line (:mod:`tui.away`); the history screen retells
        it all in its place."""
        model, table = self.model, self.table
        if model is None or table is None:
            return
        self._away_batches.append(
            MissedBatch(notice.n, notice.action, notice.events, notice.standin))
        if notice.n >= self._away_upto:
            span = away_span(self._away_batches, model.me)
            self._away_batches = []
            table.say(f"[b]{escape(away_summary(span, model.names, model.me))}[/]")
        self._refresh_history()

    def _resynced(self, n: int) -> None:
        self._view()
        history, model = self.history, self.model
        self._away_upto = n  # Missed notices up to it are summed up once the last is in
        if history is not None and model is not None and model.view is not None:
            # The batches the snapshot stood in for come later, as Missed notices; the
            # history screen retells them in their places.
            history.gap(n)
            history.at_turn(model.view.turn)  # a rejoin's log keeps its turn numbers
            history.narrator.learn(model.view)
        if self._desynced:
            self._desynced = False
            self.app.notify("Repaired: your game now matches the host's again. Nothing to do.",
                            timeout=5)

    # -- the whole history ------------------------------------------------------------------

    def history_lines(self) -> list[Line]:
        """Every line of the game so far, retold from every batch this peer holds (history
        the host sent after a rejoin too), with the Block races in their places."""
        model = self.model
        player = self.session.player.player if self.session and self.session.player else None
        if model is None:
            return []
        if player is None or not player.received:
            return list(self.history.lines) if self.history is not None else []
        told = history_of(player.received, model.names, model.me, upto=player.applied,
                          game=model.game, teams=self._teams()).lines
        notes = sorted(self.notes, key=lambda line: line.n)
        merged: list[Line] = []
        for line in told:
            while notes and notes[0].n < line.n:
                merged.append(notes.pop(0))
            merged.append(line)
        return merged + notes

    async def show_history(self) -> None:
        from tui.screens.history import HistoryScreen

        model = self.model
        if model is None or self.table is None:
            return
        screen = HistoryScreen(model.table, self.history_lines())

        def closed(_: None) -> None:
            self.history_screen = None

        self.history_screen = screen
        await self.app.push_screen(screen, closed)

    async def show_replay(self) -> None:
        """The game just played, from the start: every hand once the host revealed its
        secret, else this peer's own view."""
        from tui.replay import ReplayError, replay_game
        from tui.screens.replay import ReplayScreen

        model = self.model
        player = self.session.player.player if self.session and self.session.player else None
        if model is None or player is None or player.facts is None or not player.received:
            self.app.notify("Nothing to replay here: the game's events are not known.",
                            severity="warning", timeout=4)
            return
        try:
            replay = replay_game(player.facts, model.names, player.received, player.audience,
                                 player.secret)
        except ReplayError as exc:
            self.app.notify(f"This game can't be replayed: {exc}", severity="warning",
                            timeout=5)
            return
        seat = None if replay.every_hand else model.me
        await self.app.push_screen(ReplayScreen(replay, seat=seat))

    def _refresh_history(self) -> None:
        if self.history_screen is not None and self.history_screen.is_attached:
            self.history_screen.show(self.history_lines())

    async def _game_ended(self) -> None:
        from tui.screens.gameover import GameOverScreen

        model = self.model
        assert model is not None
        self._view()
        model.status = "over"
        if self.gameover is not None or model.view is None or model.view.outcome is None:
            return
        self.gameover = GameOverScreen(
            model, hosting=bool(self.launch and (self.launch.hosting or self.launch.held)))
        self.gameover.set_reactive(GameOverScreen.rated, self.rated_words)
        if self.app.link is not None and self.launch is not None and not self.launch.hosting:
            # A table the ssh server holds: it says what became of the game in its ratings.
            self.app.run_worker(self._ask_rated(self.launch.table), group="link")
        while len(self.app.screen_stack) > 2:
            await self.app.pop_screen()
        await self.app.push_screen(self.gameover)


    async def _ask_rated(self, table: str) -> None:
        """Ask the ssh server what became of the held table's game in its ratings, until
        it knows (it stores the game after the players' fair-deal checks)."""
        from tui.messages import Rated
        from tui.serve_link import LinkError

        link = self.app.link
        assert link is not None
        for _ in range(RATED_ASKS):
            try:
                info = await link.request("info", table=table)
            except LinkError:
                return
            if not info.get("held"):
                return
            words = info.get("rated")
            if isinstance(words, str) and words:
                self.app.post_message(Rated(words[:300]))
                return
            await asyncio.sleep(RATED_EVERY)


RATED_ASKS = 60
RATED_EVERY = 1.0


def _refused_advice(reason: str) -> str:
    if "password" in reason:
        return "Ask the host for the password and join again with --password."
    if "full" in reason:
        return "Every seat is taken: watch instead (stacks watch TABLE)."
    if "started" in reason:
        return "The game is on: watch it (stacks watch TABLE) or wait for the next one."
    if "can't show" in reason:
        return ("Follow it with stacks watch TABLE --headless, or seat a bot there: "
                "stacks bot TABLE.")
    return "Esc goes back to the menu."
