"""What each node of a community hears over the broker: ``cluster_nodes.hears`` (the
other nodes whose beacon it heard lately, comma-separated) and ``cluster_nodes.reach``
(how many of its broker URLs answer).

Revision ID: 0005
Revises: 0004
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("cluster_nodes") as batch:
        batch.add_column(sa.Column("hears", sa.String(2048), nullable=True))
        batch.add_column(sa.Column("reach", sa.Integer(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("cluster_nodes") as batch:
        batch.drop_column("reach")
        batch.drop_column("hears")
