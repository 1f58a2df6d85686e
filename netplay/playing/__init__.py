"""The player's session's collaborators, each a small sans-I/O part that
:class:`netplay.player.PlayerSession` owns and wires, found by what it does:
what the session tells its user (:mod:`~netplay.playing.notices`), the join
(:mod:`~netplay.playing.joining`), the host it follows (:mod:`~netplay.playing.following`),
its own heartbeats (:mod:`~netplay.playing.beats`), the batch follower
(:mod:`~netplay.playing.follower`), the actions awaiting an answer
(:mod:`~netplay.playing.pending_actions`), the deal check
(:mod:`~netplay.playing.deal_check`), the end-of-game check
(:mod:`~netplay.playing.verification`), the host's liveness
(:mod:`~netplay.playing.liveness`), and the smaller parts: chat
(:mod:`~netplay.playing.chat`), its own presence (:mod:`~netplay.playing.presence`) and
whom the table waits for (:mod:`~netplay.playing.waits`). Each one that keeps a timer
says when it is next due (``next_deadline(now)``) and does it in ``tick(now)``."""
