"""The playground Django app."""

from django.apps import AppConfig


class PlaygroundConfig(AppConfig):
    """Catalogue, lab pages and rooms."""

    name = "playground"
    verbose_name = "Distributed Data Playground"
