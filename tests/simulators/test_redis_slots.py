"""Redis Cluster slots: CRC16 with hash tags, checked against the docs and a live Redis.

Documented values: `CLUSTER KEYSLOT` on redis.io (somekey → 11058, foo{hash_tag} and
bar{hash_tag} → 2515), the hash-tag rules of the Redis Cluster specification, and the
CRC16/XMODEM check value for "123456789" (0x31C3) the specification's CRC16 names.
"""

import os
import shutil
import socket
import subprocess
import time
from binascii import crc_hqx

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from playground.liveserver import stop_process
from simulators.airline import KEY_KINDS, Airline
from simulators.labs.hash_placement.hashing import hash_tag, redis_slot


def crc16(text: str) -> int:
    return crc_hqx(text.encode("utf-8"), 0)


# ----- documented values -----------------------------------------------------------
def test_crc16_is_the_xmodem_variant_redis_cluster_uses():
    assert crc16("123456789") == 0x31C3


@pytest.mark.parametrize(
    ("key", "slot"),
    [("somekey", 11058), ("foo{hash_tag}", 2515), ("bar{hash_tag}", 2515)],
)
def test_slots_equal_the_cluster_keyslot_examples_in_the_redis_docs(key, slot):
    assert redis_slot(key) == slot


def test_keys_with_the_same_tag_share_a_slot():
    assert redis_slot("{user1000}.following") == redis_slot("{user1000}.followers")
    assert redis_slot("{user1000}.following") == redis_slot("user1000")


@pytest.mark.parametrize(
    ("key", "hashed"),
    [
        ("foo{}{bar}", "foo{}{bar}"),  # an empty tag: the whole key
        ("foo{{bar}}zap", "{bar"),  # from the first { to the first } after it
        ("foo{{bar}}", "{bar"),
        ("foo{bar}{zap}", "bar"),  # only the first tag counts
        ("foo{bar", "foo{bar"),  # never closed: the whole key
        ("foo}bar{", "foo}bar{"),
        ("{}", "{}"),
        ("{a}", "a"),
        ("N12345", "N12345"),
    ],
)
def test_the_hash_tag_rules_of_the_cluster_specification(key, hashed):
    assert hash_tag(key) == hashed
    assert redis_slot(key) == crc16(hashed) % 16384


def test_slots_cover_the_range_and_stay_inside_it():
    keys = Airline(1).keys("booking", 50_000)
    slots = {redis_slot(k) for k in keys}
    assert min(slots) >= 0 and max(slots) <= 16383
    assert len(slots) > 15_000


# ----- a live Redis ----------------------------------------------------------------
class Redis:
    """A minimal RESP client: enough to ask CLUSTER KEYSLOT, pipelined."""

    def __init__(self, port: int) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        self.replies = self.sock.makefile("rb")

    def keyslots(self, keys: list[str]) -> list[int]:
        """CLUSTER KEYSLOT of each key, pipelined."""
        out = bytearray()
        for key in keys:
            out += _command(b"CLUSTER", b"KEYSLOT", key.encode("utf-8"))
        self.sock.sendall(out)
        return [self._integer() for _ in keys]

    def _integer(self) -> int:
        line = self.replies.readline()
        if not line.startswith(b":"):
            raise AssertionError(f"unexpected reply from Redis: {line!r}")
        return int(line[1:])

    def close(self) -> None:
        self.replies.close()
        self.sock.close()


def _command(*parts: bytes) -> bytes:
    out = [b"*%d\r\n" % len(parts)]
    for part in parts:
        out.append(b"$%d\r\n%s\r\n" % (len(part), part))
    return b"".join(out)


def _free_cluster_port() -> int:
    """A free port p with p + 10,000 free too (Redis Cluster's bus), below 55,536."""
    for port in range(20_000 + os.getpid() % 20_000, 55_536, 7):
        if _is_free(port) and _is_free(port + 10_000):
            return port
    raise AssertionError("no free port pair for a cluster-mode redis-server")


def _is_free(port: int) -> bool:
    with socket.socket() as probe:
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return False
        return True


@pytest.fixture(scope="module")
def redis(tmp_path_factory):
    """A throwaway cluster-mode redis-server with no slots assigned, and a client."""
    server = shutil.which("redis-server") or "/usr/bin/redis-server"
    if not os.path.exists(server):
        reason = "redis-server is not installed (apt-get install redis-server)"
        if os.environ.get("CI") == "true":
            pytest.fail(reason)
        pytest.skip(reason)
    workdir = tmp_path_factory.mktemp("redis")
    port = _free_cluster_port()
    command = [server, "--port", str(port), "--bind", "127.0.0.1"]
    command += ["--cluster-enabled", "yes"]
    command += ["--cluster-config-file", str(workdir / "nodes.conf")]
    command += ["--save", "", "--appendonly", "no", "--dir", str(workdir)]
    with open(workdir / "redis.log", "wb") as log:
        process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
    try:
        client = _connect(port, process, workdir)
        yield client
        client.close()
    finally:
        stop_process(process)


def _connect(port: int, process: subprocess.Popen, workdir) -> Redis:
    deadline = time.monotonic() + 10
    while True:
        try:
            return Redis(port)
        except OSError:
            if process.poll() is not None or time.monotonic() > deadline:
                log = (workdir / "redis.log").read_text(errors="replace")
                raise AssertionError(f"redis-server did not start:\n{log}") from None
            time.sleep(0.05)


LIVE_KEYS = [
    "somekey",
    "foo{hash_tag}",
    "bar{hash_tag}",
    "{user1000}.following",
    "{user1000}.followers",
    "foo{}{bar}",
    "foo{{bar}}zap",
    "foo{bar}{zap}",
    "{",
    "}",
    "{}",
    "}{",
    "{{}}",
    "a{b}c{d}e",
    "Zürich",
    "東京{成田}",
    "✈️ N12345",
    "emoji{😀}",
    "tab\tnew\nline\r\n",
    "nul\x00byte",
    "x" * 300,
]


def test_a_redis_without_slots_still_answers_cluster_keyslot(redis):
    assert redis.keyslots(["somekey"]) == [11058]


def test_slots_equal_a_live_redis_for_known_and_awkward_keys(redis):
    assert redis.keyslots(LIVE_KEYS) == [redis_slot(k) for k in LIVE_KEYS]


def test_slots_equal_a_live_redis_for_generated_keys(redis):
    airline = Airline(9)
    keys = [airline.key(kind, i * 3_001) for kind in KEY_KINDS for i in range(100)]
    assert redis.keyslots(keys) == [redis_slot(k) for k in keys]


@settings(max_examples=50, deadline=None)
@given(
    st.lists(
        st.text(min_size=1, max_size=40)
        | st.builds(
            lambda a, b, c: f"{a}{{{b}}}{c}",
            st.text(max_size=8),
            st.text(max_size=8),
            st.text(max_size=8),
        ),
        min_size=1,
        max_size=20,
    )
)
def test_slots_equal_a_live_redis_for_any_text(redis, keys):
    assert redis.keyslots(keys) == [redis_slot(k) for k in keys]
