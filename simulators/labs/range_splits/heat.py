"""The heat chart's numbers: writes per shard, per placement, a quarter second a column.

The columns of the last minute of stream time are kept. A column stays open (dicts,
counted into) while writes may still land in its block of `BLOCK` columns; once the
stream has moved past the block, its columns are sealed into a `HeatBlock`, packed and
never changed again, which checkpoints share instead of copying (a minute of columns
is some thirty objects each, and every checkpoint of the lab would pickle them all).
"""

from array import array

from simulators.engine.ledger import Shared

BLOCK = 16  # columns a sealed block holds: four seconds of stream time


class HeatBlock(Shared):
    """Sealed columns: (column number, counts packed placement by placement, each
    shard by shard in the order the shards had then)."""

    __slots__ = ("columns", "part_key", "_read")

    def __init__(self, columns: tuple[tuple[int, bytes], ...]) -> None:
        self.columns = columns
        self.part_key: bytes | None = None
        # the columns as counts, for a number of shards (a cache: not pickled)
        self._read: dict[int, list] = {}

    def __reduce__(self):
        return (HeatBlock, (self.columns,))

    def read(self, shards: list[str], placements: tuple[str, ...]) -> list:
        """[(column number, {placement: {shard: writes}})]: shards added since the
        block was sealed count 0. Made once per number of shards; not to be changed."""
        read = self._read.get(len(shards))
        if read is None:
            read = self._read[len(shards)] = []
            for number, packed in self.columns:
                values = array("q")
                values.frombytes(packed)
                width = len(values) // len(placements)
                pad = [0] * (len(shards) - width)
                counts = {}
                for i, placement in enumerate(placements):
                    row = [*values[i * width : (i + 1) * width], *pad]
                    counts[placement] = dict(zip(shards, row, strict=True))
                read.append((number, counts))
        return read


class Heat:
    """Writes per shard in quarter-second columns; the open ones and sealed blocks."""

    def __init__(self, placements: tuple[str, ...]) -> None:
        self.placements = placements
        self.open: dict[int, dict[str, dict[str, int]]] = {}  # column -> counts
        self.sealed: list[HeatBlock] = []  # oldest first

    def column(self, number: int, shards: list[str]) -> dict[str, dict[str, int]]:
        """The counts of column `number` (made if new: columns only move forward)."""
        counts = self.open.get(number)
        if counts is None:
            self._seal_before(number // BLOCK)
            counts = {p: dict.fromkeys(shards, 0) for p in self.placements}
            self.open[number] = counts
        return counts

    def forget(self, upto: int) -> None:
        """Forget the columns up to `upto` (whole sealed blocks; `columns` skips the
        rest of a block partly forgotten)."""
        for number in [n for n in self.open if n <= upto]:
            del self.open[number]
        while self.sealed and self.sealed[0].columns[-1][0] <= upto:
            del self.sealed[0]

    def add_shard(self, shard: str) -> None:
        """A new shard: every open column counts it (sealed ones read it as 0)."""
        for counts in self.open.values():
            for placement in counts.values():
                placement.setdefault(shard, 0)

    def columns(self, after: int, shards: list[str]):
        """(column number, counts) for every column after `after`, in order."""
        for block in self.sealed:
            for number, counts in block.read(shards, self.placements):
                if number > after:
                    yield number, counts
        for number in sorted(self.open):
            if number > after:
                yield number, self.open[number]

    def _seal_before(self, block: int) -> None:
        """Seal the open columns of blocks before `block`, a block at a time."""
        done = sorted(n for n in self.open if n // BLOCK < block)
        while done:
            first = done[0] // BLOCK
            numbers = [n for n in done if n // BLOCK == first]
            done = done[len(numbers) :]
            self.sealed.append(HeatBlock(tuple(self._pack(n) for n in numbers)))

    def _pack(self, number: int) -> tuple[int, bytes]:
        counts = self.open.pop(number)
        values = array("q")
        for placement in self.placements:
            values.extend(counts[placement].values())
        return number, values.tobytes()
