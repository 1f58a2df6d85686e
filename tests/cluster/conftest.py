"""Fixtures of the cluster trials: hosts of their own in network namespaces, PostgreSQL
and a three-node NATS cluster on them (`stacks.bench.cluster.harness`). Skipped, with
the reason, where namespaces can't be made (not root, no iproute2, no nats-server)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from broker.nats_runner import NatsNotInstalled, find_nats
from stacks.bench.cluster.harness import Cluster
from stacks.bench.cluster.netns import unavailable
from tests.support import SCALE


def need_namespaces() -> None:
    reason = unavailable()
    if reason is not None:
        pytest.skip(reason)
    try:
        find_nats()
    except NatsNotInstalled as exc:
        pytest.skip(str(exc))


@pytest.fixture(scope="module")
def cluster() -> Iterator[Cluster]:
    """A database host and three node hosts, each with a NATS node (the module's own)."""
    need_namespaces()
    made = Cluster(3)
    made.start(timeout=90 * SCALE)
    try:
        yield made
    finally:
        made.close()
