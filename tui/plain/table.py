"""Plain mode's table: one table told in numbered lines, and typed lines done.

What the table's session reports (a :class:`~netplay.playing.notices.Notice`) becomes lines: the
events in the interface's own sentences (:mod:`tui.words`, :mod:`tui.classic_words`,
through :class:`tui.history.History`) with the markup taken off, then, when the table
turns to you, your hand and your moves, or the Block window's question. A typed line is
read (:mod:`tui.plain.commands`) and either answered here (hand, piles, seats, help) or
made into a move (:mod:`tui.plain.moves`).
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import singledispatchmethod
from typing import Any

from engine.actions import Block, PassBlock
from engine.classic.state import SequenceState, team_name
from engine.events import PileCompleted
from engine.games import AnyAction, game_def
from engine.state import Phase, PileId, Seat, State
from netplay.messages import MAX_CHAT, clean_text
from netplay.playing.notices import (
    Applied,
    ChatLine,
    Desynced,
    GameEnded,
    GameStarted,
    HostChanged,
    HostConflict,
    HostMoved,
    Impostor,
    Joined,
    Missed,
    NextGame,
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
from tui.classic_words import ClassicNarrator
from tui.history import History, Line, Step
from tui.plain.commands import Command, CommandError, parse
from tui.plain.moves import PlainMoves
from tui.plain.words import (
    board_lines,
    card_number,
    escaped,
    hand_line,
    help_line,
    move_list,
    piles_line,
    plain,
    seat_lines,
    standings_lines,
)
from tui.words import Narrator, short_name

AUTO_PASS = (0.4, 1.2)
"""Without a Block in hand you pass at once, after a short random pause (as the table
screen does: the speed of a pass says little about your hand)."""
CHAT_ECHOES = 20
"""Our chat lines kept until their echo comes back (a lost one is forgotten after these)."""


@dataclass
class PlainTable:
    """One table in lines: notices become numbered lines, typed lines become actions."""

    table: str
    send: Callable[[AnyAction], None]
    """Hands an action to the player's peer."""
    later: Callable[[float, Callable[[], None]], object]
    """Runs a function after some seconds (the automatic pass)."""
    write: Callable[[str], None]
    say_chat: Callable[[str], None] = lambda _text: None
    block_window: float | None = None
    """Seconds the Block window stays open, when known: as the table announces it (a
    host may lengthen it before the deal, for a seat in plain mode)."""
    count: int = 0
    """Lines said so far."""
    names: tuple[str, ...] = ()
    me: Seat | None = None
    game: str = "stacks"
    view: Any = None
    history: History | None = None
    started: bool = False
    over: bool = False
    verdict: bool | None = None
    waiting: str = ""
    failed: str = ""
    """Why the table can't go on (refused, say): the run ends."""
    moves: PlainMoves = field(init=False)
    """The moves typed here."""
    _seen_table: bool = False
    _turn_told: int | None = None
    _window_told: PileId | None = None
    _away: Narrator | ClassicNarrator | None = None
    _away_next: int = 0
    _health: str = ""
    _desynced: bool = False
    _standings_told: bool = False
    _chat_sent: list[str] = field(default_factory=list)
    """What we said at the table whose echo has not come back yet."""

    def __post_init__(self) -> None:
        self.moves = PlainMoves(self, self.send)

    # -- saying ----------------------------------------------------------------------------

    def say(self, markup: str) -> None:
        """Say one line (markup is taken off); each line gets the next number."""
        for part in plain(markup).splitlines() or [""]:
            self.count += 1
            self.write(f"{self.count}. {part.rstrip()}")

    def _said(self, line: Line) -> None:
        text = plain(line.markup)
        if line.header:
            body = text.replace("─", "").strip()
            number = f"{line.turn}. "
            if body.startswith(number):
                self.say(f"Turn {line.turn}: " + escaped(body.removeprefix(number)))
                return
            self.say(escaped(body))
            return
        self.say(escaped(text))

    def name(self, seat: Seat) -> str:
        if seat == self.me:
            return "You"
        return self.names[seat] if 0 <= seat < len(self.names) else f"Seat {seat + 1}"

    # -- what the session tells ------------------------------------------------------------

    def notice(self, notice: Notice, view: Any = None) -> None:
        """Say what ``notice`` means; ``view`` is the player's view now."""
        if view is not None:
            self.view = view
        self._told(notice)

    @singledispatchmethod
    def _told(self, notice: Notice) -> None:
        """A notice plain mode says nothing of (the connection's state comes as
        :meth:`health`)."""

    @_told.register
    def _table_seen(self, notice: TableSeen) -> None:
        if not self._seen_table:
            self._seen_table = True
            self.say(f"Found table {escaped(self.table)}.")
        window = notice.announce.get("block_window")
        if isinstance(window, bool) or not isinstance(window, int | float) \
                or not 0 < window <= 60 or window == self.block_window:
            return
        told = self.block_window is not None and not self.started \
            and notice.announce.get("variant", "stacks") == "stacks"
        self.block_window = float(window)
        if told:
            self.say(f"The host made the Block window {self.block_window:g} s.")

    @_told.register
    def _joined(self, notice: Joined) -> None:
        self.me = notice.seat
        if notice.seat is None:
            self.say(f"You are watching table {escaped(self.table)}.")
        else:
            self.say(f"You sit in seat {notice.seat + 1}. Waiting for the game to start.")

    @_told.register
    def _refused(self, notice: Refused) -> None:
        self.failed = f"The table refused you: {notice.reason}."
        self.say(escaped(self.failed))

    @_told.register
    def _game_started(self, notice: GameStarted) -> None:
        if self.started:
            return  # told twice (a welcome back and the start): once is enough
        self.started = True
        self.names = tuple(short_name(n) for n in notice.names)
        view = self.view
        if view is not None:
            self.game = "sequence" if isinstance(view, SequenceState) else "stacks"
        teams = view.teams if isinstance(view, SequenceState) else None
        self.history = History(self.names, self.me, self.game, teams)
        title = game_def(self.game).title
        seats = ", ".join(f"{s + 1} {self.name(s)}" for s in range(len(self.names)))
        self.say(f"The game of {title} starts. Seats: {escaped(seats)}.")
        if isinstance(view, SequenceState):
            if isinstance(self.history.narrator, ClassicNarrator):
                self.history.narrator.learn(view)  # its teams
            if view.teams != view.players:
                self.say("Teams: " + "; ".join(
                    f"{team_name(t)}: " + escaped(", ".join(self.name(s) for s in
                                                            view.members(t)))
                    for t in range(view.teams)) + ".")

    @_told.register
    def _applied(self, notice: Applied) -> None:
        history = self.history
        if history is None:
            return
        # A Block window for you: its question says the completion (once, in its place).
        ask = self._window_question()
        for line in history.add(Step.of(notice.n, notice.action, notice.events,
                                        notice.standin)):
            if ask is not None and isinstance(line.event, PileCompleted):
                self.say(ask)
                ask = None
            else:
                self._said(line)
        if ask is not None:
            self.say(ask)
        self._tell_standings()
        self._after_change(notice.action)

    @_told.register
    def _missed(self, notice: Missed) -> None:
        """What happened while we were away, after the fact, with a narrator of its own
        (the live one knows the table as it is now)."""
        narrator = self._away
        if narrator is None or notice.n != self._away_next:
            if self.game == "stacks":
                narrator = self._away = Narrator(self.names, self.me)
            else:
                teams = self.view.teams if isinstance(self.view, SequenceState) else 2
                narrator = self._away = ClassicNarrator(self.names, self.me, teams)
            self.say(f"While you were away (from batch {notice.n}):")
        self._away_next = notice.n + 1
        for event in notice.events:
            line = narrator.describe(event)  # type: ignore[arg-type]
            if line:
                tail = " (a bot played for the player)" if notice.standin else ""
                self.say(f"Earlier: {line}{tail}")

    @_told.register
    def _resynced(self, notice: Resynced) -> None:
        if self.history is not None:
            for line in self.history.gap(notice.n):
                self._said(line)
            if self.view is not None:
                self.history.narrator.learn(self.view)
        if self._desynced:
            self._desynced = False
            self.say("Repaired: your game matches the host's again.")
        self._after_change(None)

    @_told.register
    def _desync(self, notice: Desynced) -> None:
        self._desynced = True
        self.say(f"Your copy of the game disagreed with the host's at batch {notice.n}; "
                 "asking the host for its version.")

    @_told.register
    def _rejected(self, notice: Rejected) -> None:
        sent, self.moves.sent = self.moves.sent, None
        if isinstance(sent, PassBlock):
            return  # the window closed before our pass arrived: nothing lost
        if isinstance(sent, Block):
            self.say(f"Your Block came too late: {escaped(notice.reason)}.")
            return
        self.say(f"The host refused that: {escaped(notice.reason)}.")

    @_told.register
    def _race(self, notice: RaceResult) -> None:
        narrator = self.history.narrator if self.history is not None else None
        if isinstance(narrator, Narrator):
            race = narrator.race(notice.pile, notice.winner, notice.presses)
            if race:
                self.say(race)

    @_told.register
    def _chat(self, notice: ChatLine) -> None:
        if self._mine(notice):
            self._chat_sent.remove(notice.text)
            self.say(f"You say: {escaped(notice.text)}")
            return
        self.say(f"{escaped(notice.name)} says: {escaped(notice.text)}")

    def _mine(self, notice: ChatLine) -> bool:
        """Our own chat line, back from the table (under our seat's name, which may be the
        computer's user name: "You" reads better)."""
        if notice.text not in self._chat_sent:
            return False
        if self.me is None or not 0 <= self.me < len(self.names):
            return True  # no seat's name to check yet (or watching): the words are ours
        return short_name(notice.name) == self.names[self.me]

    def speak(self, text: str) -> None:
        """Say ``text`` at the table (chat); its echo is said as ours."""
        self._chat_sent.append(clean_text(text, MAX_CHAT))  # as the table will echo it
        del self._chat_sent[:-CHAT_ECHOES]
        self.say_chat(text)

    def _tell_standings(self) -> None:
        """Once the game is over: the chips (the sequences), the winner first."""
        view = self.view
        if view is None or view.outcome is None or self._standings_told or not self.started:
            return
        self._standings_told = True
        for line in standings_lines(view, self.name):
            self.say(line)

    @_told.register
    def _ended(self, notice: GameEnded) -> None:
        self._tell_standings()
        self.over = True
        self.moves.question = None
        self.say("The game is over. Checking the deal…")

    @_told.register
    def _verified(self, notice: Verified) -> None:
        self.verdict = notice.verdict.ok
        if notice.verdict.ok:
            self.say(f"Fair deal: verified. {escaped(notice.verdict.detail)}")
        else:
            self.say(f"Fair deal: NOT verified: {escaped(notice.verdict.detail)}")

    @_told.register
    def _impostor(self, notice: Impostor) -> None:
        self.say(f"Someone is impersonating this table: {escaped(notice.what)}. The host "
                 "put its own announcement back; you stay with your host.")

    @_told.register
    def _next_game(self, notice: NextGame) -> None:
        table = escaped(notice.table)
        self.say(f"The next game at {table} has opened: stacks join {table} plays it, "
                 f"stacks watch {table} watches it.")

    @_told.register
    def _host_conflict(self, notice: HostConflict) -> None:
        self.say(f"Another host ({notice.other.fingerprint}) claims this table; you stay "
                 f"with {notice.current.fingerprint}. To follow the other, join "
                 f"{escaped(self.table)}@{notice.other.fingerprint}.")

    @_told.register
    def _unexpected_host(self, notice: UnexpectedHost) -> None:
        self.say(escaped(notice.words()) + ".")

    @_told.register
    def _host_moved(self, notice: HostMoved) -> None:
        self.say(f"{notice.words()}.")

    @_told.register
    def _host_changed(self, notice: HostChanged) -> None:
        self.say(f"The host {notice.old.fingerprint} closed this table; following its new "
                 f"host {notice.new.fingerprint}.")

    @_told.register
    def _unseated(self, notice: Unseated) -> None:
        self.say(f"{escaped(notice.name)} lost seat {notice.seat + 1} before the deal "
                 f"({escaped(notice.why)}); the game starts once the seat is taken again.")

    def health(self, title: str | None, detail: str = "") -> None:
        """The connection's state in words, said when it changes (not every second)."""
        key = re.sub(r"\d+", "#", title or "")
        if key == self._health:
            return
        was, self._health = self._health, key
        if title is None:
            if was:
                self.say("The connection is fine again.")
            return
        self.say(escaped(f"{title} {detail}".strip()))

    # -- after every change: whose move, the Block window ----------------------------------

    def _after_change(self, action: AnyAction | None) -> None:
        view, me = self.view, self.me
        if view is None or me is None or view.outcome is not None or self.over:
            return
        if isinstance(view, State) and view.phase == Phase.BLOCK_WINDOW:
            ask = self._window_question()
            if ask is not None:
                self.say(ask)
            return
        if view.phase != Phase.PLAY or view.current != me:
            return
        # Your turn: the hand and the moves again after every change in it (a card
        # played, a Block window closed): the cards' numbers follow the hand.
        if self._turn_told != view.turn:
            self._turn_told = view.turn
            self.moves.question = None
            self.tell_hand()
            if isinstance(view, State):
                self.tell_piles()
            self.tell_moves()
        elif action is not None:
            self.tell_hand()
            self.tell_moves()

    def _window_question(self) -> str | None:
        """The question a Block window just opened for you asks, once (``None``: nothing
        to ask; without a Block in hand you pass by yourself, after a short pause)."""
        view, me = self.view, self.me
        if not isinstance(view, State) or view.phase != Phase.BLOCK_WINDOW or me is None \
                or view.outcome is not None or self.over:
            return None
        window = view.window
        if window is None or me == window.seat or me in window.passed:
            return None
        if self._window_told == window.pile.id:
            return None
        legal = self.legal()
        blocks = [a for a in legal if isinstance(a, Block)]
        passes = [a for a in legal if isinstance(a, PassBlock)]
        if not blocks and not passes:
            return None
        self._window_told = window.pile.id
        if not blocks:
            low, high = AUTO_PASS
            if self.block_window is not None:
                high = max(low, min(high, self.block_window * 0.6))
            pile = window.pile.id
            self.later(random.uniform(low, high), lambda: self._auto_pass(pile))
            return None
        seconds = f", {self.block_window:g} s" if self.block_window else ""
        whose = f"{self.name(window.seat)}'s"
        return escaped(f"Block {whose} {window.pile.colour.title} pile {window.pile.name}? "
                       f"block or pass{seconds}")

    def _auto_pass(self, pile: PileId) -> None:
        view = self.view
        if not isinstance(view, State) or view.window is None or view.window.pile.id != pile:
            return
        passes = [a for a in self.legal() if isinstance(a, PassBlock)]
        if passes:
            self.moves.act(passes[0])

    # -- what may be done, and what the table looks like --------------------------------------

    def legal(self) -> list[Any]:
        view, me = self.view, self.me
        if view is None or me is None:
            return []
        return list(game_def(self.game).legal_actions(view, me))

    def number(self, card: int) -> int | None:
        """The number a card has in the hand as listed (0: your discard top)."""
        return card_number(self.view, self.me, card)

    def tell_hand(self) -> None:
        self.say(hand_line(self.view, self.me))

    def tell_piles(self) -> None:
        view = self.view
        if isinstance(view, SequenceState):
            for line in board_lines(view):
                self.say(line)
        elif isinstance(view, State):
            self.say(piles_line(view))
        else:
            self.say("The game hasn't started: waiting for the deal.")

    def tell_seats(self) -> None:
        if self.view is None:
            self.say("The game hasn't started: waiting for the deal.")
            return
        for line in seat_lines(self.view, self.name):
            self.say(line)
        if self.waiting:
            self.say(escaped(self.waiting.capitalize()) + ".")

    def moves_now(self) -> list[str]:
        """What may be done now, as commands (the first of each kind first)."""
        return move_list(self.view, self.me, self.legal(), self.name)

    def tell_moves(self) -> None:
        moves = self.moves_now()
        if moves:
            self.say("Moves: " + escaped("; ".join(moves)) + ".")
        elif self.me is not None and self.view is not None and self.view.outcome is None:
            self.say(self._not_now("play") or "Nothing to do now.")

    def help(self) -> None:
        self.say(help_line(self.game))

    # -- typed lines -----------------------------------------------------------------------

    def line(self, text: str) -> bool:
        """Do what a typed line asks; ``False`` when it asks to quit."""
        text = text.strip()
        if not text:
            return True
        text = self.moves.answered(text)
        try:
            command = parse(text)
        except CommandError as exc:
            self.say(escaped(str(exc)))
            return True
        if command.verb == "quit":
            return False
        self.command(command, text)
        return True

    def command(self, command: Command, text: str) -> None:
        verb = command.verb
        if verb == "help":
            self.help()
        elif verb == "hand":
            self.tell_hand()
        elif verb in ("piles", "board"):
            self.tell_piles()
        elif verb == "seats":
            self.tell_seats()
        elif verb == "moves":
            if (why := self._not_now(verb)) is not None:
                self.say(why)
            else:
                self.tell_moves()
        elif verb == "say":
            self.speak(command.text)
        elif (why := self._not_now(verb)) is not None:
            self.say(why)
        else:
            self.moves.make(command, text)

    def _not_now(self, verb: str) -> str | None:
        """Why no move can be made now, or ``None``."""
        view, me = self.view, self.me
        if view is None or not self.started or view.phase == Phase.SETUP:
            return "The game hasn't started: waiting for the deal."
        if me is None:
            return "You are watching: only the players play."
        if view.outcome is not None or self.over:
            return "The game is over."
        if isinstance(view, State) and view.phase == Phase.BLOCK_WINDOW and \
                view.window is not None:
            if verb in ("block", "pass", "moves"):
                return None
            window = view.window
            whose = "your" if window.seat == me else f"{self.name(window.seat)}'s"
            return escaped(f"Wait: the Block window on {whose} {window.pile.colour.title} pile "
                           f"{window.pile.name} is open.")
        if verb == "block" and self.game == "stacks":
            return "There is no completed pile to block now."
        if view.current != me:
            return escaped(f"Not your turn: {self.name(view.current)} is playing.")
        return None

