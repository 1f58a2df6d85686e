"""Alembic's migrations of the ratings database (shipped with the package)."""
