"""Between the session and the screens: one table at a time, opened, left and closed.

What the user asks for goes to the session; what the session tells goes to the table's
:class:`tui.follow.Following` (the model, the log, the game's screens), one for each
table opened. Nothing here waits on the network.
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

from engine.games import AnyAction
from netplay.memory import AsyncMemoryBroker
from tui.follow import Following
from tui.launch import Launch, as_held
from tui.messages import Problem
from tui.model import TableModel
from tui.plural import counted
from tui.serve_link import SERVED_EXTRAS

if TYPE_CHECKING:
    from netplay.playing.notices import Notice
    from tui.appbase import GameApp
    from tui.session import TableSession


class Control:
    """One table at a time: its session, and what follows it (its model and screens)."""

    def __init__(
        self, app: GameApp, *, profiles: Path | None, frozen: bool,
        memory: AsyncMemoryBroker | None = None,
    ) -> None:
        self.app = app
        self.memory = memory
        self.profiles = profiles
        self.frozen = frozen
        self.launch: Launch | None = None
        self.session: TableSession | None = None
        self.worker: Worker[None] | None = None
        self.following: Following | None = None
        """The table opened last, followed: its model and screens (``None``: none yet)."""
        self.broker_warning = ""
        """What the session found wrong with the broker (``BrokerNote``), or ""."""
        self._closing: Worker[None] | None = None
        self._quitting: TableSession | None = None
        """The session the app waits for before it quits (its spectators are behind)."""

    @property
    def model(self) -> TableModel | None:
        """The table's model (``None`` before the first table)."""
        return self.following.model if self.following is not None else None

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

        if self.app.kiosk or self.app.from_table:
            # A kiosk (a browser visitor) has no menu, and a table the command line opened
            # goes back to the shell: leaving it ends the program.
            await self.close()
            self.app.exit()
            return
        await self.stop()
        await self.show(MenuScreen())

    # -- the session ---------------------------------------------------------------------------

    async def start(self, launch: Launch, *, skip_host: bytes | None = None) -> None:
        """Open ``launch``'s table: the lobby, then the table when the game starts."""
        from tui.screens.lobby import LobbyScreen

        if self.app.kiosk and launch.role != "watch":
            return  # a kiosk watches, never sits, hosts or joins

        await self.stop()
        if launch.role in ("join", "watch") and not launch.held and self.app.link is not None:
            launch = await self._ours(launch, skip_host)
        self.launch = launch
        model = TableModel(table=launch.table, spectator=launch.role == "watch",
                           players=launch.players if launch.hosting else 0,
                           game=launch.variant if launch.hosting else "stacks")
        following = self.following = Following(self, model)
        self.broker_warning = ""
        following.lobby = LobbyScreen(launch, model)
        await self.show(following.lobby)
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
                **({"engines": [name for name, _ in launch.engines]} if launch.engines
                   else {}),
                block_window=launch.block_window, bot_delay=launch.bot_delay,
                password=launch.password, rules=launch.rules.to_wire(),
                dealer=None if launch.dealer is None else launch.dealer % launch.players,
                **({"game": launch.variant} if launch.variant != "stacks" else {}),
            )
        except LinkError as exc:
            return str(exc)
        host = reply.get("host")
        seat = replace(launch, role="join", held=True, table_open=True,
                       broker=str(reply.get("broker") or launch.broker),
                       host_pin=host if isinstance(host, str) else None)
        skip = self.session.host_key if self.session is not None else None
        await self.start(seat, skip_host=skip)
        return None

    async def _ours(self, launch: Launch, skip_host: bytes | None = None) -> Launch:
        """``launch`` following the key the ssh server says hosts its table (at once: no
        wait for a rogue's announcement), and as the creator's if the server holds the
        table for this key (a creator coming back with `join TABLE` gets its table's
        controls back). A spectator only follows the key."""
        from netplay.hosts import matches
        from tui.serve_link import LinkError

        assert self.app.link is not None
        try:
            info = await self.app.link.request("info", table=launch.table)
        except LinkError:
            return launch
        host = info.get("host")
        if isinstance(host, str) and not (skip_host is not None and matches(skip_host, host)):
            launch = replace(launch, host_pin=host)
        if launch.role != "join" or info.get("creator") is not True:
            return launch
        settings = info.get("settings")
        return as_held(launch, settings if isinstance(settings, dict) else {})

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
        count = reply.get("bots")
        if type(count) is int and count > 0 and self.launch is not None \
                and self.launch.table == table:
            self.launch = self.launch.with_seats_filled(count)  # the rematch seats them too
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
                            f"kept. Back with: {_own(launch.ssh, launch.name)} join "
                            f"{launch.table}",
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
        gameover = self.following.gameover if self.following is not None else None
        if gameover is not None and self.app.screen is not gameover:
            await self.app.push_screen(gameover)

    async def show_history(self) -> None:
        if self.following is not None:
            await self.following.show_history()

    async def show_replay(self) -> None:
        if self.following is not None:
            await self.following.show_replay()

    def act(self, action: AnyAction) -> None:
        if self.session is not None and not self.app.kiosk:
            if self.following is not None:
                self.following.sent = action
            self.session.act(action)

    def say(self, text: str) -> None:
        if self.app.kiosk:
            self.app.notify("Chat is off on this page: it only watches.", timeout=4)
            return
        if self.app.link is not None:  # the server checks each line (tui.moderation)
            from tui.moderation import send_checked

            self.app.run_worker(send_checked(self, text), group="link")
            return
        if self.session is not None:
            self.session.chat(text)

    def fill_with_bots(self) -> None:
        if self.launch is not None and self.launch.held and self.app.link is not None:
            self.app.run_worker(self._fill_held(self.launch.table), group="link")
            return
        if self.session is not None:
            count = self.session.fill_with_bots()
            if count and self.launch is not None:
                self.launch = self.launch.with_seats_filled(count)  # the rematch seats them too
            if count:
                self.app.notify(f"{counted(count, 'bot')} on their way; the game starts when every "
                                "seat is taken.", timeout=4)

    def set_block_window(self, seconds: float) -> None:
        """Our own table's Block window, before the deal (for a seat in plain mode)."""
        if self.session is None:
            return
        problem = self.session.set_block_window(seconds)
        if problem is not None:
            self.app.notify(f"The Block window stays as it is: {problem}.",
                            severity="warning", timeout=5)
            return
        if self.launch is not None:
            self.launch = replace(self.launch, block_window=seconds)  # the rematch's too
        self.app.notify(f"The Block window is {seconds:g} s now.", timeout=4)

    # -- what the session says -----------------------------------------------------------------

    async def notice(self, notice: Notice) -> None:
        if self.following is not None:
            await self.following.notice(notice)

    def ready(self, where: str) -> None:
        lobby = self.following.lobby if self.following is not None else None
        if lobby is not None:
            lobby.where = where
            if self.session is not None:
                lobby.profile = self.session.profile_name
        self._profile_in_use()

    def _profile_in_use(self) -> None:
        """Say so when another running stacks holds the profile asked for: this one plays
        as another player (``NAME-2``), which ``--profile`` chooses."""
        session = self.session
        if session is None or session.profile_in_use is None:
            return
        words = (f"Profile {session.profile_in_use!r} is in use by another running stacks: "
                 f"you are {session.profile_name!r} here")
        lobby = self.following.lobby if self.following is not None else None
        if lobby is not None:
            lobby.profile = f"{session.profile_name} ({session.profile_in_use!r} is in use)"
        if self.app.link is None:  # over ssh the server chooses profiles, not the player
            words += ". Choose one with --profile NAME."
        self.app.notify(words, timeout=10)

    def broker_note(self, text: str) -> None:
        """The session measured the broker: said once, short, in a toast (the lobby's
        chat and the game's log keep their room at 80x24)."""
        if self.broker_warning:
            return
        self.broker_warning = text
        self.app.notify(text, title="Slow broker", severity="warning", timeout=15)

    def health(self, problem: Problem | None) -> None:
        if self.following is not None:
            self.following.health(problem)

    def waiting(self, line: str) -> None:
        if self.following is not None:
            self.following.wait(line)

    async def failed(self, problem: Problem) -> None:
        from tui.screens.problem import ProblemScreen

        launch = self.launch

        async def back(choice: str | None) -> None:
            if choice == "watch" and launch is not None:
                await self.start(replace(launch, role="watch", held=False))
                return
            await self.menu()

        await self.stop()
        await self.app.push_screen(ProblemScreen(problem), back)

    def rated(self, text: str) -> None:
        """What became of the game in the ratings: on the game-over screen."""
        if self.following is not None:
            self.following.rated(text)

    def record_written(self, path: str) -> None:
        if self.following is not None:
            self.following.record_written(path)


def _own(ssh: str, name: str) -> str:
    """The server's ssh command (``ssh -t -p 2222 NAME@HOST``) with this player's name."""
    if not ssh:
        return "ssh"
    return ssh.replace("NAME@", f"{name}@") if name and " " not in name else ssh
