"""Moderation at the ssh server: moderators, mutes and bans, the audit log, players'
reports, and the games a player left for the stand-in to finish.

Revision ID: 0003_moderation
Revises: 0002
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "mod_moderators",
        sa.Column("account_id", sa.Integer,
                  sa.ForeignKey("accounts.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("added_at", sa.Float, nullable=False),
        sa.Column("added_by", sa.String(64), nullable=False),
    )
    op.create_table(
        "mod_sanctions",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("kind", sa.String(8), nullable=False),
        sa.Column("account_id", sa.Integer, nullable=True),
        sa.Column("ssh_fingerprint", sa.String(100), nullable=True),
        sa.Column("target", sa.String(100), nullable=False),
        sa.Column("reason", sa.String(300), nullable=False),
        sa.Column("by_name", sa.String(64), nullable=False),
        sa.Column("at", sa.Float, nullable=False),
        sa.Column("until", sa.Float, nullable=True),
        sa.Column("lifted_at", sa.Float, nullable=True),
        sa.Column("lifted_by", sa.String(64), nullable=True),
    )
    op.create_index("ix_mod_sanctions_live", "mod_sanctions", ["kind", "lifted_at"])
    op.create_table(
        "mod_audit",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("at", sa.Float, nullable=False),
        sa.Column("by_name", sa.String(64), nullable=False),
        sa.Column("action", sa.String(16), nullable=False),
        sa.Column("target", sa.String(100), nullable=False),
        sa.Column("reason", sa.String(300), nullable=False),
        sa.Column("detail", sa.String(600), nullable=False),
    )
    op.create_table(
        "mod_reports",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("at", sa.Float, nullable=False),
        sa.Column("by_name", sa.String(64), nullable=False),
        sa.Column("target", sa.String(64), nullable=False),
        sa.Column("table_name", sa.String(64), nullable=False),
        sa.Column("line", sa.String(600), nullable=False),
        sa.Column("reason", sa.String(300), nullable=False),
        sa.Column("handled_at", sa.Float, nullable=True),
        sa.Column("handled_by", sa.String(64), nullable=True),
    )
    op.create_table(
        "abandons",
        sa.Column("fingerprint", sa.String(40), primary_key=True),
        sa.Column("table_name", sa.String(64), primary_key=True),
        sa.Column("at", sa.Float, primary_key=True),
        sa.Column("name", sa.String(64), nullable=False),
    )
    op.create_index("ix_abandons_fingerprint", "abandons", ["fingerprint"])


def downgrade() -> None:
    op.drop_table("abandons")
    op.drop_table("mod_reports")
    op.drop_table("mod_audit")
    op.drop_index("ix_mod_sanctions_live", "mod_sanctions")
    op.drop_table("mod_sanctions")
    op.drop_table("mod_moderators")
