"""Compression for static files only.

Modules, styles and d3 are most of what a page transfers (d3 alone is 280 KB, 93 KB
compressed), and whitenoise serves them uncompressed when it reads the source folders
(`make run` needs no collectstatic). Pages and JSON are left alone: compressing a
response that reflects input beside a secret is what BREACH exploits, and they are
small.
"""

from django.conf import settings
from django.middleware.gzip import GZipMiddleware


class StaticGZipMiddleware(GZipMiddleware):
    """GZipMiddleware, for responses under STATIC_URL only."""

    def process_response(self, request, response):
        if request.path.startswith(settings.STATIC_URL):
            return super().process_response(request, response)
        return response
