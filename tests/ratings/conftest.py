"""Every database test runs on SQLite and on a PostgreSQL cluster of the test run's own."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.postgres import Cluster


@pytest.fixture(scope="session")
def postgres() -> Iterator[Cluster]:
    cluster = Cluster()
    try:
        cluster.start()
    except (RuntimeError, OSError) as exc:
        cluster.stop()
        pytest.fail(f"PostgreSQL for the tests could not start: {exc}")
    yield cluster
    cluster.stop()


@pytest.fixture(params=["sqlite", "postgresql"])
def database(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A fresh, empty database's URL: a SQLite file, or a new PostgreSQL database."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'ratings.sqlite'}"
    cluster: Cluster = request.getfixturevalue("postgres")
    return cluster.create()
