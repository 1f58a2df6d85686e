"""Where a user's profiles live: light (no cryptography), so the interface finds the
profile's settings before its first frame without loading what signs and seals."""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs

APP_NAME = "sequence-stacks"


def profiles_dir() -> Path:
    """Where profiles live (``STACKS_HOME`` overrides the platform's config dir)."""
    home = os.environ.get("STACKS_HOME")
    base = Path(home) if home else Path(platformdirs.user_config_dir(APP_NAME))
    return base / "profiles"
