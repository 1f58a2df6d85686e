"""netplay.upstream lists every private name of a library the code uses, each library is
installed at a release it was tested with, and pyproject.toml bounds it there.

The code is read (``ast``) for what it touches of the libraries it imports: private
modules it imports, private names of an upstream class it overrides or uses in a subclass
(``self._x``), and private attributes it reads or sets on other objects where a class of
an imported library module has that name. Every one found must be listed, every one
listed must be found (the list is the one account of them) and still be there in the
installed release.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import sys
import tomllib
from collections.abc import Iterator
from functools import cache
from importlib.metadata import packages_distributions, version
from pathlib import Path
from types import ModuleType

import pytest

from netplay import upstream
from netplay.upstream import UPSTREAM, UntestedLibrary, Upstream, require
from tests.test_dependencies import PACKAGES, imported

ROOT = Path(__file__).resolve().parents[2]

Found = tuple[tuple[str, ...], object, str]
"""A private name the code uses: its distribution (or those it may be of, when read off
an object of a type the code does not say), what holds it (a module, a class, or
``None`` for such an object), the name."""


NAMEDTUPLE_API = frozenset({"_replace", "_asdict", "_fields", "_field_defaults", "_make"})
"""A named tuple's public API: the underscore only keeps it clear of the fields' names
(pyte's ``Char`` is one)."""


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__") and name not in NAMEDTUPLE_API


@cache
def _self_names(path: str) -> dict[str, frozenset[str]]:
    """Per class (by qualified name) of the source file ``path``: the ``self._x`` names
    its methods use (its instances' attributes, which ``dir`` of the class misses)."""
    names: dict[str, frozenset[str]] = {}

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.ClassDef):
                qualname = f"{prefix}{child.name}"
                names[qualname] = frozenset(
                    sub.attr for sub in ast.walk(child) if isinstance(sub, ast.Attribute)
                    and isinstance(sub.value, ast.Name) and sub.value.id == "self")
                visit(child, qualname + ".")
            elif not isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                visit(child, prefix)

    visit(ast.parse(Path(path).read_text(encoding="utf-8")), "")
    return names


def _has(holder: object, name: str) -> bool:
    """Whether ``holder`` (a module or a class) has ``name``, as an attribute, a submodule
    or, for a class, an attribute its (or a base's) methods give their instances."""
    if isinstance(holder, ModuleType):
        if hasattr(holder, name):
            return True
        try:
            importlib.import_module(f"{holder.__name__}.{name}")
        except ImportError:
            return False
        return True
    if not isinstance(holder, type):
        return False
    if name in dir(holder):
        return True
    for klass in holder.__mro__:
        try:
            path = inspect.getsourcefile(klass)
        except TypeError:
            continue
        if path and name in _self_names(path).get(klass.__qualname__, frozenset()):
            return True
    return False


def _resolve(path: str) -> object:
    """A module, or an object of one, by its dotted path."""
    try:
        return importlib.import_module(path)
    except ImportError:
        module, _, name = path.rpartition(".")
        return getattr(importlib.import_module(module), name)


def _distributions() -> dict[str, str]:
    """Top-level module -> the distribution providing it, for the libraries imported."""
    providers = packages_distributions()
    return {module: providers[module][0] for module in imported() if module in providers}


