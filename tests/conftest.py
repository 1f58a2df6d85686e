"""Settings for the whole test run."""

from __future__ import annotations

import os

import pytest

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
