"""Plain mode: the game as numbered lines of words, and typed commands.

For screen readers and slow links (``stacks play --plain``, ``join --plain``, ``watch
--plain``): no screen to redraw, nothing but lines. Every event is said once, in order,
each line numbered; the player types ``play 3 on a``, ``discard 2``, ``block``, ``pass``
(``play 2 at E5``, ``dead 4`` in classic Sequence). A command that can't be done gets a
sentence saying why (the engine's own reason), never a traceback.

It is a second front end on the same peers as the Textual interface: the table's session
(:class:`tui.session.TableSession`: the embedded broker, the host and its bots for
``play``) posts its notices here instead of to an app; the sentences are the
interface's own (:mod:`tui.words`, :mod:`tui.classic_words`, through
:class:`tui.history.History`) with the markup taken off; what may be played comes from the
engine's legal actions. :class:`PlainTable` turns notices into lines and lines into
actions; :func:`run_plain` wires it to the session, stdin and stdout.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import re
import sys
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, TextIO

from rich.errors import MarkupError
from rich.text import Text

from engine.actions import (
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
from engine.cards import FACES, Colour, Kind
from engine.classic.actions import (
    DiscardUnplayable,
    ExchangeDeadCard,
    PassTurn,
    PlaceChip,
    RemoveChip,
)
from engine.classic.board import CORNERS, cell_name, parse_cell
from engine.classic.cards import CODES as CLASSIC_CODES
from engine.classic.cards import FACES as CLASSIC_FACES
from engine.classic.cards import JackKind
from engine.classic.state import EMPTY, SequenceState, team_name
from engine.errors import EngineError
from engine.games import AnyAction, game_def
from engine.state import NEW_PILE, Phase, PileId, Seat, State, Zone
from netplay.playing.notices import (
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
from tui import classic_words, words
from tui.classic_words import ClassicNarrator
from tui.history import History, Line, Step
from tui.words import Narrator, short_name

log = logging.getLogger("tui.plain")

AUTO_PASS = (0.4, 1.2)
"""Without a Block in hand you pass at once, after a short random pause (as the table
screen does: the speed of a pass says little about your hand)."""
LIST_CELLS = 8
"""Board spaces named in a move before "and N more"."""


def plain(markup: str) -> str:
    """The words of a line of markup: no styles, no box-drawing rules."""
    try:
        text = Text.from_markup(markup).plain
    except MarkupError:
        text = re.sub(r"\[/?[^\[\]]*\]", "", markup)
    # A card's markup pads its code with a space each side, for the colour behind it.
    return "\n".join(re.sub(r" {2,}", " ", part).strip() for part in text.splitlines())


# -- commands -----------------------------------------------------------------------------------


class CommandError(ValueError):
    """A typed line that is not a command, in words."""


VERBS = ("play", "discard", "dead", "block", "pass", "end", "hand", "piles", "board", "seats",
         "moves", "say", "help", "quit")
ALIASES = {"exit": "quit", "leave": "quit", "?": "help", "chat": "say", "table": "seats",
           "players": "seats", "score": "seats", "cards": "hand", "pile": "piles",
           "move": "moves"}
_CARD_VERBS = ("play", "discard", "dead")
_PLACE = ("on", "onto", "at", "to", "in")
_FILLER = ("the", "steal", "card", "chip", "pile", "space", "and", "with", "of", "s",
           "take", "takes", "top")
_CELL = re.compile(r"[a-j](10|[1-9])")


@dataclass(frozen=True, slots=True)
class Command:
    """One typed command, its words sorted out (what they mean at the table is decided
    later, against the table as it is)."""

    verb: str
    card: int | None = None
    """The card's number as the hand lists it (0: the top of your discard pile)."""
    where: str | None = None
    """A pile's letter, ``new``, or a board space (``e5``)."""
    zone: str | None = None
    """``hand`` or ``discard``: what a Steal a Card takes."""
    colour: str | None = None
    """``red`` or ``blue``: what a Steal a Chip takes."""
    target: str | None = None
    """The words naming an opponent (``bob``, ``bot 2``)."""
    text: str = ""
    """What ``say`` says."""


