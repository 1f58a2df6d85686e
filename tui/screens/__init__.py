"""The screens of the interface; each ``<name>.py`` has its ``<name>.tcss`` beside it."""
