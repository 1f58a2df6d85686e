"""The host's collaborators: each concern of a table's authority (``netplay.host``'s
``HostSession``) as a small sans-I/O object the session owns and wires together.

- ``state``: where the table is in its life (``TableState``)
- ``seats``: who sits and who watches (``Seating``, ``PeerRef``)
- ``lobby``: joining, seating, welcoming (``Lobby``)
- ``deal``: the deal's commit and reveal rounds (``DealRounds``)
- ``race``: the Block race (``BlockRace``)
- ``turns``: the host's bots, stand-ins and the turn clock (``Turns``)
- ``presence``: who is away (``Presence``); ``beats``: the heartbeat (``Heartbeats``)
- ``repair``: resends, snapshots, catch-ups (``Repair``)
- ``stream``: the public stream and the spectator delay (``SpectatorStream``)
- ``journal``: what the driver writes before it publishes (``HostJournal``);
  ``restore``: a resumed host's table read back from it
- ``listing``: the announcement, the last will, the listing's answers (``Listing``)
- ``verdicts``: the peers' verdicts on the deal (``Verdicts``); ``record``: the record
- ``settings``: the table's settings (``HostSettings``)

Each that keeps time says when it is next due (``next_deadline(now)``) and does what is
due in ``tick(now)``; the session's own ``next_deadline`` is the earliest of theirs.
"""
