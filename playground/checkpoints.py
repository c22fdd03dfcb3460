"""Checkpoints of a lab that share what never changes: parts, referred to by key.

A checkpoint is a pickle of the lab in which every `Shared` object (a sealed block of
a ledger, a key set: simulators/engine/ledger.py) is written as a reference, its key,
instead of its contents. The part itself is pickled once, on its own (its own shared
objects again as references), and kept in `Parts` while some checkpoint refers to it;
so a checkpoint's size follows the lab's state, not the length of its past, and a lab
restored from it shares those parts with every other.

A part's key is a digest of its own pickle: the same part has the same key in every
process, which is what lets a room's stored checkpoints (playground/store.py) refer
to parts stored beside them. Every process of one Python version, that is: 3.12 and
3.13 pickle some parts to other bytes than 3.11 (they memoize a class name elsewhere),
so a process on another Python stores such a part again, under its own key. What any
supported Python stored, the others read back to the same lab
(tests/server/test_checkpoints_across_pythons.py).
"""

import functools
import hashlib
import io
import pickle
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import simulators
from simulators.engine.ledger import Shared

PROTOCOL = 5
KEY_BYTES = 16


@functools.cache
def code_version() -> str:
    """A digest of the simulators' source: what a stored checkpoint was made by.

    A pickle is only as good as the code that reads it: a checkpoint stored by other
    code (an earlier release) is not read, and the room replays its log instead.
    """
    root = Path(simulators.__file__).parent
    digest = hashlib.blake2b(digest_size=16)
    for path in sorted(root.rglob("*.py")):
        digest.update(path.relative_to(root).as_posix().encode("utf-8") + b"\0")
        digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()


def part_key(data: bytes) -> bytes:
    """The key of a part whose pickle is `data`."""
    return hashlib.blake2b(data, digest_size=KEY_BYTES).digest()


class _Pickler(pickle.Pickler):
    """Pickles `top`, writing every other Shared object as its key."""

    def __init__(self, file, top, found: Callable[[Shared], bytes]) -> None:
        super().__init__(file, protocol=PROTOCOL)
        self.top = top
        self.found = found

    def persistent_id(self, obj):
        if obj is not self.top and isinstance(obj, Shared):
            return self.found(obj)
        return None


class _Unpickler(pickle.Unpickler):
    def __init__(self, file, resolve: Callable[[bytes], Shared]) -> None:
        super().__init__(file)
        self.resolve = resolve

    def persistent_load(self, key):
        return self.resolve(key)


def dumps(obj, found: Callable[[Shared], bytes]) -> bytes:
    """`obj` pickled with the Shared objects it holds written as `found(part)`."""
    buffer = io.BytesIO()
    _Pickler(buffer, obj, found).dump(obj)
    return buffer.getvalue()


def loads(data: bytes, load: Callable[[bytes], Shared]):
    """What `dumps` wrote, each reference resolved by `load(key)`."""
    return _Unpickler(io.BytesIO(data), load).load()


def pickle_part(part: Shared) -> tuple[bytes, list[Shared]]:
    """A part's own pickle (its shared objects as keys), and those shared objects."""
    inner: list[Shared] = []

    def found(obj: Shared) -> bytes:
        inner.append(obj)
        return key_of(obj)

    return dumps(part, found), inner


def key_of(part: Shared) -> bytes:
    """A part's key (computed once, then kept on it)."""
    key = getattr(part, "part_key", None)
    if key is None:
        key = part_key(pickle_part(part)[0])
        part.part_key = key
    return key


class Parts:
    """The parts the checkpoints of one history refer to, counted.

    `objects` holds each part that a checkpoint refers to directly (parts inside parts
    stay alive through the objects that hold them); `counts` says how many
    checkpoints refer to it. `stored` holds parts read from the database that no
    checkpoint has needed yet: their pickles, unpickled on first use.
    """

    def __init__(self) -> None:
        self.objects: dict[bytes, Shared] = {}
        self.counts: Counter[bytes] = Counter()
        self.stored: dict[bytes, bytes] = {}

    def dumps(self, lab) -> tuple[bytes, tuple[bytes, ...]]:
        """A checkpoint of `lab`, and the keys of the parts it refers to."""
        held: dict[bytes, Shared] = {}

        def found(part: Shared) -> bytes:
            key = key_of(part)
            held[key] = part
            return key

        data = dumps(lab, found)
        for key, part in held.items():
            self.objects.setdefault(key, part)
            self.counts[key] = self.counts.get(key, 0) + 1
        return data, tuple(held)

    def loads(self, data: bytes):
        """The lab a checkpoint holds, sharing the parts it refers to."""
        return loads(data, self.part)

    def part(self, key: bytes) -> Shared:
        """The part with this key (unpickled from the database's copy if need be)."""
        part = self.objects.get(key)
        if part is None:
            part = loads(self.stored[key], self.part)
            part.part_key = key
            self.objects[key] = part
        return part

    def hold(self, keys: tuple[bytes, ...]) -> None:
        """One more checkpoint refers to these parts (read from the database)."""
        self.counts.update(keys)  # counted in C: a loaded room holds thousands

    def release(self, keys: tuple[bytes, ...]) -> None:
        """A checkpoint that referred to these parts is gone."""
        for key in keys:
            left = self.counts[key] - 1
            if left:
                self.counts[key] = left
            else:
                del self.counts[key]
                self.objects.pop(key, None)
                self.stored.pop(key, None)

    def copy(self) -> "Parts":
        twin = Parts()
        twin.objects = dict(self.objects)
        twin.counts = Counter(self.counts)
        twin.stored = dict(self.stored)
        return twin


def closure(parts: list[Shared], have: Callable[[bytes], bool]) -> dict[bytes, bytes]:
    """The pickles of `parts` and the parts inside them that `have` lacks, by key."""
    out: dict[bytes, bytes] = {}
    todo = list(parts)
    while todo:
        part = todo.pop()
        key = key_of(part)
        if key in out or have(key):
            continue
        data, inner = pickle_part(part)
        out[key] = data
        todo.extend(inner)
    return out
