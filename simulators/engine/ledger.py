"""An append-only record whose settled part checkpoints share instead of copying.

A lab that shows its past (quorum's history of reads and writes, partition-cap's
bookings) keeps it in a `Ledger`. Items are appended at the end; once the lab calls
`settle(n)`, the first `n` items never change again, and they are sealed, `BLOCK` at a
time, into immutable `Block`s. Blocks nest: `BLOCK` full blocks of one level make one
block of the next, so a ledger holds at most `BLOCK - 1` blocks of each level, a few
levels in all, and an open tail.

A checkpoint of a lab (playground/history.py) pickles blocks by reference
(`Shared`): a checkpoint holds the handful of references and the tail, whatever the
length of the history, and a lab restored from it shares the same blocks. Nothing in
a block may change once it is sealed: a lab settles only items it will never touch
again.
"""

from collections.abc import Iterator
from typing import Any

BLOCK = 64


class Shared:
    """Marks an object that never changes once made: checkpoints refer to it.

    A checkpoint pickles such an object once, on its own, as a part, and refers to it
    by `part_key` (a digest of that pickle, set the first time it is stored; it is not
    part of the object's state). An object whose caches fill later (computed from what
    it holds, the same in any process) still counts as unchanging.
    """

    __slots__ = ()
    part_key: bytes | None


class Block(Shared):
    """`BLOCK` settled items (level 0) or `BLOCK` blocks of the level below."""

    __slots__ = ("items", "level", "part_key")

    def __init__(self, items: tuple, level: int) -> None:
        self.items = items
        self.level = level
        self.part_key: bytes | None = None

    def __reduce__(self):
        return (Block, (self.items, self.level))


class Ledger:
    """An append-only sequence: sealed blocks (shared) and an open tail."""

    __slots__ = ("_levels", "_tail", "_sealed", "_settled")

    def __init__(self, items: tuple = ()) -> None:
        # _levels[k]: the blocks of level k, in order (highest level first in order of
        # the items: every block of level k+1 comes before every block of level k)
        self._levels: list[list[Block]] = []
        self._tail: list = list(items)
        self._sealed = 0  # items held in blocks
        self._settled = 0  # items that will never change (sealed or in the tail)

    def __getstate__(self):
        return (self._levels, self._tail, self._sealed, self._settled)

    def __setstate__(self, state) -> None:
        self._levels, self._tail, self._sealed, self._settled = state

    def __len__(self) -> int:
        return self._sealed + len(self._tail)

    @property
    def settled(self) -> int:
        """How many items, from the first, will never change again."""
        return self._settled

    def append(self, item: Any) -> None:
        self._tail.append(item)

    def settle(self, count: int) -> None:
        """The first `count` items will never change again: seal what fills blocks."""
        if count > len(self):
            raise ValueError(f"only {len(self)} items to settle, not {count}")
        self._settled = max(self._settled, count)
        while self._settled - self._sealed >= BLOCK:
            block = Block(tuple(self._tail[:BLOCK]), 0)
            del self._tail[:BLOCK]
            self._sealed += BLOCK
            self._add(block)

    def _add(self, block: Block) -> None:
        level = block.level
        if len(self._levels) <= level:
            self._levels.append([])
        blocks = self._levels[level]
        blocks.append(block)
        if len(blocks) == BLOCK:
            self._levels[level] = []
            self._add(Block(tuple(blocks), level + 1))

    def _blocks(self) -> Iterator[Block]:
        """Every top block, in the order of their items."""
        for level in range(len(self._levels) - 1, -1, -1):
            yield from self._levels[level]

    def __getitem__(self, index):
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError("ledger index out of range")
        if index >= self._sealed:
            return self._tail[index - self._sealed]
        for level in range(len(self._levels) - 1, -1, -1):
            blocks = self._levels[level]
            span = BLOCK ** (level + 1)
            if index < len(blocks) * span:
                block = blocks[index // span]
                index %= span
                while block.level:
                    below = BLOCK**block.level
                    block = block.items[index // below]
                    index %= below
                return block.items[index]
            index -= len(blocks) * span
        raise AssertionError("sealed items and blocks disagree")  # pragma: no cover

    def __iter__(self) -> Iterator:
        for block in self._blocks():
            yield from _items(block)
        yield from self._tail

    def last(self, count: int) -> list:
        """The last `count` items (fewer if there are fewer), oldest first."""
        return self[max(0, len(self) - count) :]

    def bisect(self, value, key) -> int:
        """How many items have `key(item) < value` (the keys must not decrease)."""
        low, high = 0, len(self)
        while low < high:
            middle = (low + high) // 2
            if key(self[middle]) < value:
                low = middle + 1
            else:
                high = middle
        return low


def _items(block: Block) -> Iterator:
    if block.level == 0:
        yield from block.items
    else:
        for inner in block.items:
            yield from _items(inner)
