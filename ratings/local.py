"""This machine's games into this machine's ratings: every game played or hosted here is
added as it ends (to ``STACKS_DATABASE`` if set, else SQLite in the data directory)."""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from pathlib import Path

from netplay.journal import data_dir
from ratings.archive import Archive
from ratings.store import Added, default_database

log = logging.getLogger(__name__)

DATABASE_ENV = "STACKS_DATABASE"
"""The database this machine's games and screens use (``stacks serve --database`` hands
its own to the programs of its sessions)."""
PENDING = "ratings-pending"


def local_database() -> str:
    return os.environ.get(DATABASE_ENV) or default_database(data_dir())


async def add_finished(record: Path, *, journal: Path | None = None,
                       say: Callable[[str], None] | None = None) -> Added | None:
    """Add the finished game of ``record`` to this machine's ratings; what was added
    (``None``: not now; it is kept and added with the next game, the words say why)."""
    archive = Archive(local_database(), data_dir() / PENDING,
                      say=say or (lambda text: log.warning("%s", text)))
    try:
        entry = archive.expect(journal=journal, record=record)
        added = await archive.store(entry)
        if archive.down is None:
            await archive.drain()  # games a database that was down missed
        return added
    finally:
        await archive.close()
