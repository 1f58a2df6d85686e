"""Between the session and the screens: keeps the table's model and shows what happened.

Notices from the session update :class:`tui.model.TableModel` and go down to the screen
on show as attributes (``view``, ``seats``, ``problem``) and log lines. What the user
asks for goes to the session. Nothing here waits on the network.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from textual.screen import Screen
from textual.worker import Worker

from engine.actions import Block, PassBlock
from engine.events import Event
from engine.games import AnyAction
from netplay.memory import AsyncMemoryBroker
from netplay.player import (
    Applied,
    ChatLine,
    Desynced,
    GameEnded,
    GameStarted,
    HostChanged,
    HostConflict,
    Impostor,
    Joined,
    Missed,
    Notice,
    RaceResult,
    Refused,
    Rejected,
    Resynced,
    TableSeen,
    UnexpectedHost,
    Unseated,
    Verified,
)
from tui.argtypes import counted
from tui.classic_words import ClassicNarrator
from tui.history import History, Line, Step, history_of
from tui.launch import Launch
from tui.messages import Problem
from tui.model import TableModel
from tui.serve_link import SERVED_EXTRAS
from tui.words import Narrator, broker_line, short_name

if TYPE_CHECKING:
    from tui.app import StacksApp
    from tui.screens.board import BoardScreen
    from tui.screens.gameover import GameOverScreen
    from tui.screens.history import HistoryScreen
    from tui.screens.lobby import LobbyScreen
    from tui.screens.table import TableScreen
    from tui.session import TableSession


class Control:
    """One table at a time: its session, its model and its screens."""

    def __init__(
        self, app: StacksApp, *, profiles: Path | None, frozen: bool,
        memory: AsyncMemoryBroker | None = None,
    ) -> None:
        self.app = app
        self.memory = memory
        self.profiles = profiles
        self.frozen = frozen
        self.launch: Launch | None = None
        self.session: TableSession | None = None
        self.worker: Worker[None] | None = None
        self.model: TableModel | None = None
        self.history: History | None = None
        """The live log's story (the history screen retells it from every batch held)."""
        self.notes: list[Line] = []
        self.broker_warning = ""
        """What the session found wrong with the broker (``BrokerNote``), or ""."""
        """Lines that are not events (Block races), to merge into a retold history."""
        self.history_screen: HistoryScreen | None = None
        self.lobby: LobbyScreen | None = None
        self.table: TableScreen | BoardScreen | None = None
        """The game's screen: the Sequence Stacks table, or a classic Sequence board."""
        self.gameover: GameOverScreen | None = None
        self.problem: Problem | None = None
        self._desynced = False
        self._away: Narrator | ClassicNarrator | None = None
        self._away_next = 0
        self._closing: Worker[None] | None = None
        self._sent: AnyAction | None = None
        """The last action sent, to word the host's refusal of it."""
        self.waiting = ""
        """The session's last waiting line (``Waiting``): a game screen made after it came
        shows it too ("2 s behind the players" is said once, before the game starts)."""
        self._quitting: TableSession | None = None
        """The session the app waits for before it quits (its spectators are behind)."""

    # -- screens -------------------------------------------------------------------------------

    async def show(self, screen: Screen[None]) -> None:
        """Make ``screen`` the one screen above the app's base (modals are closed)."""
        app = self.app
        while len(app.screen_stack) > 2:
            await app.pop_screen()
        if len(app.screen_stack) == 2:
            await app.switch_screen(screen)
        else:
            await app.push_screen(screen)

    async def menu(self) -> None:
        from tui.screens.menu import MenuScreen

        await self.stop()
        await self.show(MenuScreen())

    # -- the session ---------------------------------------------------------------------------

    async def start(self, launch: Launch, *, skip_host: bytes | None = None) -> None:
        """Open ``launch``'s table: the lobby, then the table when the game starts."""
        from tui.screens.lobby import LobbyScreen

        await self.stop()
        if launch.role == "join" and not launch.held and self.app.link is not None:
            launch = await self._ours(launch)
        self.launch = launch
        self.model = TableModel(table=launch.table, spectator=launch.role == "watch",
                                players=launch.players if launch.hosting else 0,
                                game=launch.variant if launch.hosting else "stacks")
        self.history = None
        self.waiting = ""
        self.notes = []
        self.broker_warning = ""
        self.table = None
        self.gameover = None
        self.problem = None
        self.lobby = LobbyScreen(launch, self.model)
        await self.show(self.lobby)
        if launch.role == "host" and not launch.table_open:
            return  # the host chooses the settings first; the lobby calls open_table
        self._run(launch, skip_host=skip_host)

    async def open_held(self, launch: Launch) -> str | None:
        """Ask the ssh server to open ``launch``'s table, then sit at it as a player.
        ``None`` when it is open, else why not (for the host form)."""
        from tui.serve_link import LinkError

        link = self.app.link
        if link is None:
            return "this program was not started by `stacks serve`"
        # Table settings that not every version has (the turn clock...) go when present.
        extra = {name: getattr(launch, name) for name in SERVED_EXTRAS if hasattr(launch, name)}
        try:
            reply = await link.request(
                "open", **extra, table=launch.table, players=launch.players, bots=launch.bots,
                block_window=launch.block_window, bot_delay=launch.bot_delay,
                password=launch.password, rules=launch.rules.to_wire(),
                dealer=None if launch.dealer is None else launch.dealer % launch.players,
                **({"game": launch.variant} if launch.variant != "stacks" else {}),
            )
        except LinkError as exc:
            return str(exc)
        seat = replace(launch, role="join", held=True, table_open=True,
                       broker=str(reply.get("broker") or launch.broker))
        skip = self.session.host_key if self.session is not None else None
        await self.start(seat, skip_host=skip)
        return None

    async def _ours(self, launch: Launch) -> Launch:
        """``launch`` as the creator's if the ssh server holds its table for this key (a
        creator coming back with `join TABLE` gets its table's controls back)."""
        from tui.serve_link import LinkError

        assert self.app.link is not None
        try:
            info = await self.app.link.request("info", table=launch.table)
        except LinkError:
            return launch
        return replace(launch, held=True) if info.get("creator") is True else launch

    async def close_held(self) -> None:
        """The creator closes its held table (the server refuses once the game is on)."""
        from tui.serve_link import LinkError

        launch, link = self.launch, self.app.link
        if launch is None or not launch.held or link is None:
            return
        try:
            await link.request("close", table=launch.table)
        except LinkError as exc:
            self.app.notify(f"Can't close the table: {exc}", severity="warning", timeout=5)
            return
        self.app.notify(f"Table {launch.table} is closed.", timeout=4)
        await self.menu()

    async def _fill_held(self, table: str) -> None:
        from tui.serve_link import LinkError

        assert self.app.link is not None
        try:
            reply = await self.app.link.request("fill", table=table)
        except LinkError as exc:
            self.app.notify(f"No bots: {exc}", severity="warning", timeout=5)
            return
        if reply.get("bots"):
            self.app.notify(f"{counted(reply['bots'], 'bot')} on their way; the game starts "
                            "when every seat is taken.", timeout=4)

    async def open_table(self, launch: Launch) -> None:
        """The host chose the settings in the lobby: open the table."""
        self.launch = replace(launch, table_open=True)
        if self.model is not None:
            self.model.players = launch.players
            self.model.game = launch.variant
        self._run(self.launch)

    def _run(self, launch: Launch, *, skip_host: bytes | None = None) -> None:
        from tui.session import TableSession

        self.session = TableSession(launch, self.app.post_message, profiles=self.profiles,
                                    after=self._closing, memory=self.memory,
                                    skip_host=skip_host)
        self._closing = None
        self.worker = self.app.run_worker(
            self.session.run(), name="table-session", group="session", exclusive=True,
            exit_on_error=False,
        )

    async def stop(self) -> None:
        """Close the session in the background (the next one waits for it)."""
        worker, self.worker = self.worker, None
        self.session = None
        if worker is not None and not worker.is_finished:
            worker.cancel()
            # Out of the session group: the next session's start (exclusive in it) must not
            # cancel it again while it closes (a host waiting for its spectators, say).
            worker.group = "closing"
            self._closing = worker

    async def close(self, timeout: float = 3.0) -> None:
        """Close the session and wait (a little) for it: a host takes its table off the
        broker, a player says it is offline."""
        worker = self.worker or self._closing
        await self.stop()
        if worker is not None and not worker.is_finished:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(worker.wait(), timeout)

    async def leave(self) -> None:
        launch = self.launch
        if launch is not None and launch.held and self.model is not None \
                and self.model.status != "over":
            self.app.notify(f"Table {launch.table} stays open on the server; your seat is "
                            f"kept. Back with: {launch.ssh or 'ssh'} join {launch.table}",
                            timeout=6)
        await self._mind_spectators(self.menu, "leave")

    def spectators_behind(self) -> float:
        """Seconds the spectators of the table we host are still behind its end (0: none)."""
        launch, session = self.launch, self.session
        if launch is None or session is None or not launch.hosting:
            return 0.0
        return session.spectators_behind()

    async def _mind_spectators(self, then: Callable[[], Awaitable[None]], what: str) -> None:
        """Do ``then`` (leave, play again, quit). While the spectators of the table we host
        are behind its end (the spectator delay), ask first: wait for them (the table
        stays up, in the background, until they have seen the end), or close it now
        (they get the rest at once); Esc stays."""
        from textual.markup import escape

        from tui.screens.choice import Answer, ChoiceScreen

        behind = self.spectators_behind()
        session = self.session
        if behind <= 0 or session is None:
            await then()
            return
        table = self.launch.table if self.launch is not None else "?"

        async def chosen(wait: bool | None) -> None:
            if wait is None or self.session is not session:
                return
            session.linger = wait
            if wait:
                left = max(1.0, session.spectators_behind())
                self.app.notify(f"Table {table} stays open until its spectators have seen "
                                f"the end ({left:.0f} s).", timeout=min(10.0, left + 2))
            await then()

        await self.app.push_screen(ChoiceScreen(
            f"Your spectators are {behind:.0f} s behind the players: they have not seen the "
            "end of the game yet.",
            [Answer(f"Wait for them ({behind:.0f} s), then {escape(what)}", True),
             Answer(f"Close the table now and {escape(what)} (they get the rest at once)",
                    False)],
        ), chosen)

    async def quit(self) -> None:
        """Leave the table properly (a host clears its announcement), then quit; a host
        whose spectators are behind asks first (see :meth:`_mind_spectators`), and a
        second quit while it waits for them closes now."""
        waiting = self._quitting
        if waiting is not None:
            waiting.close_now()
            return

        async def go() -> None:
            session, worker = self.session, self.worker
            if session is not None and worker is not None and session.linger:
                self._quitting = session
                self.app.notify("Quitting once the spectators have seen the end; Ctrl+Q "
                                "again quits now.", timeout=10)
                await self.stop()
                self.app.run_worker(self._exit_after(worker), group="quit")
                return
            if self.worker is not None:
                self.app.notify("Closing the table…", timeout=3)
                await self.close()
            self.app.exit()

        await self._mind_spectators(go, "quit")

    async def _exit_after(self, worker: Worker[None]) -> None:
        with contextlib.suppress(Exception):
            await worker.wait()
        self.app.exit()

    async def rematch(self) -> None:
        """Host again (a new game, same settings), or join the host's next game."""
        if self.launch is None:
            return
        view = self.model.view if self.model is not None else None
        dealer = view.dealer if view is not None and view.turn > 0 else None
        if self.launch.held:
            # Our table is held by the server: ask it for the next game at the same table.
            error = await self.open_held(self.launch.rematch(dealer))
            if error is not None:
                self.app.notify(f"No new game: {error}", severity="warning", timeout=5)
            return
        skip = None
        if not self.launch.hosting and self.session is not None:
            skip = self.session.host_key  # its retained announcement is of the old game
        launch = self.launch.rematch(dealer)

        async def again() -> None:
            lingering = self.session if self.session is not None and self.session.linger \
                else None
            await self.start(launch, skip_host=skip)
            if lingering is not None:
                self.app.notify("The next game opens when the last one's spectators have "
                                f"seen its end ({lingering.spectators_behind():.0f} s).",
                                timeout=8)

        await self._mind_spectators(again, "play again")

    async def results(self) -> None:
        if self.gameover is not None and self.app.screen is not self.gameover:
            await self.app.push_screen(self.gameover)

    def act(self, action: AnyAction) -> None:
        if self.session is not None:
            self._sent = action
            self.session.act(action)

    def say(self, text: str) -> None:
        if self.session is not None:
            self.session.chat(text)

    def fill_with_bots(self) -> None:
        if self.launch is not None and self.launch.held and self.app.link is not None:
            self.app.run_worker(self._fill_held(self.launch.table), group="link")
            return
        if self.session is not None:
            count = self.session.fill_with_bots()
            if count:
                self.app.notify(f"{counted(count, 'bot')} on their way; the game starts when every "
                                "seat is taken.", timeout=4)

    # -- what the session says -----------------------------------------------------------------

    def ready(self, where: str) -> None:
        if self.lobby is not None:
            self.lobby.where = where
            if self.session is not None:
                self.lobby.profile = self.session.profile_name
        self._profile_in_use()

    def _profile_in_use(self) -> None:
        """Say so when another running stacks holds the profile asked for: this one plays
        as another player (``NAME-2``), which ``--profile`` chooses."""
        session = self.session
        if session is None or session.profile_in_use is None:
            return
        words = (f"Profile {session.profile_in_use!r} is in use by another running stacks: "
                 f"you are {session.profile_name!r} here")
        if self.lobby is not None:
            self.lobby.profile = f"{session.profile_name} ({session.profile_in_use!r} is in use)"
        if self.app.link is None:  # over ssh the server chooses profiles, not the player
            words += ". Choose one with --profile NAME."
        self.app.notify(words, timeout=10)

    def broker_note(self, text: str) -> None:
        """The session measured the broker: said in the lobby (and the table's log when
        the game is on), once."""
        self.broker_warning = text
        if self.lobby is not None:
            self.lobby.note = text
        if self.table is not None:
            self.table.say(broker_line(text))

    def health(self, problem: Problem | None) -> None:
        self.problem = problem
        for screen in (self.lobby, self.table):
            if screen is not None:
                screen.problem = problem

    async def failed(self, problem: Problem) -> None:
        from tui.screens.problem import ProblemScreen

        async def back(_: None) -> None:
            await self.menu()

        await self.stop()
        await self.app.push_screen(ProblemScreen(problem), back)

    def record_written(self, path: str) -> None:
        if self.gameover is not None:
            self.gameover.record = path

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
            await self._host_conflict(notice)
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

    async def _host_conflict(self, notice: HostConflict) -> None:
        """Two host keys claim the table: show both; before joining, the user picks."""
        if notice.joined:
            self.app.notify(
                f"Another host ({notice.other.fingerprint}) claims this table; you stay at "
                f"yours ({notice.current.fingerprint}).", severity="warning", timeout=10,
            )
            return
        from textual.markup import escape

        from tui.screens.choice import Answer, ChoiceScreen

        def picked(key: bytes | None) -> None:
            if key is not None and key != notice.current.key and self.session is not None:
                self.session.follow(key)

        await self.app.push_screen(ChoiceScreen(
            "Two hosts announce this table. Compare the fingerprint with the one your host "
            "gives you (stacks tables shows it); TABLE@FINGERPRINT pins one.",
            [Answer(f"stay: {escape(notice.current.words())}", notice.current.key),
             Answer(f"follow: {escape(notice.other.words())}", notice.other.key)],
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
            model.view = view
            if self.table is not None and view is not None:
                self.table.view = view

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
        if self.broker_warning:  # the lobby said it, maybe too briefly to be read
            self.table.say(broker_line(self.broker_warning))
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
        """What happened while we were away, in the log, after the fact (a narrator of its
        own: the live one already knows the table as it is now)."""
        model, table = self.model, self.table
        if model is None or table is None:
            return
        narrator = self._away
        if narrator is None or notice.n != self._away_next:
            if model.game == "stacks":
                narrator = self._away = Narrator(model.names, model.me)
                self._learn_piles(narrator, notice.n)
            else:
                narrator = self._away = ClassicNarrator(model.names, model.me,
                                                        self._teams() or 2)
            table.say(f"[b]While you were away[/] [dim](from batch {notice.n}; "
                      "stand-in moves marked ⟲)[/]:")
        self._away_next = notice.n + 1
        for event in notice.events:
            if isinstance(narrator, Narrator):
                line = narrator.describe(event) if isinstance(event, Event) else None
            else:
                line = narrator.describe(event)
            if line:
                table.say(f"[dim]⟲[/] {line}" if notice.standin else f"[dim]·[/] {line}")
        self._refresh_history()

    def _learn_piles(self, narrator: Narrator, before: int) -> None:
        """Tell ``narrator`` (silently) every batch held before ``before``, so that it names
        the piles open then by the names they have (one name per pile, in the log too)."""
        player = self.session.player.player if self.session and self.session.player else None
        if player is None:
            return
        for n in sorted(k for k in player.received if k < before):
            for event in player.received[n].events:
                if isinstance(event, Event):
                    narrator.describe(event)

    def _resynced(self, n: int) -> None:
        self._view()
        history, model = self.history, self.model
        if history is not None and model is not None and model.view is not None:
            # The batches the snapshot stood in for come later, as Missed notices; the
            # history screen retells them in their places.
            history.gap(n)
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
        while len(self.app.screen_stack) > 2:
            await self.app.pop_screen()
        await self.app.push_screen(self.gameover)


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