def _scan(path: Path, libraries: dict[str, str]) -> Iterator[Found]:
    """The private names of the libraries (top-level module -> distribution) the file
    at ``path`` uses."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    aliases: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                top = alias.name.partition(".")[0]
                if top in libraries:
                    aliases[alias.asname or top] = alias.name if alias.asname else top
                    parts = alias.name.split(".")
                    for i, part in enumerate(parts[1:], 1):
                        if _private(part):
                            yield (libraries[top],), _resolve(".".join(parts[:i])), part
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            top = node.module.partition(".")[0]
            if top not in libraries:
                continue
            parts = node.module.split(".")
            for i, part in enumerate(parts[1:], 1):
                if _private(part):
                    yield (libraries[top],), _resolve(".".join(parts[:i])), part
            for alias in node.names:
                aliases[alias.asname or alias.name] = f"{node.module}.{alias.name}"
                if _private(alias.name):
                    yield (libraries[top],), _resolve(node.module), alias.name

    def library_of(obj: object) -> str | None:
        module = getattr(obj, "__module__", None) or getattr(obj, "__name__", "")
        return libraries.get(str(module).partition(".")[0])

    def resolve(expr: ast.expr) -> object:
        parts: list[str] = []
        while isinstance(expr, ast.Attribute):
            parts.append(expr.attr)
            expr = expr.value
        if not isinstance(expr, ast.Name) or expr.id not in aliases:
            return None
        try:
            return _resolve(".".join([aliases[expr.id], *reversed(parts)]))
        except (ImportError, AttributeError):
            return None

    # The classes of the library modules the file imports: whose private names an
    # attribute read off some object may be.
    holders: dict[int, type] = {}
    for dotted in aliases.values():
        obj = _resolve(dotted)
        module = obj if isinstance(obj, ModuleType) else inspect.getmodule(obj)
        for value in [obj, *vars(module).values()] if module is not None else [obj]:
            if isinstance(value, type) and library_of(value):
                holders[id(value)] = value
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            bases = [base for base in map(resolve, node.bases)
                     if isinstance(base, type) and library_of(base)]
            for sub in ast.walk(node):
                if isinstance(sub, ast.FunctionDef | ast.AsyncFunctionDef):
                    name = sub.name
                elif (isinstance(sub, ast.Attribute) and isinstance(sub.value, ast.Name)
                      and sub.value.id in ("self", "cls")):
                    name = sub.attr
                else:
                    continue
                for base in bases:
                    if _private(name) and _has(base, name):
                        yield (str(library_of(base)),), base, name
        elif (isinstance(node, ast.Attribute) and _private(node.attr)
              and not (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"))):
            candidates = {str(library_of(holder)) for holder in holders.values()
                          if _has(holder, node.attr)}
            if candidates:
                yield tuple(sorted(candidates)), None, node.attr


def _used() -> dict[Found, set[str]]:
    libraries = _distributions()
    used: dict[Found, set[str]] = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            for found in _scan(path, libraries):
                used.setdefault(found, set()).add(str(path.relative_to(ROOT)))
    return used


def _listed() -> list[tuple[Upstream, object, str]]:
    return [(entry, _resolve(holder), name)
            for entry in UPSTREAM for holder, names in entry.names.items() for name in names]


def _same(a: object, b: object) -> bool:
    return a is b or (isinstance(a, type) and isinstance(b, type)
                      and (issubclass(a, b) or issubclass(b, a)))


def test_every_private_name_the_code_uses_is_listed_and_only_those() -> None:
    listed = _listed()
    used = _used()
    unlisted = [
        f"{' or '.join(dists)}: "
        f"{getattr(holder, '__qualname__', getattr(holder, '__name__', '?'))}.{name}"
        f" (in {', '.join(sorted(files))})"
        for (dists, holder, name), files in used.items()
        if not any(entry.distribution in dists and name == listed_name
                   and (holder is None or _same(holder, listed_holder))
                   for entry, listed_holder, listed_name in listed)]
    assert unlisted == [], "private names used but not listed in netplay/upstream.py"
    unused = [f"{entry.distribution}: {name}" for entry, holder, name in listed
              if not any(entry.distribution in dists and used_name == name
                         and (used_holder is None or _same(used_holder, holder))
                         for dists, used_holder, used_name in used)]
    assert unused == [], "listed in netplay/upstream.py but no longer used"


@pytest.mark.parametrize("entry", UPSTREAM, ids=lambda entry: entry.distribution)
def test_each_listed_private_name_is_in_the_installed_release(entry: Upstream) -> None:
    missing = [f"{holder}.{name}" for holder, names in entry.names.items()
               for name in names if not _has(_resolve(holder), name)]
    assert missing == [], (f"{entry.distribution} {version(entry.distribution)} lacks "
                           f"{', '.join(missing)}")


@pytest.mark.parametrize("entry", UPSTREAM, ids=lambda entry: entry.distribution)
def test_each_library_is_installed_at_a_tested_release(entry: Upstream) -> None:
    installed = version(entry.distribution)
    assert entry.covers(installed), entry.outside(installed)


def test_pyproject_bounds_each_library_to_its_tested_releases() -> None:
    with open(ROOT / "pyproject.toml", "rb") as file:
        dependencies = tomllib.load(file)["project"]["dependencies"]
    for entry in UPSTREAM:
        assert entry.requirement in dependencies, (entry.requirement, dependencies)


def test_an_untested_release_is_refused_by_name(monkeypatch: pytest.MonkeyPatch) -> None:
    """What the transport's modules do at import with a paho outside the range."""
    monkeypatch.delenv(upstream.UNTESTED_OK, raising=False)
    with pytest.raises(UntestedLibrary) as refused:
        require(upstream.PAHO, "2.3.0")
    words = str(refused.value)
    assert "paho-mqtt 2.3.0 is installed" in words and "paho-mqtt>=2.2,<2.3" in words
    assert "paho.mqtt.client.Client._sock" in words
    assert "netplay/mqtt_packets.py" in words
    require(upstream.PAHO, "2.2.9")
    assert not upstream.PAHO.covers("2.1.0") and not upstream.AMQTT.covers("0.13.0rc1")
    monkeypatch.setenv(upstream.UNTESTED_OK, "1")
    with pytest.warns(UserWarning, match="paho-mqtt 2.3.0 is installed"):
        require(upstream.PAHO, "2.3.0")


def test_the_transport_modules_check_their_libraries_at_import() -> None:
    """With the installed release said to be untested, importing them fails by name."""
    import subprocess

    code = ("import paho.mqtt; paho.mqtt.__version__ = '9.0'\n"
            "import netplay.transport\n")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode != 0
    assert "UntestedLibrary: paho-mqtt 9.0 is installed" in done.stderr
