"""The interface's own settings, kept per profile: the bell, the theme.

They live beside the profile's key, in ``settings.json`` of the profile's folder
(``STACKS_HOME/profiles/NAME/``). A file that can't be read or makes no sense gives the
defaults (the interface never fails over its settings); a failed write is reported, not
raised.
"""

from __future__ import annotations

import contextlib
import json
import os
from dataclasses import asdict, dataclass, fields
from pathlib import Path

SETTINGS_FILE = "settings.json"


@dataclass(frozen=True)
class Settings:
    """What the user chose in the menu (or on the command line)."""

    bell: bool = True
    """Ring (and notify) when it is your turn or a Block window opens for you, at a
    networked table (hosted or joined; never against bots of your own ``play``)."""
    theme: str = ""
    """The Textual theme's name; "" for the app's default."""


def settings_path(base: Path, profile: str) -> Path:
    """The settings file of ``profile`` under the profiles folder ``base``."""
    return base / profile / SETTINGS_FILE


def load_settings(path: Path) -> Settings:
    """The settings in ``path``; the defaults for what is missing or wrong."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return Settings()
    if not isinstance(data, dict):
        return Settings()
    found: dict[str, object] = {}
    for field in fields(Settings):
        value = data.get(field.name)
        if type(value) is type(getattr(Settings(), field.name)):
            found[field.name] = value
    return Settings(**found)  # type: ignore[arg-type]


def save_settings(path: Path, settings: Settings) -> str | None:
    """Write ``settings`` to ``path`` (whole or not at all): ``None``, else why not."""
    temporary = path.with_name(path.name + ".tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary.write_text(json.dumps(asdict(settings), indent=1) + "\n", encoding="utf-8")
        os.replace(temporary, path)
    except OSError as exc:
        with contextlib.suppress(OSError):
            temporary.unlink()
        return f"can't save the settings in {path}: {exc.strerror or exc}"
    return None
