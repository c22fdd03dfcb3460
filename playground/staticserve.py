"""Static files, answered in front of Django.

A lab page asks for some 45 files at once (its modules, d3, styles). servestatic's ASGI
application answers them before Django's request handling (no request object, no
middleware, no thread): about 2 ms a file where Django's handler with a static-files
middleware took about 5 (benchmarks/first_drawing.py, docs/benchmarks.md). Without
DEBUG it serves STATIC_ROOT, where `manage.py collectstatic` put each file with a
gzipped copy beside it (servestatic's CompressedStaticFilesStorage), so nothing is
compressed per request; playground/collected.py refuses to start on files that are
missing or older than the sources. With DEBUG it serves the source folders, looking
each file up afresh, so an edit shows at once.

Every other request, and every websocket, goes on to Django and Channels unchanged.
"""

from django.conf import settings
from servestatic import ServeStaticASGI

# what Django's SecurityMiddleware and django-csp put on every response of Django's
# (tests/server/test_headers.py): the same on static files
STATIC_POLICY = "default-src 'self'; object-src 'none'; frame-ancestors 'none'"
MAX_AGE = 60  # seconds a browser may reuse a file before asking again (with its ETag)


def security_headers(headers, path: str, url: str) -> None:
    """servestatic's hook: the site's security headers on each static response."""
    headers["X-Content-Type-Options"] = "nosniff"
    headers["Referrer-Policy"] = settings.SECURE_REFERRER_POLICY
    headers["Content-Security-Policy"] = STATIC_POLICY


def with_static_files(application):
    """`application` behind servestatic: URLs under STATIC_URL are static files."""
    debug = settings.DEBUG
    served = ServeStaticASGI(
        application,
        autorefresh=debug,
        max_age=0 if debug else MAX_AGE,
        add_headers_function=security_headers,
    )
    roots = settings.STATICFILES_DIRS if debug else [settings.STATIC_ROOT]
    for root in roots:
        served.add_files(root, prefix=settings.STATIC_URL)
    return served
