"""The page a form POST without its CSRF token gets (Django's CsrfViewMiddleware).

Every form of the site carries the token (`{% csrf_token %}`; the join form is the one
form there is), so a POST without it, or with a wrong one, was not sent by a page of
this site: a 403 in the site's own style, in the visitor's language, says what to do.
Nothing the POST asked for was done.
"""

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render


def failure(request: HttpRequest, reason: str = "") -> HttpResponse:
    """CSRF_FAILURE_VIEW: the form was not sent from this site's page (or its cookie
    is gone); `reason` (Django's, in English) is not shown."""
    return render(request, "403_csrf.html", status=403)
