"""The key streams range-splits writes: (time in ms, key) pairs, seeded.

- `uniform`: passenger ids drawn uniformly from the whole id space;
- `timestamps`: the time of arrival itself, so each key is above every key before it;
- `skewed`: aircraft registrations, most of them under a few popular prefixes.

Arrivals are evenly spaced at `rate` writes a second (the stream's own clock, never the
wall clock). Also `hash_shard`, where hash placement (murmur3 mod N) puts a key, for the
heat chart beside range placement on the same stream.
"""

from collections.abc import Iterator

from simulators.airline import passenger_id, registration
from simulators.engine.declaration import ActionError
from simulators.engine.hashing import murmur
from simulators.engine.i18n import gettext_noop as _
from simulators.engine.rng import make_rng

STREAM_KINDS = ("uniform", "timestamps", "skewed")
PASSENGER_SPACE = 9_999_999  # P0000001 … P9999999: seven digits, sorted as numbers
REGISTRATION_SPACE = 90_000  # N10000 … N99999
HOT_PREFIXES = 3  # the skewed stream's popular registration blocks (N1xxxx … )
HOT_SHARE = 0.8  # of its keys fall in them


def stream(seed: int, kind: str, count: int, rate: int, start_ms: int = 0) -> Iterator:
    """`count` writes of `kind` at `rate` a second from `start_ms`: (at_ms, key)."""
    if kind not in STREAM_KINDS:
        raise ActionError("bad_stream", _("no key stream named %(kind)r"), kind=kind)
    if rate < 1:
        raise ActionError("bad_rate", _("a stream needs at least one write a second"))
    rng = make_rng(seed, f"range-splits:{kind}:{start_ms}")
    for i in range(count):
        at_ms = start_ms + (i * 1000) // rate
        yield at_ms, _key(kind, rng, at_ms, start_ms + i)


def _key(kind: str, rng, at_ms: int, serial: int) -> str:
    if kind == "uniform":
        return passenger_id(rng.randrange(PASSENGER_SPACE))
    if kind == "timestamps":
        # milliseconds then a serial, zero-padded: sorted as strings as in time
        return f"T{at_ms:012d}-{serial:09d}"
    if rng.random() < HOT_SHARE:
        block = rng.randrange(HOT_PREFIXES) * 10_000
        return registration(block + rng.randrange(10_000))
    return registration(rng.randrange(REGISTRATION_SPACE))


def hash_shard(key: str, shards: list[str]) -> str:
    """The shard hash placement (murmur3 of the key, mod N) gives `key`."""
    return shards[murmur(key) % len(shards)]
