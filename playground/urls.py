"""URL routes. Names are kebab-case."""

from django.urls import path
from django.views.i18n import JavaScriptCatalog

from playground import embeds, views

urlpatterns = [
    path("", views.catalogue, name="catalogue"),
    path("labs/<slug:slug>/", views.lab, name="lab"),
    path("embed/<slug:slug>/", embeds.embed, name="embed"),
    path("oembed", embeds.oembed, name="oembed"),
    path("join/", views.join, name="join"),
    path("join/<str:code>/", views.join_code, name="join-code"),
    path("join/<str:code>/qr.svg", views.join_qr, name="join-qr"),
    path("jsi18n/", JavaScriptCatalog.as_view(), name="javascript-catalog"),
]
