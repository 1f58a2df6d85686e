"""The schema (SQLAlchemy Core), as the newest migration leaves it.

``players``: every identity seen in a rated game (a person's key fingerprint, or a bot
level). ``games``: every rated game, keyed by its commitment, with its whole record.
``game_seats``: who sat where, on which side, and their skill before and after.
``ratings``: each identity's current skill per game kind. ``accounts`` and
``account_keys``: the ssh server's accounts (a chosen name, the identity its games are
played with, and the ssh keys that log in to it).
"""

from __future__ import annotations

from sqlalchemy import (
    Boolean,
    Column,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Table,
    Text,
)

metadata = MetaData()

players = Table(
    "players", metadata,
    Column("fingerprint", String(40), primary_key=True),
    Column("name", String(64), nullable=False),
    Column("bot", Boolean, nullable=False),
    Column("key", LargeBinary, nullable=True),
    Column("first_seen", Float, nullable=False),
)

games = Table(
    "games", metadata,
    Column("id", String(64), primary_key=True),
    Column("kind", String(16), nullable=False),
    Column("table_name", String(64), nullable=False),
    Column("ended_at", Float, nullable=False),
    Column("players", Integer, nullable=False),
    Column("winner", Integer, nullable=True),
    Column("length", Integer, nullable=False),
    Column("added_at", Float, nullable=False),
    Column("record", Text, nullable=False),
    Index("ix_games_kind_order", "kind", "ended_at", "id"),
)

game_seats = Table(
    "game_seats", metadata,
    Column("game_id", String(64), ForeignKey("games.id", ondelete="CASCADE"),
           primary_key=True),
    Column("seat", Integer, primary_key=True),
    Column("fingerprint", String(40), ForeignKey("players.fingerprint"), nullable=False),
    Column("name", String(64), nullable=False),
    Column("team", Integer, nullable=False),
    Column("won", Boolean, nullable=False),
    Column("mu_before", Float, nullable=False),
    Column("sigma_before", Float, nullable=False),
    Column("mu_after", Float, nullable=False),
    Column("sigma_after", Float, nullable=False),
    Index("ix_game_seats_fingerprint", "fingerprint"),
)

ratings = Table(
    "ratings", metadata,
    Column("fingerprint", String(40), ForeignKey("players.fingerprint"), primary_key=True),
    Column("kind", String(16), primary_key=True),
    Column("mu", Float, nullable=False),
    Column("sigma", Float, nullable=False),
    Column("games", Integer, nullable=False),
    Column("wins", Integer, nullable=False),
    Index("ix_ratings_kind", "kind"),
)

accounts = Table(
    "accounts", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("name", String(24), nullable=False, unique=True),
    Column("name_key", String(24), nullable=False, unique=True),
    Column("profile", String(40), nullable=False, unique=True),
    Column("fingerprint", String(40), nullable=False, unique=True),
    Column("created_at", Float, nullable=False),
)

account_keys = Table(
    "account_keys", metadata,
    Column("ssh_fingerprint", String(100), primary_key=True),
    Column("account_id", Integer, ForeignKey("accounts.id", ondelete="CASCADE"),
           nullable=False),
    Column("added_at", Float, nullable=False),
)

# -- several servers, one community (``ratings.cluster``) --------------------------------------

cluster_nodes = Table(
    "cluster_nodes", metadata,
    Column("name", String(64), primary_key=True),
    Column("heartbeat", Float, nullable=False),
    Column("started_at", Float, nullable=False),
    Column("state", String(16), nullable=False),
    Column("hears", String(2048), nullable=True),
    Column("reach", Integer, nullable=True),
)

held_tables = Table(
    "held_tables", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("table_name", String(64), nullable=False),
    Column("live_name", String(64), nullable=True, unique=True),
    Column("node", String(64), nullable=False),
    Column("epoch", Integer, nullable=False),
    Column("lease_until", Float, nullable=False),
    Column("state", String(16), nullable=False),
    Column("creator", String(64), nullable=False),
    Column("creator_name", String(64), nullable=False),
    Column("created_at", Float, nullable=False),
    Column("ended_at", Float, nullable=True),
    Column("why", Text, nullable=True),
    Index("ix_held_tables_state", "state", "lease_until"),
)

journal_entries = Table(
    "journal_entries", metadata,
    Column("held_id", Integer, ForeignKey("held_tables.id", ondelete="CASCADE"),
           primary_key=True),
    Column("seq", Integer, primary_key=True),
    Column("epoch", Integer, nullable=False),
    Column("entry", LargeBinary, nullable=False),
)

profile_keys = Table(
    "profile_keys", metadata,
    Column("profile", String(40), primary_key=True),
    Column("seed", LargeBinary, nullable=False),
    Column("created_at", Float, nullable=False),
)
