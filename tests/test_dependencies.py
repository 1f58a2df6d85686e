"""Every library the project's code imports is declared in pyproject.toml's dependencies.

A library that is only there because another one pulls it in (paho-mqtt under aiomqtt,
aiohttp under textual-serve) goes the day that one stops needing it, or is installed at
whatever version it asks for; declared, it is ours to bound (docs/upstream.md).
"""

from __future__ import annotations

import ast
import re
import sys
import tomllib
from importlib.metadata import packages_distributions
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("engine", "netplay", "broker", "tui", "ratings", "webserver", "sshserver", "stacks")
"""The project's packages (pyproject's ``[tool.setuptools.packages.find]``)."""


def _name(requirement: str) -> str:
    """A requirement's distribution name, normalised (PEP 503)."""
    match = re.match(r"[A-Za-z0-9][A-Za-z0-9._-]*", requirement)
    assert match, requirement
    return re.sub(r"[-_.]+", "-", match.group()).lower()


def declared(table: str = "dependencies") -> set[str]:
    """The distributions pyproject.toml's ``dependencies`` name (``optional``: those of its
    ``optional-dependencies``, every extra)."""
    with open(ROOT / "pyproject.toml", "rb") as file:
        project = tomllib.load(file)["project"]
    if table == "optional":
        return {_name(r) for extra in project["optional-dependencies"].values() for r in extra}
    return {_name(requirement) for requirement in project[table]}


def _optional_imports(tree: ast.AST) -> set[ast.AST]:
    """The imports inside a ``try`` that catches ImportError: the code goes on without."""
    optional: set[ast.AST] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Try) and any(
                isinstance(handler.type, ast.Name)
                and handler.type.id in ("ImportError", "ModuleNotFoundError")
                for handler in node.handlers):
            for statement in node.body:
                optional.update(ast.walk(statement))
    return optional


def imported() -> dict[str, tuple[set[str], bool]]:
    """Top-level modules imported by the project's code (also under ``TYPE_CHECKING`` and
    inside functions), but for the standard library's and the project's own: module ->
    the files that import it, and whether every import of it is optional."""
    found: dict[str, tuple[set[str], bool]] = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            tree = ast.parse(path.read_text(), str(path))
            optional = _optional_imports(tree)
            for node in ast.walk(tree):
                if isinstance(node, ast.Import):
                    modules = [alias.name for alias in node.names]
                elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                    modules = [node.module]
                else:
                    continue
                for module in modules:
                    top = module.partition(".")[0]
                    if top in sys.stdlib_module_names or top in PACKAGES:
                        continue
                    files, only_optional = found.get(top, (set(), True))
                    files.add(str(path.relative_to(ROOT)))
                    found[top] = files, only_optional and node in optional
    return found


def undeclared(wanted: set[str], extras: set[str]) -> list[str]:
    """What the code imports that no distribution of ``wanted`` provides (of ``extras``,
    for an optional import), in words."""
    providers = packages_distributions()
    problems = []
    for module, (files, optional) in sorted(imported().items()):
        where = f"{module!r} (imported by {', '.join(sorted(files))})"
        names = {_name(name) for name in providers.get(module, [])}
        if optional:
            if not (names or {_name(module)}) & extras:
                problems.append(f"{where} is optional, and declared in no extra of "
                                f"pyproject.toml's optional-dependencies")
        elif not names:
            problems.append(f"{where} is not installed")
        elif not names & wanted:
            problems.append(f"{where} comes from {' or '.join(sorted(names))}, not declared "
                            f"in pyproject.toml's dependencies")
    return problems


def test_every_library_the_code_imports_is_declared() -> None:
    assert undeclared(declared(), declared("optional")) == []


def test_a_library_only_pulled_in_by_another_is_named_with_its_importers() -> None:
    """The check can fail, and says which library and where: without its declaration,
    paho-mqtt (which aiomqtt pulls in) is named with the files that import it."""
    problems = undeclared(declared() - {"paho-mqtt"}, declared("optional"))
    assert len(problems) == 1, problems
    assert "'paho' (imported by " in problems[0] and "netplay/mqtt_packets.py" in problems[0]
    assert "comes from paho-mqtt, not declared" in problems[0]
