"""The interface's files keep their shape: each screen beside its style sheet, and no
key of the table taken by a pile letter."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_every_screen_has_its_style_sheet_beside_it_and_every_selector_starts_with_it() -> None:
    screens = ROOT / "tui" / "screens"
    sources = {m: m.read_text() for m in screens.glob("*.py") if m.name != "__init__.py"}
    for module, source in sources.items():
        if "CSS_PATH" not in source:
            # A base of other screens (tui/screens/seated.py): every class it defines is
            # the base of a screen that has its own style sheet.
            for name in re.findall(r"^class (\w+)\(", source, re.M):
                assert any(re.search(rf"^class \w+\([^)]*\b{name}\b", other, re.M)
                           for other in sources.values()), (module.name, name)
            continue
        assert module.with_suffix(".tcss").exists(), module.name
        for line in module.with_suffix(".tcss").read_text().splitlines():
            if line and not line.startswith((" ", "}", "/*")) and line.endswith(("{", ",")):
                first = line.split()[0].split(".")[0]
                assert f"class {first}(" in source, (module.name, line)


def test_no_key_of_the_table_is_also_a_pile_letter() -> None:
    from tui.screens.table import TableScreen
    from tui.widgets.piles import LETTERS

    keys = {b.key for b in TableScreen.BINDINGS if hasattr(b, "key")
            and not b.action.startswith("slot(")}  # type: ignore[union-attr]
    assert not keys & set(LETTERS)
