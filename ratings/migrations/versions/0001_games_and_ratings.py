"""Players, rated games, their seats, and ratings per game kind.

Revision ID: 0001
Revises:
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "players",
        sa.Column("fingerprint", sa.String(40), primary_key=True),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("bot", sa.Boolean, nullable=False),
        sa.Column("key", sa.LargeBinary, nullable=True),
        sa.Column("first_seen", sa.Float, nullable=False),
    )
    op.create_table(
        "games",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("table_name", sa.String(64), nullable=False),
        sa.Column("ended_at", sa.Float, nullable=False),
        sa.Column("players", sa.Integer, nullable=False),
        sa.Column("winner", sa.Integer, nullable=True),
        sa.Column("length", sa.Integer, nullable=False),
        sa.Column("added_at", sa.Float, nullable=False),
        sa.Column("record", sa.Text, nullable=False),
    )
    op.create_index("ix_games_kind_order", "games", ["kind", "ended_at", "id"])
    op.create_table(
        "game_seats",
        sa.Column("game_id", sa.String(64), sa.ForeignKey("games.id", ondelete="CASCADE"),
                  primary_key=True),
        sa.Column("seat", sa.Integer, primary_key=True),
        sa.Column("fingerprint", sa.String(40), sa.ForeignKey("players.fingerprint"),
                  nullable=False),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("team", sa.Integer, nullable=False),
        sa.Column("won", sa.Boolean, nullable=False),
        sa.Column("mu_before", sa.Float, nullable=False),
        sa.Column("sigma_before", sa.Float, nullable=False),
        sa.Column("mu_after", sa.Float, nullable=False),
        sa.Column("sigma_after", sa.Float, nullable=False),
    )
    op.create_index("ix_game_seats_fingerprint", "game_seats", ["fingerprint"])
    op.create_table(
        "ratings",
        sa.Column("fingerprint", sa.String(40), sa.ForeignKey("players.fingerprint"),
                  primary_key=True),
        sa.Column("kind", sa.String(16), primary_key=True),
        sa.Column("mu", sa.Float, nullable=False),
        sa.Column("sigma", sa.Float, nullable=False),
        sa.Column("games", sa.Integer, nullable=False),
        sa.Column("wins", sa.Integer, nullable=False),
    )
    op.create_index("ix_ratings_kind", "ratings", ["kind"])


def downgrade() -> None:
    op.drop_table("ratings")
    op.drop_table("game_seats")
    op.drop_table("games")
    op.drop_table("players")