def parse(line: str) -> Command:
    """The command a typed line means; :class:`CommandError` in words if none."""
    parts = line.split()
    if not parts:
        raise CommandError("Type a command; help lists them.")
    first = parts[0].lower()
    verb = ALIASES.get(first, first)
    if verb not in VERBS:
        raise CommandError(f"I don't know {parts[0]!r}. Type help for the commands.")
    if verb == "say":
        text = line.strip()[len(parts[0]):].strip()
        if not text:
            raise CommandError("Say what? Type say and your words, e.g. say well played.")
        return Command("say", text=text)
    if verb not in _CARD_VERBS:
        if len(parts) > 1:
            raise CommandError(f"{verb} needs nothing after it: type just {verb}.")
        return Command(verb)
    if len(parts) < 2 or not parts[1].isdigit():
        raise CommandError(f"{verb.capitalize()} which card? Give its number as your hand "
                           f"lists it, e.g. {verb} 3 (hand lists them).")
    card = int(parts[1])
    rest = [w for w in (re.sub(r"[^\w]+", " ", p.lower()).strip() for p in parts[2:]) if w]
    if verb != "play" and rest:
        raise CommandError(f"{verb.capitalize()} takes only the card's number: {verb} {card}.")
    where: str | None = None
    zone: str | None = None
    colour: str | None = None
    target: list[str] = []
    after = ""
    for word in " ".join(rest).split():
        if word in _PLACE:
            after = "place"
        elif word == "from":
            after = "from"
        elif word in _FILLER:
            continue
        elif word in ("hand", "discard"):
            zone = word
        elif word in ("red", "blue"):
            colour = word
        elif word == "new" or (after != "from" and not target
                               and ((len(word) == 1 and word.isalpha()) or _CELL.fullmatch(word))):
            if where is not None:
                raise CommandError(f"Two places ({where} and {word}): give one.")
            where = word
        else:
            target.append(word)
    return Command(verb, card, where, zone, colour, " ".join(target) or None)


@dataclass
class Question:
    """What a command left open (whom to steal from, which pile): the next line may
    answer it; any other line is a command of its own."""

    prefix: str
    """The command so far."""
    answers: dict[str, str]
    """An answer as typed (lower case) -> the words it adds to the command."""

    def complete(self, line: str) -> str | None:
        said = " ".join(line.lower().split())
        if said in self.answers:
            return f"{self.prefix} {self.answers[said]}"
        found = {v for k, v in self.answers.items() if k.startswith(said)} if said else set()
        if len(found) == 1:
            return f"{self.prefix} {found.pop()}"
        return None


# -- the table in lines -------------------------------------------------------------------------


