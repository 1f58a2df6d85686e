"""The ssh server's accounts: a chosen name, the identity it plays with, its ssh keys.

Revision ID: 0002
Revises: 0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "accounts",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("name", sa.String(24), nullable=False, unique=True),
        sa.Column("name_key", sa.String(24), nullable=False, unique=True),
        sa.Column("profile", sa.String(40), nullable=False, unique=True),
        sa.Column("fingerprint", sa.String(40), nullable=False, unique=True),
        sa.Column("created_at", sa.Float, nullable=False),
    )
    op.create_table(
        "account_keys",
        sa.Column("ssh_fingerprint", sa.String(100), primary_key=True),
        sa.Column("account_id", sa.Integer,
                  sa.ForeignKey("accounts.id", ondelete="CASCADE"), nullable=False),
        sa.Column("added_at", sa.Float, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("account_keys")
    op.drop_table("accounts")
