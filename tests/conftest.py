"""Settings for the whole test run."""

from __future__ import annotations

import os

# mDNS (LAN discovery) stays on the loopback interface in every test, including the
# programs the tests start: tests never send traffic to the network.
os.environ.setdefault("STACKS_MDNS_INTERFACES", "127.0.0.1")
