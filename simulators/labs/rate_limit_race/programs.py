"""What each client sends to the counter, step by step, in each way of counting.

One request of one client is a short program of steps. A step is one command sent to
the Redis-like store (Redis runs one command, or one Lua script, at a time, whole) or
one comparison the client makes on its own; between two steps of a client, any step of
another client may run. Everything here is a pure function of plain tuples, so the lab
plays a race with it and `orderings.py` plays every interleaving with the same rules.

- a key is `(value, expires_at)`: `value` None when the key is absent, `expires_at`
  the second of the lab's clock it expires at, None when it has no expiry;
- a client's `Local` is what it holds between steps: the number it got back (`seen`),
  whether its GET found no key (`was_nil`) and whether it admitted its request
  (`admitted`: None until it decides).
"""

from typing import NamedTuple

KEY = "rate:user42"
LIMIT = 100  # requests a minute
WINDOW_S = 60  # the window a counter lives for, in seconds

READ_CHECK_WRITE = "read_check_write"
INCR = "incr"
INCR_THEN_EXPIRE = "incr_then_expire"
LUA = "lua"
SET_NX_THEN_INCR = "set_nx_then_incr"
MODES = (READ_CHECK_WRITE, INCR, INCR_THEN_EXPIRE, LUA, SET_NX_THEN_INCR)
STEP_COUNTS = {
    READ_CHECK_WRITE: 3,
    INCR: 2,
    INCR_THEN_EXPIRE: 2,
    LUA: 1,
    SET_NX_THEN_INCR: 2,
}
# when a step sends nothing: "if_admitted" (a refused request writes nothing),
# "if_first" (only the request whose INCR made the key gives it an expiry)
STEP_CONDITIONS = {
    (READ_CHECK_WRITE, 3): "if_admitted",
    (INCR_THEN_EXPIRE, 2): "if_first",
}
# the step of a client's program at which it admits or refuses its request
DECIDES_AT = {
    READ_CHECK_WRITE: 2,
    INCR: 2,
    INCR_THEN_EXPIRE: 1,
    LUA: 1,
    SET_NX_THEN_INCR: 2,
}
LUA_SCRIPT = (
    "local n = redis.call('INCR', KEYS[1]) "
    "if n == 1 then redis.call('EXPIRE', KEYS[1], ARGV[1]) end "
    "return n"
)

Key = tuple[int | None, int | None]
ABSENT: Key = (None, None)


class Local(NamedTuple):
    """What a client holds between its steps."""

    seen: int | None = None
    was_nil: bool = False
    admitted: bool | None = None


START = Local()


class Ran(NamedTuple):
    """One step run: the key after it, the client after it, and what was said."""

    key: Key
    local: Local
    command: str | None  # None: the step was skipped (nothing to send)
    reply: str | None


def integer(n: int) -> str:
    """An integer reply, as redis-cli shows it."""
    return f"(integer) {n}"


def bulk(n: int) -> str:
    """A string reply, as redis-cli shows it."""
    return f'"{n}"'


NIL = "(nil)"
OK = "OK"
ADMITTED, REFUSED = "admitted", "refused"


def step_kind(mode: str, number: int) -> str:
    """Whether step `number` (from 1) of `mode` is a command or the client's check."""
    local = (mode in (READ_CHECK_WRITE, INCR)) and number == 2
    return "local" if local else "redis"


def _incr(key: Key) -> Key:
    value, expires_at = key
    return (1 if value is None else value + 1), expires_at


def _decide(local: Local, count: int, admitted: bool) -> Local:
    return local._replace(seen=count, admitted=admitted)


