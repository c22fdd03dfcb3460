"""replication's log in checkpoints: the part no failover can cut is shared, as
chunks, by every checkpoint; a lab restored from one goes on exactly as the original."""

import pickle

from playground.checkpoints import dumps, loads
from simulators.labs.replication import ReplicationLab
from simulators.labs.replication.cluster import CHUNK, LogChunk


def checkpoint(lab, parts: dict) -> bytes:
    def found(part):
        key = pickle.dumps(id(part))
        parts[key] = part
        return key

    return dumps(lab, found)


def busy(lab, bursts: int) -> None:
    for _ in range(bursts):
        lab.apply("burst", {"count": 2_000})
        lab.apply("advance", {"ms": 2_200})


def test_checkpoints_share_the_settled_log_and_stay_small():
    lab = ReplicationLab(seed=5)
    parts: dict = {}
    busy(lab, 5)
    first = checkpoint(lab, parts)
    chunks = [p for p in parts.values() if isinstance(p, LogChunk)]
    assert len(chunks) >= 2 * (10_000 // CHUNK) - 2  # log and commit times
    busy(lab, 15)
    second = checkpoint(lab, parts)
    assert len(second) < 4 * len(first) < 400_000  # not 4× the records
    assert all(isinstance(p, LogChunk) for p in parts.values())
    restored = loads(second, parts.__getitem__)
    assert restored.digest() == lab.digest()
    for twin in (lab, restored):
        twin.apply("write", {"client": "ana"})
        twin.apply("kill_primary", {})
        twin.apply("promote", {"server": "C"})
        twin.apply("advance", {"ms": 500})
    assert restored.digest() == lab.digest()
    assert restored.cluster.log == lab.cluster.log


def test_a_failover_never_cuts_into_a_chunk():
    lab = ReplicationLab(seed=2)
    lab.apply("set_replica", {"server": "C", "mode": "async", "place": "ocean"})
    busy(lab, 3)
    parts: dict = {}
    checkpoint(lab, parts)
    made = lab.cluster._chunks[0]
    assert len(made) == 6_000 // CHUNK
    lab.apply("take_down", {"server": "B", "ms": 30_000})
    lab.apply("burst", {"count": 2_000})
    lab.apply("kill_primary", {})
    lost = lab.apply("promote", {"server": "C"})[0]["lost_count"]
    assert lost == 2_000  # C had none of the burst
    assert len(lab.cluster.log) == 6_000 >= len(made) * CHUNK
    assert [r for c in made for r in c.items] == lab.cluster.log[: len(made) * CHUNK]
