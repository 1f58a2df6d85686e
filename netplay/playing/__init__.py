"""The player's session's collaborators, each a small sans-I/O part that
:class:`netplay.player.PlayerSession` owns and wires: what the session tells its user
(:mod:`~netplay.playing.notices`), the batch follower (:mod:`~netplay.playing.follower`),
the deal check (:mod:`~netplay.playing.deal_check`), the actions awaiting an answer
(:mod:`~netplay.playing.pending_actions`), the host's liveness
(:mod:`~netplay.playing.liveness`), the peer's own heartbeats (:mod:`~netplay.playing.beats`),
the join (:mod:`~netplay.playing.joining`) and the end-of-game check
(:mod:`~netplay.playing.verification`). Each one that keeps a timer says when it is next
due (``next_deadline(now)``) and does it in ``tick(now)``."""
