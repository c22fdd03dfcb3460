"""Rooms: one running lab, its ordered action log, and the sockets watching it.

A room is made of parts, one module each, and every limit sits in the part it guards:

- `room`: the lab replica and its log: submit, apply, frames, hello, broadcast.
- `clock`: the room clock that turns real time into `advance` while a lab plays, and
  the lease that lets exactly one process tick it.
- `presence`: who is watching, across processes, announced a few times a second.
- `classes`: a class session's control mode, questions and answers.
- `relay`: the channel layer between the processes that serve one room.
- `registry`: the rooms this process holds; loading, creating and evicting them.
"""

from playground.rooms.registry import registry
from playground.rooms.room import PROTOCOL_VERSION, Room
from playground.rooms.wire import encode

__all__ = ["PROTOCOL_VERSION", "Room", "encode", "registry"]
