"""The Django project: catalogue, labs, rooms and the websocket protocol."""
