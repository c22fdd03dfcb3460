"""`{% import_map %}`: the pages' import map, as playground/jsimports.py has it;
`{% inline_script %}`: a static classic script written into the page."""

import functools
from pathlib import Path

from django import template
from django.contrib.staticfiles import finders
from django.utils.html import format_html, format_html_join
from django.utils.safestring import mark_safe

from playground.modulepreload import import_map_json

register = template.Library()


@register.simple_tag
def import_map() -> str:
    """The import map's JSON, for the body of <script type="importmap">."""
    return mark_safe(import_map_json())


@register.simple_tag(takes_context=True)
def inline_script(context, path: str, **data) -> str:
    """A classic script from static/ (`path` under it), written into the page with the
    request's CSP nonce: for what must run before any module has arrived. Each keyword
    becomes a data attribute of the element (`ws_path` → `data-ws-path`), which the
    script reads from `document.currentScript.dataset`."""
    nonce = getattr(context.get("request"), "csp_nonce", "")
    attributes = format_html_join(
        "", ' data-{}="{}"', ((k.replace("_", "-"), v) for k, v in data.items())
    )
    return format_html(
        '<script nonce="{}"{}>{}</script>',
        nonce,
        attributes,
        mark_safe(script_text(path)),
    )


@functools.cache
def script_text(path: str) -> str:
    """The script's text, read once per process; one that could end the element early
    is refused."""
    found = finders.find(path)
    if not found:
        raise template.TemplateSyntaxError(f"inline_script: no static file {path}")
    text = Path(found).read_text(encoding="utf-8")
    if "</script" in text.lower() or "<!--" in text:
        raise template.TemplateSyntaxError(
            f"inline_script: {path} would end the element"
        )
    return text
