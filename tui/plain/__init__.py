"""Plain mode: the game as numbered lines of words, and typed commands.

For screen readers and slow links (``stacks play --plain``, ``join --plain``, ``watch
--plain``): no screen to redraw, nothing but lines. Every event is said once, in order,
each line numbered; the player types ``play 3 on a``, ``discard 2``, ``block``, ``pass``
(``play 2 at E5``, ``dead 4`` in classic Sequence). A command that can't be done gets a
sentence saying why (the engine's own reason), never a traceback.

It is a second front end on the same peers as the Textual interface, in rooms:

- :mod:`tui.plain.commands`: a typed line read as a command (the words only);
- :mod:`tui.plain.moves`: a command made into the action it means at the table as it is;
- :mod:`tui.plain.words`: the table as it is in words (hand, piles, seats, moves);
- :mod:`tui.plain.table`: :class:`~tui.plain.table.PlainTable`, the session's notices
  told in numbered lines, and typed lines done;
- :mod:`tui.plain.run`: :func:`~tui.plain.run.run_plain`, the session wired to stdin
  and stdout.
"""
