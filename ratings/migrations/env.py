"""Alembic's environment: always run from `ratings.schema` on a connection it hands in."""

from __future__ import annotations

from alembic import context

from ratings.models import metadata

connection = context.config.attributes["connection"]
context.configure(connection=connection, target_metadata=metadata,
                  render_as_batch=connection.dialect.name == "sqlite")
with context.begin_transaction():
    context.run_migrations()
