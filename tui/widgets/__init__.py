"""Reusable widgets of the table, the lobby and the menu; each carries its own DEFAULT_CSS
(or none: `options.SwiftOptionList` is styled as Textual's `OptionList`)."""
