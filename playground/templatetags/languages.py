"""`{% language_links %}`: this page's address in each language, for the switch."""

from django import template
from django.conf import settings
from django.utils import translation
from django.utils.encoding import escape_uri_path

from playground import language

register = template.Library()


@register.simple_tag(takes_context=True)
def language_links(context) -> list[dict]:
    """One entry per language the playground can show: its code, its own name, this
    page's address with `?lang=` set (the rest of the query kept), and whether it is
    the page's language now."""
    request = context.get("request")
    current = translation.get_language()
    names = dict(settings.LANGUAGES)
    links = []
    for code in language.available():
        href = f"?lang={code}"  # no request (an error page): the same page, asked anew
        if request is not None:
            query = request.GET.copy()
            query["lang"] = code
            # the path as it travels (a %00 in it stays %00, never a raw NUL)
            href = f"{escape_uri_path(request.path)}?{query.urlencode()}"
        links.append(
            {
                "code": code,
                "name": names.get(code, code),
                "href": href,
                "current": code == current,
            }
        )
    return links
