"""Words fitted to a width (tui/fit.py): never a word cut in two where a whole one fits."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.content import Content

from tui.fit import cut, fit_line, fit_names, fold_path, home_path


def test_a_path_folds_only_after_a_slash_and_the_tail_between_words() -> None:
    lines = fold_path("Record: ", "/srv/games/records/stacks-20261207-1137.json", "(verify)", 24)
    assert lines == ["Record: /srv/games/", "records/", "stacks-20261207-1137.json",
                     "(verify)"]
    assert all(len(line) <= 24 for line in lines[:2] + lines[3:])
    # A file name wider than the room has a line to itself (the terminal folds it).
    assert fold_path("R: ", "/a/" + "x" * 30, "", 10) == ["R: /a/", "x" * 30]
    assert fold_path("R: ", "/a/b.json", "(verify FILE)", 80) == ["R: /a/b.json (verify FILE)"]


def test_the_home_folder_reads_as_a_tilde(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", "/home/ana")
    assert home_path("/home/ana/records/a.json") == "~/records/a.json"
    assert home_path("/home/anabel/a.json") == "/home/anabel/a.json"  # not her home
    assert home_path(str(Path("/srv/a.json"))) == "/srv/a.json"


def test_names_are_cut_at_a_whole_name_with_how_many_more() -> None:
    names = ["bob", "Bot 3 (medium)", "Bot 4 (medium)"]
    assert fit_names(names, 40) == "bob, Bot 3 (medium), Bot 4 (medium)"
    assert fit_names(names, 30) == "bob, Bot 3 (medium), +1 more"
    assert fit_names(names, 14) == "bob, +2 more"
    assert fit_names(names, 11) == "b…, +2 more"  # not even one name: it ends in "…"
    assert fit_names([], 10) == ""
    assert cut("Bot 3 (medium)", 8) == "Bot 3 (…"
    assert cut("bob", 8) == "bob"


def test_a_line_takes_the_first_form_that_fits_or_is_cut_at_a_word() -> None:
    forms = ["[b]friday[/] · turn 3 · Bo's turn · waiting for Bo", "Bo's turn · waiting for Bo"]
    assert fit_line(forms, 80) == forms[0]
    assert fit_line(forms, 30) == forms[1]
    cut_line = fit_line(forms, 20)
    text = Content.from_markup(cut_line).plain
    assert text == "Bo's turn · waiting…", text  # "for" would not fit with the "…"
    assert len(text) <= 20
    assert fit_line(forms, 0) == forms[0]  # no width yet: the fullest
