"""A bound on how long a client may take to send a request's line and headers.

daphne 4.2.3 has no such option: `--http-timeout` bounds the application's answer, and
Twisted's idle timeout (60 s) starts again with every byte, so a client that sends a
header a few seconds apart holds its connection, and a file descriptor, for as long as
it likes ("slowloris": 4,000 half-sent requests held for a minute, none timed out;
issue 29). Here each HTTP/1.1 connection daphne makes gets `PLAYGROUND_HEADER_SECONDS`
(10 by default) from connecting to finish its request's headers; on a connection kept
alive, from the first byte of the next request. A client past it gets
`408 Request Timeout` and is disconnected (aborted if it does not read even that).
A request's body and the answer are not bounded here: the deadline ends with the
headers, and a websocket upgrades after its headers.

It is put in place by the ASGI entry point (playground/asgi.py), which daphne imports
before it makes its HTTP factory: daphne's factory then makes `DeadlineChannel`s, a
Twisted HTTPChannel with the deadline. (HTTP/2, negotiated over TLS, keeps Twisted's
own timeouts.)
"""

import logging

from twisted.web import http

log = logging.getLogger(__name__)

ABORT_AFTER_SECONDS = 2  # a client that does not read its 408 is cut off then
BODY = b"The request's headers took too long to arrive.\n"
TIMED_OUT = (
    b"HTTP/1.1 408 Request Timeout\r\n"
    b"Connection: close\r\n"
    b"Content-Type: text/plain; charset=utf-8\r\n"
    b"Content-Length: %d\r\n"
    b"\r\n" % len(BODY)
) + BODY


class DeadlineChannel(http.HTTPChannel):
    """Twisted's HTTP/1.1 channel, with a deadline for each request's headers."""

    header_seconds: float = 10.0
    clock = None  # what times the deadline (a test's Clock; None: Twisted's reactor)
    _deadline = None  # the pending call that ends a request too slow to arrive
    _awaiting_headers = True  # between requests: the next bytes start a request

    def connectionMade(self):  # noqa: N802 (Twisted's names)
        super().connectionMade()
        self._start_deadline()

    def dataReceived(self, data):  # noqa: N802
        if self._awaiting_headers and self._deadline is None:
            self._start_deadline()
        super().dataReceived(data)

    def allHeadersReceived(self):  # noqa: N802
        self._awaiting_headers = False
        self._stop_deadline()
        super().allHeadersReceived()

    def requestDone(self, request):  # noqa: N802
        # before Twisted reads what the client pipelined after this request
        self._awaiting_headers = True
        super().requestDone(request)

    def connectionLost(self, reason):  # noqa: N802
        self._stop_deadline()
        super().connectionLost(reason)

    def _reactor(self):
        if self.clock is not None:
            return self.clock
        from twisted.internet import reactor

        return reactor

    def _start_deadline(self) -> None:
        if self.header_seconds and self.header_seconds > 0:
            self._deadline = self._reactor().callLater(
                self.header_seconds, self._too_slow
            )

    def _stop_deadline(self) -> None:
        if self._deadline is not None:
            if self._deadline.active():
                self._deadline.cancel()
            self._deadline = None

    def _too_slow(self) -> None:
        self._deadline = None
        transport = self.transport
        if transport is None:
            return
        log.info(
            "a request's headers took over %s s; disconnected", self.header_seconds
        )
        self.setTimeout(None)
        transport.write(TIMED_OUT)
        transport.loseConnection()
        self._reactor().callLater(ABORT_AFTER_SECONDS, _abort, transport)


def _abort(transport) -> None:
    if getattr(transport, "disconnected", False):
        return
    try:
        transport.abortConnection()
    except Exception:  # gone meanwhile
        log.debug("aborting a slow client failed", exc_info=True)


def _deadline_channel_factory(self):
    """daphne's HTTPFactory.protocol: Twisted's own, with a DeadlineChannel inside."""
    return http._GenericHTTPChannelProtocol(DeadlineChannel())


def install(seconds: float) -> bool:
    """Make daphne's HTTP connections DeadlineChannels with `seconds` for headers (0:
    no deadline); False when this Twisted or daphne is not the one this was written
    for (then nothing changes, and the reason is logged)."""
    try:
        from daphne.http_protocol import HTTPFactory

        http._GenericHTTPChannelProtocol  # noqa: B018 (present in this Twisted?)
    except (ImportError, AttributeError):
        log.warning(
            "no header deadline: this daphne or Twisted is not the expected one"
        )
        return False
    DeadlineChannel.header_seconds = seconds
    HTTPFactory.protocol = _deadline_channel_factory
    return True
