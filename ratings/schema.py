"""The schema's version: Alembic upgrades an older database; a newer one is refused.

The migrations are package data (``ratings/migrations``); they run on the connection the
store hands in, inside its transaction.
"""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from alembic.script.revision import ResolutionError
from alembic.util.exc import CommandError
from sqlalchemy import Connection

MIGRATIONS = Path(__file__).resolve().parent / "migrations"


class SchemaTooNew(RuntimeError):
    """The database was made by a newer ``stacks``; the words say what to do."""


def _config() -> Config:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    return config


def head() -> str:
    """The newest schema revision this ``stacks`` knows."""
    revision = ScriptDirectory.from_config(_config()).get_current_head()
    assert revision is not None
    return revision


def current(connection: Connection) -> str | None:
    """The database's schema revision (``None``: not made yet)."""
    return MigrationContext.configure(connection).get_current_revision()


def upgrade(connection: Connection, target: str = "head") -> str | None:
    """Bring the database to ``target``; returns what was done in words when an existing
    database was upgraded (``None`` when it was new or already current). Raises
    `SchemaTooNew` for a database of a newer ``stacks``."""
    config = _config()
    script = ScriptDirectory.from_config(config)
    newest = script.get_current_head()
    found = current(connection)
    if found is not None:
        try:
            script.get_revision(found)
        except (ResolutionError, CommandError, KeyError):
            raise SchemaTooNew(
                f"the database has schema revision {found}, made by a newer stacks; this "
                f"stacks knows revisions up to {newest}: upgrade stacks (pip install -U "
                "sequence-stacks) to use it"
            ) from None
    wanted = newest if target == "head" else target
    if found == wanted:
        return None
    config.attributes["connection"] = connection
    command.upgrade(config, target)
    if found is None:
        return None
    return f"upgraded the database from schema revision {found} to {wanted}"
