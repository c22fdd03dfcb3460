"""Marks user-facing strings for translation without importing Django.

The simulators only mark text; the playground translates it when it sends a declaration
or an event to a browser (Django's `makemessages` knows the `gettext_noop` keyword).
"""


def gettext_noop(text: str) -> str:
    """Return `text` unchanged; marks it for the translation catalogue."""
    return text
