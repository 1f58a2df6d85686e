"""The actions awaiting an answer, driven alone with a fake clock: answered by a batch's
proof (and every older one with it) or a rejection, sent again while unanswered, given up
after the last try or when there is no host to send to."""

from __future__ import annotations

from netplay.playing.pending_actions import ACTION_AGAIN, ACTION_TRIES, PendingActions


def _pending(host: bool = True) -> tuple[PendingActions, list[bytes]]:
    resent: list[bytes] = []

    def resend(signed: bytes) -> bool:
        if host:
            resent.append(signed)
        return host

    return PendingActions("t", resend), resent


def test_a_proof_answers_its_action_and_every_older_one() -> None:
    pending, _ = _pending()
    for n, signed in enumerate((b"a", b"b", b"c")):
        pending.sent(signed, float(n))
    pending.answered(b"b")
    assert [u.signed for u in pending.unanswered] == [b"c"]
    pending.answered(b"unknown")
    assert len(pending) == 1


def test_a_rejection_answers_the_oldest() -> None:
    pending, _ = _pending()
    pending.sent(b"a", 0.0)
    pending.sent(b"b", 0.5)
    pending.rejected()
    assert [u.signed for u in pending.unanswered] == [b"b"]


def test_an_unanswered_action_goes_again_until_its_last_try() -> None:
    pending, resent = _pending()
    pending.sent(b"a", 0.0)
    assert pending.next_deadline(0.0) == ACTION_AGAIN
    pending.tick(ACTION_AGAIN - 0.01)
    assert resent == []
    now = 0.0
    for _ in range(ACTION_TRIES - 1):
        now += ACTION_AGAIN
        pending.tick(now)
    assert resent == [b"a"] * (ACTION_TRIES - 1)
    assert pending.unanswered[0].tries == ACTION_TRIES
    pending.tick(now + ACTION_AGAIN)  # sent ACTION_TRIES times in all: given up
    assert not pending and pending.next_deadline(now) is None
    assert len(resent) == ACTION_TRIES - 1


def test_an_action_with_no_host_to_send_it_to_is_given_up() -> None:
    pending, resent = _pending(host=False)
    pending.sent(b"a", 0.0)
    pending.tick(ACTION_AGAIN)
    assert not pending and resent == []


def test_forgetting_drops_every_pending_action() -> None:
    pending, _ = _pending()
    pending.sent(b"a", 0.0)
    pending.forget()
    assert not pending and pending.next_deadline(0.0) is None


def test_a_welcome_sends_every_unanswered_action_again_at_once_in_order() -> None:
    # The table moved to another server (or its host restarted) while two actions were
    # on their way: the new host gets them when it welcomes the peer, not seconds later.
    pending, resent = _pending()
    pending.sent(b"a", 0.0)
    pending.sent(b"b", 0.5)
    pending.welcomed(1.0)
    assert resent == [b"a", b"b"]
    assert [u.sent_at for u in pending.unanswered] == [1.0, 1.0]
    assert [u.tries for u in pending.unanswered] == [1, 1]  # not a try more
    assert pending.next_deadline(1.0) == 1.0 + ACTION_AGAIN


def test_a_welcome_with_nothing_unanswered_sends_nothing() -> None:
    pending, resent = _pending()
    pending.welcomed(1.0)
    assert resent == [] and not pending


def test_a_welcome_with_no_host_to_send_to_gives_the_actions_up() -> None:
    pending, resent = _pending(host=False)
    pending.sent(b"a", 0.0)
    pending.welcomed(1.0)
    assert not pending and resent == []
