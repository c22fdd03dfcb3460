"""The playground Django app."""

from django.apps import AppConfig


class PlaygroundConfig(AppConfig):
    """Catalogue, lab pages and rooms."""

    name = "playground"
    verbose_name = "Distributed Data Playground"

    def ready(self) -> None:
        """Register the system check of the pages' module graphs."""
        from playground import modulepreload  # noqa: F401