def run_step(mode: str, number: int, key: Key, local: Local, now: int) -> Ran:
    """Run step `number` (from 1) of a client's program in `mode` at second `now`."""
    if mode == READ_CHECK_WRITE:
        return _read_check_write(number, key, local, now)
    if mode == INCR:
        if number == 1:
            key = _incr(key)
            local = local._replace(seen=key[0])
            return Ran(key, local, f"INCR {KEY}", integer(key[0]))
        return _compare(key, local)
    if mode == INCR_THEN_EXPIRE:
        if number == 1:
            key = _incr(key)
            n = key[0]
            local = _decide(local, n, n <= LIMIT)
            return Ran(key, local, f"INCR {KEY}", integer(n))
        if local.seen != 1:  # only the request that made the key gives it an expiry
            return Ran(key, local, None, None)
        return _expire(key, local, now)
    if mode == LUA:
        value, expires_at = _incr(key)
        if value == 1:
            expires_at = now + WINDOW_S
        local = _decide(local, value, value <= LIMIT)
        command = f'EVAL "{LUA_SCRIPT}" 1 {KEY} {WINDOW_S}'
        return Ran((value, expires_at), local, command, integer(value))
    if mode == SET_NX_THEN_INCR:
        if number == 1:
            command = f"SET {KEY} 0 EX {WINDOW_S} NX"
            if key[0] is None:
                return Ran((0, now + WINDOW_S), local, command, OK)
            return Ran(key, local, command, NIL)
        key = _incr(key)
        local = _decide(local, key[0], key[0] <= LIMIT)
        return Ran(key, local, f"INCR {KEY}", integer(key[0]))
    raise ValueError(f"unknown mode {mode!r}")


def _read_check_write(number: int, key: Key, local: Local, now: int) -> Ran:
    value, expires_at = key
    if number == 1:
        if value is None:
            return Ran(key, Local(0, True), f"GET {KEY}", NIL)
        return Ran(key, Local(value, False), f"GET {KEY}", bulk(value))
    if number == 2:
        admitted = local.seen < LIMIT
        command = f"{local.seen} < {LIMIT} ?"
        reply = ADMITTED if admitted else REFUSED
        return Ran(key, local._replace(admitted=admitted), command, reply)
    if not local.admitted:  # a refused request writes nothing
        return Ran(key, local, None, None)
    count = local.seen + 1
    if local.was_nil:  # the first request of a window gives the key its expiry
        command = f"SET {KEY} {count} EX {WINDOW_S}"
        return Ran((count, now + WINDOW_S), local, command, OK)
    # KEEPTTL: a plain SET would drop the expiry the key has
    kept = expires_at if value is not None else None
    return Ran((count, kept), local, f"SET {KEY} {count} KEEPTTL", OK)


def _compare(key: Key, local: Local) -> Ran:
    admitted = local.seen <= LIMIT
    command = f"{local.seen} <= {LIMIT} ?"
    reply = ADMITTED if admitted else REFUSED
    return Ran(key, local._replace(admitted=admitted), command, reply)


def _expire(key: Key, local: Local, now: int) -> Ran:
    command = f"EXPIRE {KEY} {WINDOW_S}"
    if key[0] is None:
        return Ran(key, local, command, integer(0))
    return Ran((key[0], now + WINDOW_S), local, command, integer(1))


def planned(mode: str, number: int, local: Local) -> str | None:
    """The command step `number` will send, as far as the client knows it yet."""
    n = "n" if local.seen is None else str(local.seen)
    if mode == READ_CHECK_WRITE:
        if number == 1:
            return f"GET {KEY}"
        if number == 2:
            return f"{n} < {LIMIT} ?"
        if local.admitted is False:
            return None
        if local.seen is None:
            return f"SET {KEY} n+1 KEEPTTL"
        if local.was_nil:
            return f"SET {KEY} {local.seen + 1} EX {WINDOW_S}"
        return f"SET {KEY} {local.seen + 1} KEEPTTL"
    if mode == INCR:
        return f"INCR {KEY}" if number == 1 else f"{n} <= {LIMIT} ?"
    if mode == INCR_THEN_EXPIRE:
        if number == 1:
            return f"INCR {KEY}"
        if local.seen is not None and local.seen != 1:
            return None
        return f"EXPIRE {KEY} {WINDOW_S}"
    if mode == LUA:
        return f'EVAL "{LUA_SCRIPT}" 1 {KEY} {WINDOW_S}'
    if number == 1:
        return f"SET {KEY} 0 EX {WINDOW_S} NX"
    return f"INCR {KEY}"
