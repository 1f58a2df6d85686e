"""Ratings, game history and server accounts in a real database.

``results`` turns a verified game record into a result; ``compute`` rates results with
OpenSkill's Plackett-Luce model (2-6 players, teams); ``models`` is the schema,
``migrations`` its Alembic history; ``store`` the async API the command line, the
interface and the ssh server use (SQLAlchemy 2 on SQLite or PostgreSQL).
"""
