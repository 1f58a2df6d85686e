"""Settings for the whole test run."""

from __future__ import annotations

import faulthandler
import os
import signal
import threading
from collections.abc import Callable
from typing import Any

import pytest

from tests.hang import hang_report
from tests.support import SCALE

SLOW_TIMEOUT_S = 3 * 60 * 60.0
"""Per-test timeout of the ``slow`` trials (``-m slow``: soaks and fuzz runs that may run
for an hour or more, longer with their size variables raised); the others have the
``timeout`` of pyproject's pytest settings (pytest-timeout)."""
BACKSTOP_S = 60.0
"""Seconds past its timeout after which a test the timeout did not stop (its main
thread stuck where no signal handler runs, or its teardown hung after the timeout) has
every thread's stack written to stderr and its process ended: under pytest-xdist (the
README's command) the worker is replaced and the run goes on."""
_STDERR_FD = pytest.StashKey[int]()
"""A copy of the run's own stderr, which the tests' capture does not take."""

# mDNS (LAN discovery) stays on the loopback interface in every test, including the
# programs the tests start: tests never send traffic to the network.
os.environ.setdefault("STACKS_MDNS_INTERFACES", "127.0.0.1")



@pytest.fixture(autouse=True)
def _own_stacks_home(tmp_path_factory: pytest.TempPathFactory,
                     monkeypatch: pytest.MonkeyPatch) -> None:
    """Profiles, table journals and records of every test (and of the programs it
    starts) live in a folder of their own: a test never sees another's unfinished table
    or profile lock, nor the user's. Tests that need their own set STACKS_HOME again."""
    monkeypatch.setenv("STACKS_HOME", str(tmp_path_factory.mktemp("stacks-home")))


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The ``slow`` trials get `SLOW_TIMEOUT_S` (unless they name their own timeout)."""
    for item in items:
        if item.get_closest_marker("slow") and not item.get_closest_marker("timeout"):
            item.add_marker(pytest.mark.timeout(SLOW_TIMEOUT_S))


def pytest_configure(config: pytest.Config) -> None:
    capture = config.pluginmanager.getplugin("capturemanager")
    if capture is not None:  # the real stderr, not the test's captured one
        with capture.global_and_fixture_disabled():
            config.stash[_STDERR_FD] = os.dup(2)
    else:
        config.stash[_STDERR_FD] = os.dup(2)


def pytest_unconfigure(config: pytest.Config) -> None:
    fd = config.stash.get(_STDERR_FD, None)
    if fd is not None:
        os.close(fd)


@pytest.hookimpl(tryfirst=True)
def pytest_timeout_set_timer(item: pytest.Item, settings: Any) -> bool | None:
    """pytest-timeout's ``signal`` method, with more said: a test past its timeout
    (scaled by ``STACKS_TEST_TIMEOUT_SCALE``, as the tests' own waits are) fails with
    every thread's stack and every asyncio task's awaits in its report
    (`tests.hang.hang_report`), and the run goes on. `BACKSTOP_S` later, a test still
    running is ended from outside (faulthandler). Other methods are the plugin's own."""
    if settings.method != "signal" or threading.current_thread() is not threading.main_thread():
        return None
    import pytest_timeout

    timeout = settings.timeout * SCALE

    def on_timeout(signum: int, frame: Any) -> None:
        __tracebackhide__ = True
        if not settings.disable_debugger_detection and pytest_timeout.is_debugging():
            return
        pytest.fail(f"Timeout: {item.nodeid} ran past {timeout:g} s (pytest-timeout); "
                    f"what it was doing then:\n{hang_report()}")

    def cancel() -> None:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, signal.SIG_DFL)
        faulthandler.cancel_dump_traceback_later()

    cancel_timeout: Callable[[], None] = cancel
    item.cancel_timeout = cancel_timeout  # type: ignore[attr-defined]  # pytest-timeout calls it
    signal.signal(signal.SIGALRM, on_timeout)
    signal.setitimer(signal.ITIMER_REAL, timeout)
    faulthandler.dump_traceback_later(timeout + BACKSTOP_S, exit=True,
                                      file=item.config.stash[_STDERR_FD])
    return True
