"""Who is watching a room, in this process and in the others that serve it.

Joins and leaves are announced at most every `PRESENCE_SECONDS`: when a class of 200
arrives at once, one presence message per quarter second replaces 200 × 200 of them
(measured: the burst of sends was most of the server's memory per connection).
"""

import asyncio
import time
from dataclasses import dataclass, field

from playground.rooms.wire import encode

ROSTER_STALE_SECONDS = 25  # a process silent this long is taken for dead
PRESENCE_SECONDS = 0.25


@dataclass
class Roster:
    """The members one process serves in a room, as it last announced them."""

    members: list = field(default_factory=list)
    seen: float = 0.0


class Presence:
    """One room's count of watchers and, for a class's hosts, the list of members."""

    def __init__(self, room) -> None:
        self.room = room
        self.remote: dict[str, Roster] = {}
        self._pending: asyncio.TimerHandle | None = None
        self._announce = False

    def _live_rosters(self) -> list[Roster]:
        now = time.monotonic()
        return [
            self.remote[process]
            for process in sorted(self.remote)
            if now - self.remote[process].seen < ROSTER_STALE_SECONDS
        ]

    def watching(self) -> int:
        """Members in every process (remote rosters that went quiet are ignored)."""
        remote = sum(len(r.members) for r in self._live_rosters())
        return len(self.room.members) + remote

    def shared(self) -> bool:
        """Whether another process serves members of this room now."""
        return any(r.members for r in self._live_rosters())

    def roster(self) -> list[dict]:
        """Everyone in the room, for the host's list: this process's, then others'."""
        people = [m.profile() for m in self.room.members]
        for entry in self._live_rosters():
            people.extend(entry.members)
        # one entry per member id: a reconnecting tab may briefly hold two sockets
        unique = {p["id"]: p for p in people}
        return sorted(
            unique.values(), key=lambda p: (p["role"] != "host", p["name"], p["id"])
        )

    def remote_roster(self, process: str, members: list, seen: float) -> None:
        """Another process announced who it serves here."""
        self.remote[process] = Roster(members, seen)
        self.soon(announce=False)

    def soon(self, announce: bool = True) -> None:
        """Announce presence within `PRESENCE_SECONDS`, once for any number of calls."""
        self._announce = self._announce or announce
        if self._pending is not None:
            return
        loop = asyncio.get_running_loop()

        def fire() -> None:
            self._pending = None
            announce, self._announce = self._announce, False
            loop.create_task(self.broadcast(announce))

        self._pending = loop.call_later(PRESENCE_SECONDS, fire)

    async def announce(self) -> None:
        """Tell the other processes who this one serves in the room."""
        await self.room.relay.publish(
            {
                "type": "room.roster",
                "members": [m.profile() for m in self.room.members],
            }
        )

    async def broadcast(self, announce: bool = True) -> None:
        """Tell every member how many watch, and the hosts who they are."""
        room = self.room
        if announce:
            await self.announce()
        watching = self.watching()
        await room.broadcast(encode({"type": "presence", "watching": watching}))
        if room.is_class and any(m.role == "host" for m in room.members):
            await room.broadcast(
                encode(
                    {
                        "type": "roster",
                        "watching": watching,
                        "members": self.roster(),
                    }
                ),
                hosts_only=True,
            )