def _or(items: Sequence[str]) -> str:
    items = list(items)
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " or " + items[-1]


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
    """Seconds the Block window stays open, when known (our own table)."""
    count: int = 0
    """Lines said so far."""
    names: tuple[str, ...] = ()
    me: Seat | None = None
    game: str = "stacks"
    view: Any = None
    history: History | None = None
    question: Question | None = None
    started: bool = False
    over: bool = False
    verdict: bool | None = None
    waiting: str = ""
    failed: str = ""
    """Why the table can't go on (refused, say): the run ends."""
    _seen_table: bool = False
    _turn_told: int | None = None
    _window_told: PileId | None = None
    _sent: AnyAction | None = None
    _discard_asked: int | None = None
    _away: Narrator | ClassicNarrator | None = None
    _away_next: int = 0
    _health: str = ""
    _desynced: bool = False
    _told_moves: list[str] = field(default_factory=list)

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
                self.say(f"Turn {line.turn}: " + _escape(body.removeprefix(number)))
                return
            self.say(_escape(body))
            return
        self.say(_escape(text))

    def name(self, seat: Seat) -> str:
        if seat == self.me:
            return "You"
        return self.names[seat] if 0 <= seat < len(self.names) else f"Seat {seat + 1}"

    # -- what the session tells ------------------------------------------------------------

    def notice(self, notice: Notice, view: Any = None) -> None:
        """Say what ``notice`` means; ``view`` is the player's view now."""
        if view is not None:
            self.view = view
        if isinstance(notice, TableSeen):
            if not self._seen_table:
                self._seen_table = True
                self.say(f"Found table {_escape(self.table)}.")
        elif isinstance(notice, Joined):
            self.me = notice.seat
            if notice.seat is None:
                self.say(f"You are watching table {_escape(self.table)}.")
            else:
                self.say(f"You sit in seat {notice.seat + 1}. Waiting for the game to start.")
        elif isinstance(notice, Refused):
            self.failed = f"The table refused you: {notice.reason}."
            self.say(_escape(self.failed))
        elif isinstance(notice, GameStarted):
            self._game_started(notice.names)
        elif isinstance(notice, Applied):
            self._applied(notice)
        elif isinstance(notice, Missed):
            self._missed(notice)
        elif isinstance(notice, Resynced):
            if self.history is not None:
                for line in self.history.gap(notice.n):
                    self._said(line)
                if self.view is not None:
                    self.history.narrator.learn(self.view)
            if self._desynced:
                self._desynced = False
                self.say("Repaired: your game matches the host's again.")
            self._after_change(None)
        elif isinstance(notice, Desynced):
            self._desynced = True
            self.say(f"Your copy of the game disagreed with the host's at batch {notice.n}; "
                     "asking the host for its version.")
        elif isinstance(notice, Rejected):
            self._rejected(notice.reason)
        elif isinstance(notice, RaceResult):
            narrator = self.history.narrator if self.history is not None else None
            if isinstance(narrator, Narrator):
                race = narrator.race(notice.pile, notice.winner, notice.presses)
                if race:
                    self.say(race)
        elif isinstance(notice, ChatLine):
            self.say(f"{_escape(notice.name)} says: {_escape(notice.text)}")
        elif isinstance(notice, GameEnded):
            self.over = True
            self.question = None
            self.say("The game is over. Checking the deal…")
        elif isinstance(notice, Verified):
            self.verdict = notice.verdict.ok
            if notice.verdict.ok:
                self.say(f"Fair deal: verified. {_escape(notice.verdict.detail)}")
            else:
                self.say(f"Fair deal: NOT verified: {_escape(notice.verdict.detail)}")
        elif isinstance(notice, Impostor):
            self.say(f"Someone is impersonating this table: {_escape(notice.what)}. The host "
                     "put its own announcement back; you stay with your host.")
        elif isinstance(notice, HostConflict):
            self.say(f"Another host ({notice.other.fingerprint}) claims this table; you stay "
                     f"with {notice.current.fingerprint}. To follow the other, join "
                     f"{_escape(self.table)}@{notice.other.fingerprint}.")
        elif isinstance(notice, UnexpectedHost):
            self.say(_escape(notice.words()) + ".")
        elif isinstance(notice, HostChanged):
            self.say(f"The host {notice.old.fingerprint} closed this table; following its new "
                     f"host {notice.new.fingerprint}.")
        elif isinstance(notice, Unseated):
            self.say(f"{_escape(notice.name)} lost seat {notice.seat + 1} before the deal "
                     f"({_escape(notice.why)}); the game starts once the seat is taken again.")

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
        self.say(_escape(f"{title} {detail}".strip()))

    def _game_started(self, names: tuple[str, ...]) -> None:
        if self.started:
            return  # told twice (a welcome back and the start): once is enough
        self.started = True
        self.names = tuple(short_name(n) for n in names)
        view = self.view
        if view is not None:
            self.game = "sequence" if isinstance(view, SequenceState) else "stacks"
        teams = view.teams if isinstance(view, SequenceState) else None
        self.history = History(self.names, self.me, self.game, teams)
        title = game_def(self.game).title
        seats = ", ".join(f"{s + 1} {self.name(s)}" for s in range(len(self.names)))
        self.say(f"The game of {title} starts. Seats: {_escape(seats)}.")
        if isinstance(view, SequenceState):
            if isinstance(self.history.narrator, ClassicNarrator):
                self.history.narrator.learn(view)  # its teams
            if view.teams != view.players:
                self.say("Teams: " + "; ".join(
                    f"{team_name(t)}: " + _escape(", ".join(self.name(s) for s in
                                                             view.members(t)))
                    for t in range(view.teams)) + ".")
        self.say("Type help for the commands.")

    def _applied(self, notice: Applied) -> None:
        history = self.history
        if history is None:
            return
        for line in history.add(Step.of(notice.n, notice.action, notice.events,
                                        notice.standin)):
            self._said(line)
        self._after_change(notice.action)

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

    def _rejected(self, reason: str) -> None:
        sent, self._sent = self._sent, None
        if isinstance(sent, PassBlock):
            return  # the window closed before our pass arrived: nothing lost
        if isinstance(sent, Block):
            self.say(f"Your Block came too late: {_escape(reason)}.")
            return
        self.say(f"The host refused that: {_escape(reason)}.")

    # -- after every change: whose move, the Block window ----------------------------------

    def _after_change(self, action: AnyAction | None) -> None:
        view, me = self.view, self.me
        if view is None or me is None or view.outcome is not None or self.over:
            return
        if isinstance(view, State) and view.phase == Phase.BLOCK_WINDOW:
            self._block_window(view)
            return
        if view.phase != Phase.PLAY or view.current != me:
            return
        # Your turn: the hand and the moves again after every change in it (a card
        # played, a Block window closed): the cards' numbers follow the hand.
        if self._turn_told != view.turn:
            self._turn_told = view.turn
            self.question = None
            self.tell_hand()
            if isinstance(view, State):
                self.tell_piles()
            self.tell_moves()
        elif action is not None:
            self.tell_hand()
            self.tell_moves()

    def _block_window(self, view: State) -> None:
        window = view.window
        me = self.me
        if window is None or me is None or me == window.seat or me in window.passed:
            return
        if self._window_told == window.pile.id:
            return
        legal = self.legal()
        blocks = [a for a in legal if isinstance(a, Block)]
        passes = [a for a in legal if isinstance(a, PassBlock)]
        if not blocks and not passes:
            return
        self._window_told = window.pile.id
        if not blocks:
            low, high = AUTO_PASS
            if self.block_window is not None:
                high = max(low, min(high, self.block_window * 0.6))
            pile = window.pile.id
            self.later(random.uniform(low, high), lambda: self._auto_pass(pile))
            return
        cards = " ".join(words.card_code(c) for c in window.pile.cards)
        seconds = f" within {self.block_window:g} s" if self.block_window else ""
        self.say(f"{_escape(self.name(window.seat))} completed {window.pile.colour.title} pile "
                 f"{window.pile.name} ({cards}). Block it? Type block or pass{seconds}.")

    def _auto_pass(self, pile: PileId) -> None:
        view = self.view
        if not isinstance(view, State) or view.window is None or view.window.pile.id != pile:
            return
        passes = [a for a in self.legal() if isinstance(a, PassBlock)]
        if passes:
            self._act(passes[0])

    # -- what may be done ------------------------------------------------------------------

    def legal(self) -> list[Any]:
        view, me = self.view, self.me
        if view is None or me is None:
            return []
        return list(game_def(self.game).legal_actions(view, me))

    def number(self, card: int) -> int | None:
        """The number a card has in the hand as listed (0: your discard top)."""
        view, me = self.view, self.me
        if view is None or me is None:
            return None
        hand = view.hands[me]
        if card in hand:
            return int(hand.index(card)) + 1
        if isinstance(view, State) and view.discard_top(me) == card:
            return 0
        return None

    def tell_hand(self) -> None:
        view, me = self.view, self.me
        if me is None or view is None:
            self.say("You are watching: you hold no cards.")
            return
        hand = view.hands[me]
        if isinstance(view, SequenceState):
            cards = [f"{n} {self._classic_card(view, c)}" for n, c in enumerate(hand, 1)]
            self.say("Your hand: " + (", ".join(cards) if cards else "empty") + ".")
            return
        cards = [f"{n} {words.card_code(c)}" for n, c in enumerate(hand, 1)]
        line = "Your hand: " + (", ".join(cards) if cards else "empty")
        top = view.discard_top(me)
        if top is not None:
            line += f"; 0 your discard top {words.card_code(top)}"
        self.say(_escape(line) + ".")

    def _classic_card(self, view: SequenceState, card: int) -> str:
        text = classic_words.code(card)
        jack = CLASSIC_FACES[card].jack
        if jack is JackKind.TWO_EYED:
            return f"{text} (two-eyed jack: any empty space)"
        if jack is JackKind.ONE_EYED:
            return f"{text} (one-eyed jack: removes a chip)"
        spaces = view.board.spaces[CLASSIC_CODES[card]]
        free = [cell_name(c) for c in spaces if view.chips[c] == EMPTY]
        if not free:
            return f"{text} (dead: both spaces taken)"
        return f"{text} ({' or '.join(free)})"

    def tell_piles(self) -> None:
        view = self.view
        if isinstance(view, SequenceState):
            self.tell_board()
            return
        if not isinstance(view, State):
            self.say("The game hasn't started: waiting for the deal.")
            return
        piles = list(view.piles)
        if view.window is not None:
            piles.append(view.window.pile)
        if not piles:
            line = "No piles are open"
        else:
            line = "Piles: " + "; ".join(
                f"{p.name} {p.colour.title} " + " ".join(words.card_code(c) for c in p.cards)
                + (", complete" if view.window is not None and p is view.window.pile
                   else f", needs {p.height + 1}")
                for p in sorted(piles, key=lambda p: p.name))
        self.say(_escape(line) + f". Draw pile: {len(view.draw_pile)} cards.")

    def tell_board(self) -> None:
        view = self.view
        assert isinstance(view, SequenceState)
        for team in range(view.teams):
            cells = [cell_name(c) for c, owner in enumerate(view.chips) if owner == team]
            made = view.sequence_count(team)
            self.say(f"{team_name(team)} chips ({len(cells)}): "
                     + (", ".join(cells) if cells else "none")
                     + f"; sequences {made} of {view.to_win}.")
        self.say(f"Free corners: {', '.join(cell_name(c) for c in sorted(CORNERS))}.")

    def tell_seats(self) -> None:
        view = self.view
        if view is None:
            self.say("The game hasn't started: waiting for the deal.")
            return
        for seat in range(view.players):
            who = f"Seat {seat + 1}, {self.name(seat)}"
            hand = len(view.hands[seat])
            if isinstance(view, SequenceState):
                team = team_name(view.team_of(seat))
                line = f"{who}: {team} team, {hand} cards"
            else:
                top = view.discard_top(seat)
                red, blue = view.chips[seat]
                line = (f"{who}: {hand} cards, discard top "
                        f"{words.card_code(top) if top is not None else 'none'}, "
                        f"chips {red} red {blue} blue")
                if view.skip_tokens[seat]:
                    line += ", misses the next turn"
            if view.current == seat and view.phase == Phase.PLAY:
                line += " (playing now)"
            self.say(_escape(line) + ".")
        if self.waiting:
            self.say(_escape(self.waiting.capitalize()) + ".")

    def moves(self) -> list[str]:
        """What may be done now, as commands (the first of each kind first)."""
        view, legal = self.view, self.legal()
        out: list[str] = []
        discards: list[int] = []
        by_card: dict[int, list[str]] = {}
        for action in legal:
            card = getattr(action, "card", None)
            n = self.number(card) if isinstance(card, int) else None
            if isinstance(action, PlayCard) and isinstance(view, State):
                pile = view.pile(action.pile)
                where = "new" if action.pile == NEW_PILE or pile is None else pile.name
                out.append(f"play {n} on {where}")
            elif isinstance(action, PlaySkip | PlayReverse):
                out.append(f"play {n} ({words.card_code(action.card)})")
            elif isinstance(action, StealCard):
                zone = "hand" if action.zone == Zone.HAND else "discard"
                out.append(f"play {n} from {self.name(action.target)} {zone}")
            elif isinstance(action, StealChip):
                out.append(f"play {n} from {self.name(action.target)} "
                           f"{Colour(action.colour).title.lower()}")
            elif isinstance(action, Discard | DiscardUnplayable) and n is not None:
                discards.append(n)
            elif isinstance(action, EndTurn):
                out.append("end")
            elif isinstance(action, Block):
                out.append("block")
            elif isinstance(action, PassBlock | PassTurn):
                out.append("pass")
            elif isinstance(action, ExchangeDeadCard):
                out.append(f"dead {n}")
            elif isinstance(action, PlaceChip | RemoveChip) and n is not None:
                if isinstance(action, PlaceChip) and action.claim:
                    continue  # the engine's choice of sequences is the plain one
                by_card.setdefault(n, []).append(cell_name(action.cell))
        for n, cells in sorted(by_card.items()):
            unique = list(dict.fromkeys(cells))
            if len(unique) <= LIST_CELLS:
                out.append(f"play {n} at {_or(unique)}")
            else:
                out.append(f"play {n} at {', '.join(unique[:LIST_CELLS])} and "
                           f"{len(unique) - LIST_CELLS} more")
        if discards:
            out.append("discard " + _or([str(n) for n in sorted(set(discards))]))
        return list(dict.fromkeys(out))

    def tell_moves(self) -> None:
        moves = self.moves()
        self._told_moves = moves
        if moves:
            self.say("Moves: " + _escape("; ".join(moves)) + ".")
        elif self.me is not None and self.view is not None and self.view.outcome is None:
            self.say(self._not_now("play") or "Nothing to do now.")

    def help(self) -> None:
        if self.game == "sequence":
            self.say("Commands: play N at E5 (N: the card's number in your hand; a one-eyed "
                     "jack removes the chip there); dead N turns in a dead card; discard N or "
                     "pass when you can play nothing; hand; board; seats; moves; say TEXT; "
                     "quit.")
            return
        self.say("Commands: play N on a (N: the card's number in your hand, 0 your discard "
                 "top; a pile's letter, or new for a new pile); play N for an action card "
                 "(a steal: play N from NAME hand, discard, red or blue); discard N ends your "
                 "turn; end (with an empty hand); block or pass in a Block window; hand; "
                 "piles; seats; moves; say TEXT; quit.")

    # -- typed lines -----------------------------------------------------------------------

    def line(self, text: str) -> bool:
        """Do what a typed line asks; ``False`` when it asks to quit."""
        text = text.strip()
        if not text:
            return True
        question, self.question = self.question, None
        if question is not None:
            text = question.complete(text) or text
        try:
            command = parse(text)
        except CommandError as exc:
            self.say(_escape(str(exc)))
            return True
        if command.verb == "quit":
            return False
        try:
            self.command(command, text)
        except EngineError as exc:  # a reason the checks above missed: still words
            self.say(_escape(self._reason(exc)))
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
            self.say_chat(command.text)
        elif (why := self._not_now(verb)) is not None:
            self.say(why)
        elif self.game == "sequence":
            self._classic(command, text)
        else:
            self._stacks(command, text)

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
            return _escape(f"Wait: the Block window on {whose} {window.pile.colour.title} pile "
                           f"{window.pile.name} is open.")
        if verb == "block" and self.game == "stacks":
            return "There is no completed pile to block now."
        if view.current != me:
            return _escape(f"Not your turn: {self.name(view.current)} is playing.")
        return None

    def _card(self, number: int | None) -> int | None:
        """The card a number names (said why not, else ``None``)."""
        view, me = self.view, self.me
        assert view is not None and me is not None and number is not None
        hand = view.hands[me]
        if number == 0 and isinstance(view, State):
            top = view.discard_top(me)
            if top is None:
                self.say("Your discard pile is empty: 0 names its top card.")
            return top
        if 1 <= number <= len(hand):
            return int(hand[number - 1])
        self.say(f"You hold {len(hand)} cards: {number} is not one of them (hand lists them).")
        return None

    def _act(self, action: AnyAction) -> None:
        self._sent = action
        self.question = None
        self.send(action)

    def _check(self, action: AnyAction) -> bool:
        """Send ``action`` if the rules allow it now, else say the engine's reason."""
        if action in self.legal():
            self._act(action)
            return True
        try:
            if isinstance(self.view, SequenceState):
                from engine.classic.rules import validate as classic_validate

                classic_validate(self.view, action)  # type: ignore[arg-type]
            else:
                from engine.rules import validate

                validate(self.view, action)  # type: ignore[arg-type]
        except EngineError as exc:
            self.say(_escape(self._reason(exc)))
            return False
        self.say("That can't be done now.")
        return False

    def _reason(self, exc: Exception) -> str:
        """The engine's reason as a sentence, seats by their names."""
        def named(match: re.Match[str]) -> str:
            seat = int(match.group(1))
            if seat == self.me:
                return "your" if match.group(2) else "you"
            return self.name(seat) + (match.group(2) or "")

        text = re.sub(r"\bseat (\d+)('s)?", named, str(exc))
        return text[:1].upper() + text[1:] + ("" if text.endswith((".", "!", "?")) else ".")

    def _ask(self, prefix: str, question: str, answers: dict[str, str]) -> None:
        self.question = Question(prefix, answers)
        self.say(_escape(question))

    # -- Sequence Stacks -----------------------------------------------------------------------

    def _stacks(self, command: Command, text: str) -> None:
        view, me = self.view, self.me
        assert isinstance(view, State) and me is not None
        verb = command.verb
        legal = self.legal()
        if verb == "block":
            blocks = [a for a in legal if isinstance(a, Block)]
            if blocks:
                self._act(blocks[0])
            elif any(isinstance(a, PassBlock) for a in legal):
                self.say("You hold no Block card: type pass (it passes for you anyway).")
            else:
                window = view.window
                held = [c for c in view.hands[me] if FACES[c].kind is Kind.BLOCK]
                self._check(Block(me, held[0] if held else _first(Kind.BLOCK)))
                del window
            return
        if verb == "pass":
            passes = [a for a in legal if isinstance(a, PassBlock)]
            if passes:
                self._act(passes[0])
            elif view.phase == Phase.BLOCK_WINDOW:
                self._check(PassBlock(me))
            else:
                self.say("Pass answers a Block window. To end your turn, discard a card "
                         "(discard N), or type end when your hand is empty.")
            return
        if verb == "end":
            self._check(EndTurn(me))
            return
        if verb == "dead":
            self.say("Dead cards are classic Sequence's: here, discard N ends your turn.")
            return
        card = self._card(command.card)
        if card is None:
            return
        code = words.card_code(card)
        if verb == "discard":
            if command.card == 0:
                self.say("You discard from your hand, not from your discard pile.")
                return
            could = [a for a in legal if isinstance(a, PlayCard) and a.card == card]
            action = Discard(me, card)
            if could and self._discard_asked != card and action in legal:
                self._discard_asked = card
                pile = view.pile(could[0].pile)
                colour = FACES[card].colour
                where = f"on {pile.label()}" if pile is not None else \
                    f"on a new {colour.title if colour is not None else ''} pile"
                self.say(f"{code} could go {where}. Discard it anyway and end your turn? "
                         f"Type {text} again to discard it.")
                return
            self._discard_asked = None
            self._check(action)
            return
        self._play_stacks(view, me, card, command, text)

    def _play_stacks(self, view: State, me: Seat, card: int, command: Command,
                     text: str) -> None:
        kind = FACES[card].kind
        code = words.card_code(card)
        legal = [a for a in self.legal() if getattr(a, "card", None) == card]
        if kind is Kind.BLOCK:
            self.say(f"{code} is played in a Block window only: type block then.")
            return
        if kind in (Kind.NUMBER, Kind.WILD):
            plays = [a for a in legal if isinstance(a, PlayCard)]
            if command.where is not None:
                pile = self._pile(view, command.where)
                if pile is None:
                    return
                self._check(PlayCard(me, card, pile))
                return
            if len(plays) == 1:
                self._act(plays[0])
                return
            if not plays:
                self.say(f"{code} fits no pile now.")
                return
            answers = {}
            for action in plays:
                found = view.pile(action.pile)
                where = "new" if found is None else found.name
                answers[where] = f"on {where}"
            self._ask(text, f"On which pile: {_or(list(answers))}?", answers)
            return
        if kind in (Kind.SKIP, Kind.REVERSE):
            action_type = PlaySkip if kind is Kind.SKIP else PlayReverse
            self._check(action_type(me, card))
            return
        steals = [a for a in legal if isinstance(a, StealCard | StealChip)]
        if command.target is not None:
            target = self._seat(command.target)
            if target is None:
                return
            steals = [a for a in steals if a.target == target]
        if command.zone is not None:
            zone = Zone.HAND if command.zone == "hand" else Zone.DISCARD
            steals = [a for a in steals if isinstance(a, StealCard) and a.zone == zone]
        if command.colour is not None:
            colour = Colour.RED if command.colour == "red" else Colour.BLUE
            steals = [a for a in steals if isinstance(a, StealChip) and a.colour == colour]
        if len(steals) == 1:
            self._act(steals[0])
            return
        if not steals:
            self._check(self._steal_for(me, card, kind, command))
            return
        targets = list(dict.fromkeys(a.target for a in steals))
        if len(targets) > 1:
            answers = {}
            for seat in targets:
                answers[self.name(seat).lower()] = f"from {self.name(seat)}"
                answers[str(seat + 1)] = f"from {self.name(seat)}"
            self._ask(text, f"Steal from whom: {_or([self.name(s) for s in targets])}?",
                      answers)
            return
        who = self.name(targets[0])
        if kind is Kind.STEAL_CARD:
            self._ask(text, f"From {who}'s hand (a random card) or discard top?",
                      {"hand": "hand", "discard": "discard"})
        else:
            colours = [Colour(a.colour).title.lower() for a in steals
                       if isinstance(a, StealChip)]
            self._ask(text, f"Which chip from {who}: {_or(colours)}?",
                      {c: c for c in colours})

    def _steal_for(self, me: Seat, card: int, kind: Kind, command: Command) -> Any:
        """The steal the command describes (for the engine's reason why it can't be)."""
        target = self._seat(command.target, quiet=True) if command.target else None
        if target is None:
            target = next((s for s in range(len(self.names)) if s != me), 0)
        if kind is Kind.STEAL_CARD:
            zone = Zone.DISCARD if command.zone == "discard" else Zone.HAND
            return StealCard(me, card, target, zone)
        colour = Colour.BLUE if command.colour == "blue" else Colour.RED
        return StealChip(me, card, target, colour)

    def _pile(self, view: State, where: str) -> PileId | None:
        if where == "new":
            return NEW_PILE
        piles = list(view.piles)
        found = next((p for p in piles if p.name == where), None)
        if found is None:
            names = [p.name for p in sorted(piles, key=lambda p: p.name)]
            open_ = f"the open piles are {', '.join(names)}" if names else "no pile is open"
            self.say(f"There is no pile {where}: {open_} (or new for a new pile).")
            return None
        return found.id

    def _seat(self, words_: str | None, *, quiet: bool = False) -> Seat | None:
        """The opponent some words name (a name, its start, or a seat number)."""
        said = " ".join((words_ or "").lower().split())
        others = [s for s in range(len(self.names)) if s != self.me]
        for seat in others:
            if self.names[seat].lower() == said:
                return seat
        digits = said.removeprefix("seat ").strip()
        if digits.isdigit() and int(digits) - 1 in others:
            return int(digits) - 1
        starts = [s for s in others if self.names[s].lower().startswith(said)]
        if len(starts) == 1:
            return starts[0]
        if not quiet:
            self.say(_escape(f"Nobody called {said!r} here: "
                             f"{_or([self.names[s] for s in others])}."))
        return None

    # -- classic Sequence ------------------------------------------------------------------------

    def _classic(self, command: Command, text: str) -> None:
        view, me = self.view, self.me
        assert isinstance(view, SequenceState) and me is not None
        verb = command.verb
        legal = self.legal()
        if verb == "pass":
            self._check(PassTurn(me))
            return
        if verb == "end":
            self.say("Your turn ends by itself once you play a card.")
            return
        if verb == "block":
            self.say("There is no Block in Sequence.")
            return
        card = self._card(command.card)
        if card is None:
            return
        if verb == "dead":
            self._check(ExchangeDeadCard(me, card))
            return
        if verb == "discard":
            self._check(DiscardUnplayable(me, card))
            return
        jack = CLASSIC_FACES[card].jack
        plays = [a for a in legal if isinstance(a, PlaceChip | RemoveChip) and a.card == card
                 and not (isinstance(a, PlaceChip) and a.claim)]
        where = command.where or command.target  # "play 2 at k4": words, not a space
        if where is None:
            if len(plays) == 1:
                self._act(plays[0])
                return
            if not plays:
                if ExchangeDeadCard(me, card) in legal:
                    self.say(f"{classic_words.code(card)} is dead: both its spaces are "
                             f"taken. Type dead {command.card} to turn it in.")
                else:
                    self.say(f"{classic_words.code(card)} can't be played now.")
                return
            cells = [cell_name(a.cell) for a in plays]
            shown = _or(cells) if len(cells) <= LIST_CELLS else \
                ", ".join(cells[:LIST_CELLS]) + f" and {len(cells) - LIST_CELLS} more"
            self._ask(text, f"At which space: {shown}? Type the space, e.g. {cells[0]}.",
                      {c.lower(): f"at {c.lower()}" for c in cells})
            return
        try:
            cell = parse_cell(where)
        except ValueError:
            self.say(_escape(f"{where.upper()} is not a board space: they go from A1 to J10."))
            return
        action: Any = RemoveChip(me, card, cell) if jack is JackKind.ONE_EYED else \
            PlaceChip(me, card, cell)
        self._check(action)


