"""ASGI entry point: static files through servestatic, other HTTP through Django,
websockets through Channels."""

import gc
import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "playground.settings")
django_asgi_app = get_asgi_application()

from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import AllowedHostsOriginValidator  # noqa: E402

from playground.collected import require_collected  # noqa: E402
from playground.inbound import InboundLimits  # noqa: E402
from playground.modulepreload import warm  # noqa: E402
from playground.routing import websocket_urlpatterns  # noqa: E402
from playground.staticserve import with_static_files  # noqa: E402

# every page's module graph, read now: a module importing a missing file fails here
warm()
# the static files servestatic will send are the sources' (collectstatic has run since)
require_collected()

application = ProtocolTypeRouter(
    {
        "http": with_static_files(django_asgi_app),
        # frames are limited as they arrive, before Channels queues them
        "websocket": AllowedHostsOriginValidator(
            InboundLimits(URLRouter(websocket_urlpatterns))
        ),
    }
)

# What importing made (about 90,000 objects: Django, Channels, the labs) lives as long
# as the process: out of the collector's way, a full collection scans only what rooms
# and connections made since (measured: a 38 ms pause with 200 students, which was the
# fan-out's p99, gone: docs/benchmarks.md, "Classroom fan-out").
gc.freeze()
