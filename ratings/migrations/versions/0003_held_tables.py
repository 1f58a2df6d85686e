"""Several servers, one community: the nodes, the tables they hold under a lease, the
tables' journals and the players' game identities (``ratings.cluster``).

Revision ID: 0003
Revises: 0002
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "cluster_nodes",
        sa.Column("name", sa.String(64), primary_key=True),
        sa.Column("heartbeat", sa.Float, nullable=False),
        sa.Column("started_at", sa.Float, nullable=False),
        sa.Column("state", sa.String(16), nullable=False),
    )
    op.create_table(
        "held_tables",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("table_name", sa.String(64), nullable=False),
        sa.Column("live_name", sa.String(64), nullable=True, unique=True),
        sa.Column("node", sa.String(64), nullable=False),
        sa.Column("epoch", sa.Integer, nullable=False),
        sa.Column("lease_until", sa.Float, nullable=False),
        sa.Column("state", sa.String(16), nullable=False),
        sa.Column("creator", sa.String(64), nullable=False),
        sa.Column("creator_name", sa.String(64), nullable=False),
        sa.Column("created_at", sa.Float, nullable=False),
        sa.Column("ended_at", sa.Float, nullable=True),
        sa.Column("why", sa.Text, nullable=True),
    )
    op.create_index("ix_held_tables_state", "held_tables", ["state", "lease_until"])
    op.create_table(
        "journal_entries",
        sa.Column("held_id", sa.Integer,
                  sa.ForeignKey("held_tables.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("seq", sa.Integer, primary_key=True),
        sa.Column("epoch", sa.Integer, nullable=False),
        sa.Column("entry", sa.LargeBinary, nullable=False),
    )
    op.create_table(
        "profile_keys",
        sa.Column("profile", sa.String(40), primary_key=True),
        sa.Column("seed", sa.LargeBinary, nullable=False),
        sa.Column("created_at", sa.Float, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("profile_keys")
    op.drop_table("journal_entries")
    op.drop_index("ix_held_tables_state", table_name="held_tables")
    op.drop_table("held_tables")
    op.drop_table("cluster_nodes")
