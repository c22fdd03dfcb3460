"""Who may append to a room's log now, when several processes serve the room.

A room applies an action to its replica in memory and then appends it to the stored log
in a short transaction (playground/rooms/room.py), so no database lock is held while a
lab works. With one process, the room's own lock orders its actions. With several
(`REDIS_URL`), two processes must not both apply an action to the same state: the one
that appends second would find the log moved on and throw its work away. So a process
takes the room's writer lock in Redis first: a key held with a short expiry that the
holder renews while it works, so a killed holder frees the room within `HOLD_MS`. The
append still checks that nothing came before it (store.append): a holder whose lock
lapsed (Redis unreachable for a while) finds out there and rebuilds, never logs twice.

The lock also carries the room's last appended seq: the holder leaves it when it lets
go, and the next one gets it with the lock, in the same round trip. A process whose
replica is at that seq already has everything: it skips reading the log for what others
appended (a database round trip on every action otherwise). A seq that is missing or
stale (a holder killed before it let go) only means a read, or an append that finds
the log moved on.
"""

import asyncio
import logging
import secrets
from contextlib import asynccontextmanager

from django.utils.translation import gettext_noop

from playground.rooms.relay import PROCESS_ID, multi_process, redis_client
from simulators.engine.declaration import ActionError

HOLD_MS = 3_000  # the lock lapses this long after its holder stops renewing it
RENEW_SECONDS = 1.0
# a holder works at most its metered budget (playground/meter.py): seconds, not minutes
MOST_WAIT_SECONDS = 30.0
log = logging.getLogger(__name__)

SEQ_KEPT_MS = 3_600_000
ACQUIRE = """
if redis.call('set', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
  return {1, redis.call('get', KEYS[2])}
end
return {0, false}
"""
RELEASE = """
if redis.call('get', KEYS[1]) == ARGV[1] then
  if ARGV[2] ~= '' then
    redis.call('set', KEYS[2], ARGV[2], 'PX', ARGV[3])
  end
  return redis.call('del', KEYS[1])
end
return 0
"""
RENEW = """
if redis.call('get', KEYS[1]) == ARGV[1] then
  return redis.call('pexpire', KEYS[1], ARGV[2])
end
return 0
"""


def _busy() -> ActionError:
    return ActionError(
        "try_again",
        gettext_noop(
            "the server could not store that just now; nothing changed, try again"
        ),
    )


class Turn:
    """A holder's turn at a room's log: the last seq appended, as far as the lock
    knows (None: unknown), and the seq this holder leaves for the next. `alone`: no
    other process serves the room's members, so no lock was taken."""

    def __init__(self, seq: int | None, alone: bool = False) -> None:
        self.seq = seq
        self.alone = alone
        self.left: int | None = None

    def appended(self, seq: int) -> None:
        self.left = seq


@asynccontextmanager
async def writing(room_id: str, shared: bool = True):
    """Hold the room's writer lock, yielding the Turn.

    With one process there is nothing to hold. With several, a room that no other
    process serves members of now (`shared` false: no live roster from another; they
    announce theirs within a quarter second of a join) takes no lock either: its
    replica is the log's head, and a process that acted before its roster arrived
    makes this append fail whole and the replica rebuild, never log twice. It then
    forgets the seq the lock carries, which no longer says the last one."""
    if not multi_process():
        yield Turn(None)
        return
    client = redis_client()
    key, seq_key = f"playground:writer:{room_id}", f"playground:seq:{room_id}"
    if not shared:
        turn = Turn(None, alone=True)
        yield turn
        if turn.left is not None:
            _forget(client, seq_key)
        return
    token = f"{PROCESS_ID}-{secrets.token_hex(4)}"
    loop = asyncio.get_running_loop()
    give_up = loop.time() + MOST_WAIT_SECONDS
    pause = 0.002
    try:
        while True:
            taken, seq = await client.eval(ACQUIRE, 2, key, seq_key, token, HOLD_MS)
            if taken:
                break
            if loop.time() > give_up:
                raise _busy()
            await asyncio.sleep(pause)
            pause = min(pause * 2, 0.05)
    except ActionError:
        raise
    except Exception as error:  # Redis unreachable: nothing was done
        log.exception("room %s: the writer lock could not be taken", room_id)
        raise _busy() from error
    turn = Turn(int(seq) if seq is not None else None)
    renewing = loop.create_task(_renew(client, key, token))
    try:
        yield turn
    finally:
        renewing.cancel()
        left = "" if turn.left is None else str(turn.left)
        try:
            await client.eval(RELEASE, 2, key, seq_key, token, left, SEQ_KEPT_MS)
        except Exception:  # it lapses on its own
            log.warning("room %s: the writer lock was not released", room_id)


def _forget(client, seq_key: str) -> None:
    """Drop the seq the lock carries, in the background (the next holder reads the
    log instead)."""

    async def forget() -> None:
        try:
            await client.delete(seq_key)
        except Exception:
            log.warning("a room's last seq could not be forgotten", exc_info=True)

    task = asyncio.get_running_loop().create_task(forget())
    _forgetting.add(task)
    task.add_done_callback(_forgetting.discard)


_forgetting: set = set()  # tasks kept until done (the loop holds them weakly)


async def _renew(client, key: str, token: str) -> None:
    while True:
        await asyncio.sleep(RENEW_SECONDS)
        try:
            await client.eval(RENEW, 1, key, token, HOLD_MS)
        except Exception:
            log.warning("a room's writer lock could not be renewed", exc_info=True)
