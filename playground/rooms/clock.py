"""The room clock: real time turned into logged `advance` actions, by one process.

The wall clock lives here, in the playground: the lab only ever sees the logged whole
milliseconds, so replaying the log reproduces every moment. With several processes,
only the holder of the room's clock lease ticks; the others keep trying, and one takes
over within `LEASE_MS` if the holder dies.
"""

import asyncio
import logging

from playground.rooms.relay import PROCESS_ID, multi_process, redis_client
from simulators.engine.clocked import MAX_ADVANCE_MS

TICK_SECONDS = 0.1  # how often a playing room turns real time into `advance`
LEASE_MS = 2_000  # a clock lease lapses this long after its holder stops renewing it
log = logging.getLogger(__name__)


class RoomClock:
    """Ticks a room while its lab plays, something is scheduled and someone watches."""

    def __init__(self, room) -> None:
        self.room = room
        self.ticker: asyncio.Task | None = None

    def wanted(self) -> bool:
        """A clocked lab that is playing with something scheduled, watched by someone.

        Time stands still while nothing is scheduled: the room sends no `advance`
        then, so an idle playing room costs nothing and logs nothing.
        """
        room = self.room
        lab = room.lab
        return (
            bool(room.members)
            and room.history.at_end  # viewing the past: time waits for a new action
            and getattr(lab, "clocked", False)
            and lab.playing
            and lab.next_due_ms() is not None
        )

    def ensure_ticking(self) -> None:
        """Start the room clock if the lab needs time to move and none is running."""
        if self.ticker is None and self.wanted():
            self.ticker = asyncio.get_running_loop().create_task(self._tick())

    async def _tick(self) -> None:
        """Turn real time into `advance(ms)` actions at the lab's speed."""
        room = self.room
        loop = asyncio.get_running_loop()
        last = loop.time()
        try:
            while True:
                await asyncio.sleep(TICK_SECONDS)
                if not self.wanted():
                    return
                now = loop.time()
                if not await leases.hold(room.id):
                    last = now  # someone else ticks; our elapsed time is theirs
                    continue
                ms = round((now - last) * room.lab.speed)
                last = now
                ms = min(max(ms, 1), MAX_ADVANCE_MS)
                tick = room.lab_class.actions_in("clock")[0]  # `advance`
                await room.submit(tick, {"ms": ms}, None, tick=True)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("the clock of room %s stopped", room.id)
        finally:
            self.ticker = None

    def stop(self) -> None:
        """Stop the room clock (the room is leaving memory)."""
        if self.ticker is not None:
            self.ticker.cancel()
            self.ticker = None


class Leases:
    """Who ticks a room's clock. One process: always us. Several: a Redis lease."""

    # Renew our lease, or take it if nobody holds it: atomic in Redis.
    SCRIPT = """
    local holder = redis.call('get', KEYS[1])
    if holder == ARGV[1] then
      return redis.call('pexpire', KEYS[1], ARGV[2])
    end
    if not holder then
      redis.call('set', KEYS[1], ARGV[1], 'PX', ARGV[2])
      return 1
    end
    return 0
    """

    def __init__(self) -> None:
        self._script = None

    async def hold(self, room_id: str) -> bool:
        """Whether this process may tick `room_id` now (renewing its lease)."""
        if not multi_process():
            return True
        if self._script is None:
            self._script = redis_client().register_script(self.SCRIPT)
        try:
            held = await self._script(
                keys=[f"playground:clock:{room_id}"], args=[PROCESS_ID, LEASE_MS]
            )
        except Exception:
            log.exception("the clock lease of room %s could not be checked", room_id)
            return False
        return bool(held)


leases = Leases()
