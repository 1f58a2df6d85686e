"""Following the game: what each notice from the table's session does to the model, the
log and the screens. :class:`tui.control.Control` opens, leaves and closes tables; for
each one it opens it makes a :class:`Following`, which watches it.

Notices update :class:`tui.model.TableModel` and go down to the screen on show as
attributes (``view``, ``seats``, ``problem``) and log lines; the history screen and the
replay of the game just played are told from the batches this peer holds.
"""

from __future__ import annotations

import asyncio
import time
from functools import singledispatchmethod
from typing import TYPE_CHECKING, Protocol

from textual.markup import escape

from engine.actions import Block, PassBlock
from engine.games import AnyAction
from netplay.playing.notices import (
    Applied,
    ChatLine,
    Desynced,
    GameEnded,
    GameStarted,
    HostChanged,
    HostConflict,
    HostMoved,
    HostsDisagree,
    Impostor,
    Joined,
    Missed,
    NextGame,
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
from tui.model import results_of
from tui.moderation import heard_lines
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


class Owner(Protocol):
    """What following a table needs of its control (:class:`tui.control.Control`): the
    app, the table's launch and session as they are now, and the screen above the menu."""

    app: GameApp
    frozen: bool
    launch: Launch | None
    session: TableSession | None

    async def show(self, screen: Screen[None]) -> None:
        """Make ``screen`` the one screen above the app's base."""

    async def failed(self, problem: Problem) -> None:
        """The table can't go on: say why, then back to the menu."""

    async def rematch(self) -> None:
        """The table's next game: host it again, or follow its host's."""


KIOSK_RESULT_HOLD = 12.0
"""Seconds a kiosk (every browser visitor of a table, `stacks web`) keeps a game's result on
its page before it follows the table's next game, so a visitor reads who won."""


class Following:
    """One table's notices, told to its model and its screens. :class:`tui.control.Control`
    makes one for each table it opens and hands it what the session reports."""

    def __init__(self, owner: Owner, model: TableModel) -> None:
        self.owner = owner
        self.model = model
        self.history: History | None = None
        """The live log's story (the history screen retells it from every batch held)."""
        self.notes: list[Line] = []
        """Lines that are not events (Block races), to merge into a retold history."""
        self.history_screen: HistoryScreen | None = None
        self.lobby: LobbyScreen | None = None
        self.table: TableScreen | BoardScreen | None = None
        """The game's screen: the Sequence Stacks table, or a classic Sequence board."""
        self.gameover: GameOverScreen | None = None
        self.heard = heard_lines()
        """The table's last chat lines (shown name, text): a report sends the
        reported player's with it (`tui.moderation`)."""
        self.rated_words = ""
        """What became of the last game in the ratings, in words (`rated`)."""
        self.problem: Problem | None = None
        self.waiting = ""
        """The session's last waiting line (``Waiting``): a game screen made after it came
        shows it too ("2 s behind the players" is said once, before the game starts)."""
        self.sent: AnyAction | None = None
        """The last action sent, to word the host's refusal of it."""
        self._desynced = False
        self._away_batches: list[MissedBatch] = []
        """The batches missed while away, until the last one comes (``Missed``)."""
        self._away_upto = 0
        self._over_at: float | None = None
        """When the game-over screen came (`time.monotonic`)."""
        self._following_next = False

    @property
    def app(self) -> GameApp:
        return self.owner.app

    @property
    def session(self) -> TableSession | None:
        return self.owner.session

    # -- what the session says, besides the notices ----------------------------------------------

    def health(self, problem: Problem | None) -> None:
        self.problem = problem
        for screen in (self.lobby, self.table):
            if screen is not None:
                screen.problem = problem

    def wait(self, line: str) -> None:
        """The session's waiting line: on the game's screen, and on the next one made."""
        self.waiting = line
        if self.table is not None:
            self.table.waiting = line

    def rated(self, text: str) -> None:
        """What became of the game in the ratings: on the game-over screen."""
        self.rated_words = text
        if self.gameover is not None:
            self.gameover.rated = text

    def record_written(self, path: str) -> None:
        if self.gameover is not None:
            self.gameover.record = path

    # -- the notices -------------------------------------------------------------------------

    @singledispatchmethod
    async def notice(self, notice: Notice) -> None:
        """A notice the screens show otherwise (the host offline or back: the connection's
        health)."""

    @notice.register
    async def _table_seen(self, notice: TableSeen) -> None:
        model = self.model
        model.read_announce(notice.announce)
        seats = tuple(model.seats)
        if self.lobby is not None:
            self.lobby.seats = seats
            self.lobby.announce = dict(notice.announce)
        if self.table is not None:
            self.table.seats = seats

    @notice.register
    async def _table_closed(self, notice: TableClosed) -> None:
        if self.table is not None and self.model.status != "over":
            self.table.say(f"[b]The host closed table {escape(repr(self.model.table))}.[/] "
                           "[b]Esc[/] goes back to the menu.")

    @notice.register
    async def _joined(self, notice: Joined) -> None:
        self.model.me = notice.seat
        self.model.joined = True
        if self.lobby is not None:
            self.lobby.me = notice.seat

    @notice.register
    async def _refused(self, notice: Refused) -> None:
        launch = self.owner.launch
        table = launch.table if launch is not None else "TABLE"
        await self.owner.failed(Problem(
            "The table refused you.", notice.reason.capitalize() + ".",
            _refused_advice(notice.reason, table), severe=True,
            watch=launch is not None and _watchable(notice.reason),
        ))

    @notice.register
    async def _desync(self, notice: Desynced) -> None:
        self._desynced = True
        self.app.notify(
            f"Your copy of the game disagreed with the host's at batch {notice.n}. "
            "Asking the host for its version…", severity="warning", timeout=5,
        )

    @notice.register
    async def _race(self, notice: RaceResult) -> None:
        narrator = self.history.narrator if self.history is not None else None
        if isinstance(narrator, Narrator) and self.history is not None \
                and self.table is not None:
            line = narrator.race(notice.pile, notice.winner, notice.presses)
            if line:
                self.notes.append(self.history.note(line))
                self.table.say(line)

    @notice.register
    async def _chat(self, notice: ChatLine) -> None:
        self.heard.append((notice.name, notice.text))
        for screen in (self.table, self.lobby):
            if screen is not None and screen.is_attached:
                screen.heard(notice.name, notice.text)

    @notice.register
    async def _verified(self, notice: Verified) -> None:
        self.model.verdict = (notice.verdict.ok, notice.verdict.detail)
        self._count_results()  # every batch is here now: the check needed them all
        if self.gameover is not None:
            self.gameover.verdict = self.model.verdict
            self.gameover.results = self.model.results

    def _count_results(self) -> None:
        """The game's end in numbers, from every batch of the game this peer holds (not
        from what it saw live: a player back from a drop reads what everyone reads)."""
        session = self.session
        peer = session.player if session is not None else None
        if peer is None or self.model.view is None:
            return
        results = results_of(self.model.view.players, peer.player.received)
        if results is not None:
            self.model.results = results

    @notice.register
    async def _impostor(self, notice: Impostor) -> None:
        self.app.notify(
            f"Someone is impersonating this table: {notice.what}. The host put its own "
            "announcement back; you stay with your host.", severity="warning", timeout=10,
        )

    @notice.register
    async def _next_game(self, notice: NextGame) -> None:
        launch = self.owner.launch
        if launch is not None and launch.hosting and not launch.held:
            return  # our own rematch
        if self.app.kiosk:
            self._kiosk_next_game()
            return
        what = "watch" if self.model.spectator or self.model.me is None else "join"
        self.app.notify(f"The next game at {notice.table} has opened: r to {what} it.",
                        timeout=10)

    def _kiosk_next_game(self) -> None:
        """A kiosk has no keys for "r": once its visitors had the result a while, it
        watches the table's next game by itself (said on the page meanwhile)."""
        if self._following_next:
            return
        self._following_next = True
        shown = time.monotonic() - self._over_at if self._over_at is not None else 0.0
        wait = max(0.0, KIOSK_RESULT_HOLD - shown)
        if wait > 0:
            self.app.notify(f"The next game at this table has opened: it shows here in "
                            f"{wait:.0f} s.", timeout=wait)

        def follow() -> None:
            self.app.run_worker(self.owner.rematch(), group="kiosk-next")

        self.app.set_timer(wait, follow) if wait > 0 else follow()

    @notice.register
    async def _host_conflict(self, notice: HostConflict) -> None:
        self.app.notify(
            f"Another host ({notice.other.fingerprint}) claims this table; you stay at "
            f"yours ({notice.current.fingerprint}).", severity="warning", timeout=10,
        )

    @notice.register
    async def _unexpected_host(self, notice: UnexpectedHost) -> None:
        self.app.notify(
            f"Another host ({notice.other.fingerprint}) announces this table; you joined "
            f"its game with host {notice.expected}, so you stay with that one until the "
            f"game ends. To follow the other instead, join "
            f"{notice.table}@{notice.other.fingerprint}.", severity="warning", timeout=15,
        )

    @notice.register
    async def _host_moved(self, notice: HostMoved) -> None:
        self.app.notify(f"{notice.words()}.", severity="information", timeout=10)

    @notice.register
    async def _host_changed(self, notice: HostChanged) -> None:
        self.app.notify(
            f"The host {notice.old.fingerprint} closed this table; following its new host "
            f"{notice.new.fingerprint}.", severity="warning", timeout=10,
        )

    @notice.register
    async def _unseated(self, notice: Unseated) -> None:
        self.app.notify(
            f"{notice.name} lost seat {notice.seat + 1} before the deal ({notice.why}). "
            "Nothing was dealt: the game starts once the seat is taken again.",
            severity="warning", timeout=10,
        )

    @notice.register
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

    @notice.register
    async def _rejected(self, notice: Rejected) -> None:
        sent, self.sent = self.sent, None
        if isinstance(sent, PassBlock):
            return  # the window closed before our pass arrived: nothing lost
        if isinstance(sent, Block):
            self.app.notify(f"Your Block came too late: {notice.reason}.", severity="warning",
                            timeout=4)
            return
        self.app.notify(f"The host refused that: {notice.reason}", severity="warning",
                        timeout=4)

    def _view(self) -> None:
        session, model = self.session, self.model
        if session is None or session.player is None:
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
        launch, model = self.owner.launch, self.model
        if launch is None or launch.role not in ("host", "join"):
            return
        words = calls_for(before, view, model.me)
        if words is not None:
            self.app.ring(words)

    def game(self) -> str:
        """The table's game: the one our player follows (else the announced one)."""
        player = self.session.player.player if self.session and self.session.player else None
        if player is not None:
            return player.definition.name
        return self.model.game

    def _teams(self) -> int | None:
        return getattr(self.model.view, "teams", None)

    @notice.register
    async def _game_started(self, notice: GameStarted) -> None:
        from tui.screens.board import BoardScreen
        from tui.screens.table import TableScreen

        model, frozen = self.model, self.owner.frozen
        if self.table is not None:
            return  # told twice (a welcome back and the start): one table is enough
        names = tuple(short_name(name) for name in notice.names)
        model.names = names
        model.status = "playing"
        if self.session is not None and self.session.player is not None:
            model.me = self.session.player.seat
        game = model.game = self.game()
        self.history = History(names, model.me, game)
        if game == "stacks":
            self.table = TableScreen(model.table, names, model.me,
                                     block_window=model.block_window, frozen=frozen)
        else:
            self.table = BoardScreen(model.table, names, model.me, frozen=frozen)
        self.table.seats = tuple(model.seats)
        self.table.problem = self.problem
        self.table.waiting = self.waiting
        await self.owner.show(self.table)
        self.lobby = None
        self._view()
        if game != "stacks" and model.view is not None:
            self.history.narrator.learn(model.view)  # its teams

    @notice.register
    async def _applied(self, notice: Applied) -> None:
        history, table = self.history, self.table
        if history is not None:
            lines = history.add(Step.of(notice.n, notice.action, notice.events, notice.standin))
            if table is not None:
                for line in lines:
                    table.say(line.markup)
        self._view()
        self._refresh_history()

    @notice.register
    async def _missed(self, notice: Missed) -> None:
        """What happened while we were away: gathered until the last batch the snapshot
        stood in for, then said in one line (:mod:`tui.away`); the history screen retells
        it all in its place."""
        model, table = self.model, self.table
        if table is None:
            return
        self._away_batches.append(
            MissedBatch(notice.n, notice.action, notice.events, notice.standin))
        if notice.n >= self._away_upto:
            span = away_span(self._away_batches, model.me)
            self._away_batches = []
            table.say(f"[b]{escape(away_summary(span, model.names, model.me))}[/]")
        self._refresh_history()

    @notice.register
    async def _resynced(self, notice: Resynced) -> None:
        self._view()
        history, model, n = self.history, self.model, notice.n
        self._away_upto = n  # Missed notices up to it are summed up once the last is in
        if history is not None and model.view is not None:
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
        if self.table is None:
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
        if player is None or player.facts is None or not player.received:
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

    @notice.register
    async def _game_ended(self, notice: GameEnded) -> None:
        from tui.screens.gameover import GameOverScreen

        model, launch = self.model, self.owner.launch
        self._view()
        model.status = "over"
        if self.gameover is not None or model.view is None or model.view.outcome is None:
            return
        self._over_at = time.monotonic()
        self._count_results()
        self.gameover = GameOverScreen(
            model, hosting=bool(launch and (launch.hosting or launch.held)))
        self.gameover.set_reactive(GameOverScreen.rated, self.rated_words)
        if self.app.link is not None and launch is not None and not launch.hosting:
            # A table the ssh server holds: it says what became of the game in its ratings.
            self.app.run_worker(self._ask_rated(launch.table), group="link")
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
        shown = ""
        for ask in range(RATED_ASKS + KEPT_ASKS):
            try:
                info = await link.request("info", table=table)
            except LinkError:
                return
            words = info.get("rated")
            if isinstance(words, str) and words and words != shown:
                shown = words
                self.app.post_message(Rated(words[:300]))
            if shown and info.get("rated_final", True):
                return  # stored (or refused for good): the last word
            if not shown and (not info.get("held") or ask >= RATED_ASKS):
                return
            # Not known yet, or kept while the server's database is down: asked again
            # until it is stored, so the box never keeps saying "down" after it is back.
            await asyncio.sleep(RATED_EVERY if not shown else KEPT_EVERY)


RATED_ASKS = 60
RATED_EVERY = 1.0
KEPT_ASKS = 360
KEPT_EVERY = 5.0
"""A game kept while the server's database is down: asked after for half an hour."""


def _watchable(reason: str) -> bool:
    """A refusal for want of a seat: the table can be watched instead."""
    return "full" in reason or "started" in reason


def _refused_advice(reason: str, table: str) -> str:
    if "password" in reason:
        return "Ask the host for the password and join again with --password."
    if "full" in reason:
        return f"Every seat is taken: w watches it (or: stacks watch {table})."
    if "started" in reason:
        return (f"The game is on: w watches it (or: stacks watch {table}), or wait for "
                "the next one.")
    if "can't show" in reason:
        return (f"Follow it with stacks watch {table} --headless, or seat a bot there: "
                f"stacks bot {table}.")
    return "Esc goes back to the menu."
