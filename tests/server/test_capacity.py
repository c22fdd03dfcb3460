"""What one process takes at once, and who a client is to the per-address limits
(issue 29, item 4): the socket and room caps, and IPv6 counted by its /64."""

import importlib
import json

import pytest
from channels.testing import WebsocketCommunicator
from django.test import RequestFactory

from playground import views
from playground.addresses import limit_key
from playground.asgi import application
from playground.capacity import CLOSE_TRY_AGAIN
from playground.consumers import CLOSE_TRY_AGAIN as CONSUMER_TRY_AGAIN
from playground.protocol import client_address
from playground.rooms import registry

# the module (the package's `registry` is the RoomRegistry it holds)
registry_module = importlib.import_module("playground.rooms.registry")

ORIGIN = (b"origin", b"http://127.0.0.1")


def socket(path="/ws/labs/quorum/", address=None):
    communicator = WebsocketCommunicator(application, path, headers=[ORIGIN])
    if address is not None:
        # the scope is read when the application first runs, after this
        communicator.scope["client"] = [address, 50000]
    return communicator


async def next_of(communicator, kind, timeout=5):
    while True:
        message = json.loads(await communicator.receive_from(timeout=timeout))
        if message["type"] == kind:
            return message


async def opened(path="/ws/labs/quorum/", address=None):
    communicator = socket(path, address)
    connected, _ = await communicator.connect()
    assert connected
    hello = await next_of(communicator, "hello")
    return communicator, hello


async def turned_away(communicator) -> dict:
    """The error a socket got before the server closed it with 4503."""
    connected, _ = await communicator.connect()
    assert connected  # accepted, so that the reason reaches the page
    error = await next_of(communicator, "error")
    closed = await communicator.receive_output(timeout=5)
    while closed["type"] != "websocket.close":
        closed = await communicator.receive_output(timeout=5)
    assert closed["code"] == CLOSE_TRY_AGAIN
    return error


# -- one key per client ------------------------------------------------------------


@pytest.mark.parametrize(
    ("address", "key"),
    [
        ("192.0.2.7", "192.0.2.7"),
        ("2001:db8:1:2:a:b:c:d", "2001:db8:1:2::/64"),
        ("2001:db8:1:2::1", "2001:db8:1:2::/64"),
        ("2001:DB8:1:2:ffff::9", "2001:db8:1:2::/64"),
        ("[2001:db8:1:2::1]", "2001:db8:1:2::/64"),
        ("fe80::1%eth0", "fe80::/64"),
        ("::ffff:192.0.2.7", "192.0.2.7"),
        ("::1", "::/64"),
        (None, "unknown"),
        ("", "unknown"),
        ("not an address", "not an address"),
        ("x" * 500, "x" * 64),
    ],
)
def test_an_ipv4_client_is_its_address_and_an_ipv6_one_its_64(address, key):
    assert limit_key(address) == key


def test_two_hosts_of_one_64_are_one_client_and_the_next_64_another():
    assert limit_key("2001:db8:1:2::a") == limit_key("2001:db8:1:2:ffff:0:0:b")
    assert limit_key("2001:db8:1:2::a") != limit_key("2001:db8:1:3::a")
    assert limit_key("192.0.2.7") != limit_key("192.0.2.8")


@pytest.mark.parametrize(
    "address", ["192.0.2.7", "2001:db8:1:2::5", "::ffff:192.0.2.7", None]
)
def test_a_socket_and_a_page_count_one_client_by_the_same_key(address):
    scope = {"client": [address, 1234]} if address else {}
    request = RequestFactory().get("/join/", REMOTE_ADDR=address or "")
    assert client_address(scope) == views._address(request) == limit_key(address)


async def test_the_room_limit_counts_every_address_of_one_64_together(settings):
    settings.PLAYGROUND_ROOMS_PER_ADDRESS = "2/minute"
    first, _ = await opened(address="2001:db8:7:7::1")
    second, _ = await opened(address="2001:db8:7:7:ffff::2")
    third = socket(address="2001:db8:7:7::3")  # the same /64: a third room
    connected, _ = await third.connect()
    assert connected
    error = await next_of(third, "error")
    assert error["code"] == "too_many_rooms"
    other, _ = await opened(address="2001:db8:7:8::1")  # the next /64 is someone else
    for communicator in (first, second, third, other):
        await communicator.disconnect()


# -- the socket cap ------------------------------------------------------------------


async def test_a_socket_past_the_cap_is_told_the_server_is_full_and_closed_4503(
    settings,
):
    assert CLOSE_TRY_AGAIN == CONSUMER_TRY_AGAIN  # the close the page retries after
    settings.PLAYGROUND_MAX_SOCKETS = 2
    first, _ = await opened()
    second, _ = await opened()
    error = await turned_away(socket())
    assert error["code"] == "server_full"
    assert error["ref"] is None
    assert "tries again by itself" in error["message"]
    rooms = len(registry.rooms)
    # in the socket's own language
    error = await turned_away(socket("/ws/labs/quorum/?lang=zh-hans"))
    assert error["code"] == "server_full"
    assert "服务器此刻已满" in error["message"]
    assert len(registry.rooms) == rooms  # turned away before any room was made
    # one leaves: the next one gets in
    await first.disconnect()
    third, _ = await opened()
    await second.disconnect()
    await third.disconnect()


# -- the room cap --------------------------------------------------------------------


async def test_past_the_room_cap_empty_rooms_leave_and_then_new_ones_are_refused(
    settings, monkeypatch
):
    settings.PLAYGROUND_MAX_ROOMS = 2
    # a room nobody is in may be sent away at once (the socket it was made for left)
    monkeypatch.setattr(registry_module, "MAKE_SPACE_AFTER_SECONDS", 0)
    for room in list(registry.rooms.values()):  # earlier tests' rooms, waiting
        room.members.clear()
        registry._evict(room.id)
    first, hello_a = await opened()
    second, hello_b = await opened()
    await second.disconnect()  # room B waits out its idle time, empty
    third, hello_c = await opened()  # B makes way for C
    assert hello_b["room"] not in registry.rooms
    assert {hello_a["room"], hello_c["room"]} == set(registry.rooms)
    # both rooms have someone in them: a new one is refused, and the page told why
    error = await turned_away(socket())
    assert error["code"] == "server_full"
    assert len(registry.rooms) == 2
    # a socket to a room already held needs no new room
    joined, hello = await opened(f"/ws/labs/quorum/?room={hello_a['room']}")
    assert hello["room"] == hello_a["room"]
    # B comes back from the database once there is space again
    await third.disconnect()
    await joined.disconnect()
    back, hello = await opened(f"/ws/labs/quorum/?room={hello_b['room']}")
    assert hello["room"] == hello_b["room"]
    await back.disconnect()
    await first.disconnect()
