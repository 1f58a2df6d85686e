"""DESIGN.md: the engine is pure Python and imports only the standard library and itself."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

ENGINE = Path(__file__).resolve().parents[2] / "engine"
SOURCES = sorted(ENGINE.rglob("*.py"))
DYNAMIC_IMPORTERS = {"import_module", "__import__"}


def imported_modules(source: str, filename: str = "<source>") -> set[str]:
    """Top-level names of every module ``source`` imports, statically or by a literal name.

    A relative import (``from . import x``, ``from .cards import y``) counts as ``engine``.
    """
    names: set[str] = set()
    for node in ast.walk(ast.parse(source, filename=filename)):
        if isinstance(node, ast.Import):
            names.update(alias.name.partition(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                names.add("engine")
            elif node.module is not None:
                names.add(node.module.partition(".")[0])
        elif isinstance(node, ast.Call) and node.args:
            func = node.func
            called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
            first = node.args[0]
            if called in DYNAMIC_IMPORTERS and isinstance(first, ast.Constant):
                names.add(str(first.value).partition(".")[0])
    return names


def foreign(names: set[str]) -> list[str]:
    return sorted(n for n in names if n != "engine" and n not in sys.stdlib_module_names)


def test_the_import_scanner_sees_every_kind_of_import() -> None:
    source = (
        "from __future__ import annotations\n"
        "import json, os.path\n"
        "import rich.console as rc\n"
        "from textual.app import App\n"
        "from . import cards\n"
        "from .state import State\n"
        "from engine.rules import step\n"
        "def f():\n"
        "    import msgpack\n"
        "    importlib.import_module('aiomqtt.client')\n"
        "    return __import__('nacl')\n"
    )
    names = imported_modules(source)
    expected = {"__future__", "json", "os", "rich", "textual", "engine", "msgpack", "aiomqtt"}
    assert names == expected | {"nacl"}
    assert foreign(names) == ["aiomqtt", "msgpack", "nacl", "rich", "textual"]


def test_the_engine_sources_are_found() -> None:
    names = {path.relative_to(ENGINE).as_posix() for path in SOURCES}
    assert {"__init__.py", "rules.py", "reducer.py", "bots/random_bot.py"} <= names


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: p.relative_to(ENGINE).as_posix())
def test_engine_module_imports_only_the_standard_library(path: Path) -> None:
    names = imported_modules(path.read_text(encoding="utf-8"), str(path))
    assert not foreign(names), f"{path.relative_to(ENGINE.parent)} imports {foreign(names)}"
