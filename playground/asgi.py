"""ASGI entry point: static files through servestatic, other HTTP through Django,
websockets through Channels."""

import gc
import os
import sys

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "playground.settings")
django_asgi_app = get_asgi_application()

from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import AllowedHostsOriginValidator  # noqa: E402
from django.conf import settings  # noqa: E402

from playground import httpdeadline  # noqa: E402
from playground.capacity import SocketCap  # noqa: E402
from playground.collected import require_collected  # noqa: E402
from playground.inbound import InboundLimits  # noqa: E402
from playground.modulepreload import warm  # noqa: E402
from playground.routing import websocket_urlpatterns  # noqa: E402
from playground.staticserve import with_static_files  # noqa: E402

# every page's module graph, read now: a module importing a missing file fails here
warm()
# the static files servestatic will send are the sources' (collectstatic has run since)
require_collected()
# a client has PLAYGROUND_HEADER_SECONDS to send a request's headers (daphne makes its
# HTTP factory after importing this module)
httpdeadline.install(settings.PLAYGROUND_HEADER_SECONDS)

application = ProtocolTypeRouter(
    {
        "http": with_static_files(django_asgi_app),
        # at most PLAYGROUND_MAX_SOCKETS at once; frames are limited as they arrive,
        # before Channels queues them
        "websocket": AllowedHostsOriginValidator(
            SocketCap(InboundLimits(URLRouter(websocket_urlpatterns)))
        ),
    }
)

# What importing made (about 90,000 objects: Django, Channels, the labs) lives as long
# as the process: out of the collector's way, a full collection scans only what rooms
# and connections made since (measured: a 38 ms pause with 200 students, which was the
# fan-out's p99, gone: docs/benchmarks.md, "Classroom fan-out").
gc.freeze()

# A full collection walks every object the process holds: with the heaviest labs in
# memory, 60-90 ms with the GIL held, twenty times in twenty seconds of attack, and the
# bystanders' longest waits were those pauses (tests/attacks/test_heavy_work.py).
# The young generations are collected as usual; the whole heap a tenth as often.
gc.set_threshold(700, 10, 100)

# Labs work in a few threads (playground/rooms/work.py) beside the event loop. A thread
# that wants the GIL waits up to the switch interval before the holder must let go: at
# CPython's 5 ms, a newcomer's 1 ms action behind a heavy action took tens of ms in
# many such waits; at 1 ms it waits a fifth as long (tests/attacks/test_heavy_work.py).
sys.setswitchinterval(0.001)
