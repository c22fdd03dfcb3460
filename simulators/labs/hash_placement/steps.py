"""Looking up many hashes at once in a placement that is a step function of the hash.

A ring and a table of hash-range partitions both cut the 32-bit hash range into runs
with one owner each. Finding a key's run by binary search costs several Python calls per
key; instead the range is also cut into equal buckets, and a bucket that lies inside one
run stores that run's owner. Only the few buckets a run boundary crosses store None and
fall back to the binary search, so most keys cost one tuple read. There are about 64
buckets per boundary (so about one bucket in 64 is crossed), between 2¹⁰ and 2¹⁶ in all:
a small table stays in the processor's cache.
"""

from bisect import bisect_left, bisect_right
from collections.abc import Iterable

HASH_BITS = 32
MIN_BUCKET_BITS = 10
MAX_BUCKET_BITS = 16
BUCKETS_PER_EDGE_BITS = 6  # 2⁶ = 64 buckets for each boundary between runs


class StepLookup:
    """Owner of any 32-bit hash, where `owners[i]` holds the hashes below `edges[i]`.

    `edges` are ascending; the last owner holds everything from the last edge up.
    """

    def __init__(self, edges: list[int], owners: list[str]) -> None:
        if len(owners) != len(edges) + 1:
            raise ValueError("one more owner than edges")
        reachable = bisect_left(edges, 1 << HASH_BITS)  # no hash reaches 2³² or more
        edges, owners = edges[:reachable], owners[: reachable + 1]
        # edges between runs of the same owner change nothing: drop them
        keep = [i for i in range(len(edges)) if owners[i] != owners[i + 1]]
        self.edges = [edges[i] for i in keep]
        self.owners = [owners[i] for i in keep] + [owners[-1]]
        bits = len(self.edges).bit_length() + BUCKETS_PER_EDGE_BITS
        self.shift = HASH_BITS - min(max(bits, MIN_BUCKET_BITS), MAX_BUCKET_BITS)
        self.buckets = _bucket_owners(self.edges, self.owners, self.shift)

    def owner(self, key_hash: int) -> str:
        """The owner of one hash, by binary search."""
        return self.owners[bisect_right(self.edges, key_hash)]

    def owners_of(self, hashes: Iterable[int]) -> list[str]:
        """The owner of each hash, in order: one bucket read for almost every hash."""
        buckets, shift, owner = self.buckets, self.shift, self.owner
        return [buckets[h >> shift] or owner(h) for h in hashes]


def _bucket_owners(edges: list[int], owners: list[str], shift: int) -> tuple:
    """Each bucket's single owner, or None for a bucket an edge falls inside."""
    count, inside = 1 << (HASH_BITS - shift), (1 << shift) - 1
    buckets: list[str | None] = [None] * count
    filled = 0  # buckets below this index are settled
    for edge, owner in zip(edges, owners, strict=False):
        bucket = edge >> shift
        if bucket > filled:
            buckets[filled:bucket] = [owner] * (bucket - filled)
        # an edge inside a bucket splits it (it stays None); one at its start does not
        split = 1 if edge & inside else 0
        filled = max(filled, bucket + split)
    buckets[filled:] = [owners[-1]] * (count - filled)
    return tuple(buckets)
