"""Websocket routes."""

from django.urls import path

from playground.consumers import LabConsumer

websocket_urlpatterns = [
    path("ws/labs/<slug:slug>/", LabConsumer.as_asgi()),
]