def _first(kind: Kind) -> int:
    return next(i for i, f in enumerate(FACES) if f.kind is kind)


def _escape(text: str) -> str:
    """Words as markup that says them as they are (a name may hold ``[``)."""
    from rich.markup import escape

    return escape(text)


# -- the run: the session, stdin and stdout -----------------------------------------------------


def _read_lines(loop: asyncio.AbstractEventLoop, queue: asyncio.Queue[str | None],
                stream: TextIO) -> None:
    """A thread: every line of ``stream`` onto ``queue``, then ``None`` at its end. A
    thread reads a pipe, a file and a terminal alike without blocking the loop."""
    try:
        for line in stream:
            loop.call_soon_threadsafe(queue.put_nowait, line)
    except (OSError, ValueError):
        pass
    with contextlib.suppress(RuntimeError):  # the loop closed first
        loop.call_soon_threadsafe(queue.put_nowait, None)


async def play_plain(launch: Any, *, stdin: TextIO | None = None,
                     stdout: TextIO | None = None, profiles: Any = None,
                     memory: Any = None) -> int:
    """Run one table in plain mode until the game is over (and checked) or the user
    quits; the exit status (0 done, 1 the table could not be opened or refused us)."""
    from tui.messages import (
        BrokerNote,
        Health,
        NetNotice,
        RecordWritten,
        SessionFailed,
        SessionReady,
        Waiting,
    )
    from tui.session import TableSession

    out = stdout or sys.stdout
    loop = asyncio.get_running_loop()
    done: asyncio.Future[int] = loop.create_future()

    def write(line: str) -> None:
        with contextlib.suppress(OSError, ValueError):
            out.write(line + "\n")
            out.flush()

    def finish(code: int) -> None:
        if not done.done():
            done.set_result(code)

    session: TableSession | None = None

    def send(action: AnyAction) -> None:
        if session is not None:
            session.act(action)

    def chat(text: str) -> None:
        if session is not None:
            session.chat(text)

    table = PlainTable(
        launch.table, send=send, later=loop.call_later, write=write, say_chat=chat,
        block_window=launch.block_window if launch.hosting else None,
    )
    record: list[str] = []

    def after_game() -> None:
        """The game is over: leave once the deal is checked (and, at our own table, the
        record written), or after a while without it."""
        if table.verdict is None or (launch.hosting and not record):
            return
        finish(0)

    def post(message: object) -> None:
        try:
            if isinstance(message, NetNotice):
                player = session.player if session is not None else None
                table.notice(message.notice, player.view if player is not None else None)
                if isinstance(message.notice, GameEnded):
                    loop.call_later(launch.verify_wait + 10.0, finish, 0)
                if table.failed:
                    finish(1)
                if table.over:
                    after_game()
            elif isinstance(message, Health):
                problem = message.problem
                table.health(None if problem is None else problem.title,
                             "" if problem is None else problem.words)
            elif isinstance(message, SessionFailed):
                table.say(_escape(f"{message.problem.title} {message.problem.words}"))
                finish(1)
            elif isinstance(message, SessionReady):
                if launch.role != "play":
                    table.say(_escape(f"Connected: {message.where}."))
            elif isinstance(message, Waiting):
                table.waiting = message.line
            elif isinstance(message, BrokerNote):
                table.say(words.broker_line(message.text))
            elif isinstance(message, RecordWritten):
                record.append(message.path)
                table.say(_escape(f"The game's record is in {message.path} (stacks replay "
                                  "or stacks verify read it)."))
                if table.over:
                    after_game()
        except Exception:  # a peer never dies of its interface: say it, log it
            log.exception("plain mode could not tell %r", message)
            table.say("Something went wrong showing that; the details are in the log.")

    opening = {"play": f"Starting a game of {game_def(launch.variant).title} against "
                       f"{launch.bots} {'bot' if launch.bots == 1 else 'bots'}…",
               "host": f"Opening table {launch.table}…",
               "join": f"Joining table {launch.table}…",
               "watch": f"Watching table {launch.table}…"}[launch.role]
    table.say("Plain mode: the game in numbered lines. Type help for the commands, quit to "
              "leave.")
    table.say(_escape(opening))
    session = TableSession(launch, post, profiles=profiles, memory=memory)
    running = asyncio.create_task(session.run())
    running.add_done_callback(lambda _task: finish(0 if table.over else 1))
    lines: asyncio.Queue[str | None] = asyncio.Queue()
    reader = threading.Thread(target=_read_lines, args=(loop, lines, stdin or sys.stdin),
                              name="plain-stdin", daemon=True)
    reader.start()

    async def typed() -> None:
        while True:
            line = await lines.get()
            if line is None:  # the end of the input leaves, as quit does
                finish(0)
                return
            try:
                going_on = table.line(line)
            except Exception:
                log.exception("plain mode could not do %r", line)
                table.say("Something went wrong doing that; the details are in the log.")
                going_on = True
            if not going_on:
                table.say("Leaving the table. Goodbye.")
                finish(0)
                return

    typing = asyncio.create_task(typed())
    try:
        code = await done
    finally:
        typing.cancel()
        running.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await running
    if code == 1 and not table.failed and not table.over:
        table.say("The table closed.")
    return code


def run_plain(launch: Any) -> int:
    """``stacks play --plain`` and the others: the exit status."""
    try:
        return asyncio.run(play_plain(launch))
    except KeyboardInterrupt:
        return 130
