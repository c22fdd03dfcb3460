"""`{% import_map %}`: the pages' import map, as playground/jsimports.py has it."""

from django import template
from django.utils.safestring import mark_safe

from playground.modulepreload import import_map_json

register = template.Library()


@register.simple_tag
def import_map() -> str:
    """The import map's JSON, for the body of <script type="importmap">."""
    return mark_safe(import_map_json())
