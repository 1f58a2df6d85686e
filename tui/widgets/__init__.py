"""Reusable widgets of the table and the lobby; each carries its own DEFAULT_CSS."""
