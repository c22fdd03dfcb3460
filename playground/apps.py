"""The playground Django app."""

from django.apps import AppConfig


class PlaygroundConfig(AppConfig):
    """Catalogue, lab pages and rooms."""

    name = "playground"
    verbose_name = "Distributed Data Playground"

    def ready(self) -> None:
        """Register the system check of the pages' module graphs; give
        graph-traversal's SQL the playground's PostgreSQL when it has one."""
        from playground import graph_sql, modulepreload  # noqa: F401

        graph_sql.install()
