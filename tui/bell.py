"""The bell: when the table turns to you (your turn, or a Block window you can answer).

At a networked table (hosted or joined; not ``stacks play`` against your own bots, where
the table waits for you anyway) the app rings the terminal bell, and where the terminal
is known to show desktop notifications it sends one too:

- OSC 9 (``ESC ] 9 ; text BEL``): iTerm2, WezTerm, ghostty, kitty;
- OSC 777 (``ESC ] 777 ; notify ; title ; body BEL``): foot, urxvt.

A terminal is recognised by ``TERM_PROGRAM`` and ``TERM``. Inside tmux or screen
(``$TMUX``, ``$STY``) no notification is sent: the multiplexer would swallow it, or show
it as garbage; the bell goes through (tmux marks the window). ``STACKS_NOTIFY=osc9``,
``osc777`` or ``off`` overrides the guess. The setting to turn both off is the menu's
Bell entry (kept in the profile's settings, ``tui.settings``) or ``--no-bell``.

A Block window rings only for a player who holds a Block: without one the client passes
by itself, and a bell for every pile completed would be noise.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Literal

from engine.actions import Block
from engine.rules import legal_actions
from engine.state import Phase, State

Protocol = Literal["osc9", "osc777"]

OSC9_PROGRAMS = frozenset({"iTerm.app", "WezTerm", "ghostty"})
OSC9_TERMS = frozenset({"xterm-kitty", "xterm-ghostty", "wezterm"})
OSC777_TERM_PREFIXES = ("foot", "rxvt-unicode")

_UNSAFE = re.compile(r"[\x00-\x1f\x7f-\x9f]")


def notify_protocol(env: Mapping[str, str]) -> Protocol | None:
    """How this terminal takes a desktop notification, if it is known to."""
    forced = env.get("STACKS_NOTIFY", "").strip().lower()
    if forced in ("osc9", "osc777"):
        return "osc9" if forced == "osc9" else "osc777"
    if forced:
        return None  # off, none, 0...
    if env.get("TMUX") or env.get("STY"):
        return None
    term = env.get("TERM", "")
    if env.get("TERM_PROGRAM", "") in OSC9_PROGRAMS or term in OSC9_TERMS:
        return "osc9"
    if term.startswith(OSC777_TERM_PREFIXES):
        return "osc777"
    return None


def notification(protocol: Protocol, title: str, body: str) -> str:
    """The escape sequence that asks the terminal for a desktop notification (the text
    stripped of control characters, so that it can't end the sequence early)."""
    title, body = _UNSAFE.sub("", title), _UNSAFE.sub("", body)
    if protocol == "osc9":
        return f"\x1b]9;{title}: {body}\x07"
    return f"\x1b]777;notify;{title.replace(';', ',')};{body}\x07"


def calls_for(before: object | None, after: object, me: int | None) -> str | None:
    """What the change of view from ``before`` to ``after`` asks of seat ``me``, in words
    ("Your turn", "Block?..."), or ``None``. Either game's state (``current``, ``turn``,
    ``phase``); the Block window is Sequence Stacks'."""
    if me is None or getattr(after, "outcome", None) is not None:
        return None
    phase = getattr(after, "phase", None)
    if isinstance(after, State) and phase == Phase.BLOCK_WINDOW and after.window is not None:
        window = after.window
        old = before.window if isinstance(before, State) else None
        if old is not None and old.pile.id == window.pile.id:
            return None  # the same window as before
        if me == window.seat or me in window.passed:
            return None
        if any(isinstance(a, Block) for a in legal_actions(after, me)):
            return f"Block? A {window.pile.colour.title.lower()} pile was completed."
        return None
    if phase != Phase.PLAY or getattr(after, "current", None) != me:
        return None
    if before is not None and getattr(before, "phase", None) in (Phase.PLAY,
                                                                 Phase.BLOCK_WINDOW) \
            and getattr(before, "current", None) == me \
            and getattr(before, "turn", None) == getattr(after, "turn", None):
        return None  # still the same turn of yours
    return "Your turn."
