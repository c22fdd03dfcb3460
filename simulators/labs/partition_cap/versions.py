"""Versions of the flight's row, version vectors, and the three conflict rules.

A version is a plain JSON-safe dict, never changed once made:

    {"vv": {"A": 1}, "ts": 105, "writer": "A", "seats_remaining": 0,
     "bookings": [{"id": "Q7K2ZD", "passenger": "P0000001", "server": "A",
                   "ts": 105, "status": "confirmed"}]}

`vv` is the version vector: how many writes from each server the version includes
(servers with none are left out). `ts` is the writer's local clock when it wrote (true
time plus its skew), which is what last-writer-wins compares.

A copy holds a list of versions: usually one; two or more only under the siblings rule,
when concurrent versions have met and the next reader must choose. `merge` is
deterministic, commutative and idempotent over what the copies have seen, which is why
copies that have exchanged everything hold equal lists.
"""

from simulators.engine.canonical import canonical_json

ORDERED_BEFORE, ORDERED_AFTER, EQUAL, CONCURRENT = (
    "before",
    "after",
    "equal",
    "concurrent",
)


def initial_version(seats: int) -> dict:
    """The row before anyone books: `seats` left, no bookings, no writes."""
    return {"vv": {}, "ts": 0, "writer": "", "seats_remaining": seats, "bookings": []}


def compare(left: dict, right: dict) -> str:
    """How two version vectors relate: equal, before, after or concurrent."""
    less = more = False
    for server in sorted({*left, *right}):
        a, b = left.get(server, 0), right.get(server, 0)
        if a < b:
            less = True
        elif a > b:
            more = True
    if less and more:
        return CONCURRENT
    if less:
        return ORDERED_BEFORE
    if more:
        return ORDERED_AFTER
    return EQUAL


def join(vectors: list[dict]) -> dict:
    """The pointwise maximum: a vector that includes every write of every input."""
    out: dict[str, int] = {}
    for vector in vectors:
        for server, count in vector.items():
            if count > out.get(server, 0):
                out[server] = count
    return {server: out[server] for server in sorted(out)}


def vv_text(vector: dict) -> str:
    """`{A: 1, C: 1}`, as the lab writes a version vector."""
    return "{" + ", ".join(f"{s}: {vector[s]}" for s in sorted(vector)) + "}"


def _sort_key(version: dict) -> str:
    return canonical_json(version["vv"])


def maximal(versions: list[dict]) -> list[dict]:
    """The versions no other version includes, one per vector, in a fixed order.

    Equal vectors mean the same writes, so nearly always the same content; when the
    rule changed between two resolutions of the same conflict they differ, and the one
    with the smaller canonical JSON is kept, so every copy keeps the same one.
    """
    unique: dict[str, dict] = {}
    for version in versions:
        key = _sort_key(version)
        held = unique.get(key)
        if held is None or canonical_json(version) < canonical_json(held):
            unique[key] = version
    kept = [
        v
        for v in unique.values()
        if not any(compare(v["vv"], o["vv"]) == ORDERED_BEFORE for o in unique.values())
    ]
    return sorted(kept, key=_sort_key)


def rank_bookings(bookings: list[dict], seats: int) -> list[dict]:
    """The airline's rule: the seat goes to whoever booked first, the rest to standby.

    "First" is the booking's timestamp on the clock of the server that took it (ties
    broken by server, then booking reference), so the rule is the same on every copy.
    """
    by_id: dict[str, dict] = {}
    for booking in bookings:
        by_id.setdefault(booking["id"], booking)
    ordered = sorted(by_id.values(), key=lambda b: (b["ts"], b["server"], b["id"]))
    return [
        {**b, "status": "confirmed" if i < seats else "standby"}
        for i, b in enumerate(ordered)
    ]


def combine_app(versions: list[dict], seats: int) -> dict:
    """Every booking of every version kept; the seat by the airline's rule."""
    bookings = rank_bookings([b for v in versions for b in v["bookings"]], seats)
    confirmed = sum(1 for b in bookings if b["status"] == "confirmed")
    latest = max(versions, key=lambda v: (v["ts"], v["writer"]))
    return {
        "vv": join([v["vv"] for v in versions]),
        "ts": latest["ts"],
        "writer": latest["writer"],
        "seats_remaining": max(0, seats - confirmed),
        "bookings": bookings,
    }


def combine_lww(versions: list[dict]) -> dict:
    """The version with the latest timestamp wins (ties: the later server letter)."""
    winner = max(versions, key=lambda v: (v["ts"], v["writer"]))
    return {**winner, "vv": join([v["vv"] for v in versions])}


def resolve(versions: list[dict], rule: str, seats: int) -> list[dict]:
    """Apply the conflict rule to a list of concurrent versions."""
    if len(versions) <= 1 or rule == "siblings":
        return versions
    if rule == "lww":
        return [combine_lww(versions)]
    return [combine_app(versions, seats)]


def merge(local: list[dict], incoming: list[dict], rule: str, seats: int) -> dict:
    """What a copy holds after meeting `incoming`, and what the meeting found.

    Returns {"versions", "concurrent": the vectors that were concurrent (empty when the
    versions were ordered), "dropped": booking ids the rule threw away}.
    """
    top = maximal([*local, *incoming])
    concurrent = [v["vv"] for v in top] if len(top) > 1 else []
    result = resolve(top, rule, seats)
    before = booking_ids(top)
    after = set(booking_ids(result))
    dropped = [b for b in before if b not in after]
    return {"versions": result, "concurrent": concurrent, "dropped": dropped}


def booking_ids(versions: list[dict]) -> list[str]:
    """Every booking reference in a list of versions, each once, in order met."""
    seen: dict[str, bool] = {}
    for version in versions:
        for booking in version["bookings"]:
            seen.setdefault(booking["id"], True)
    return list(seen)


def base_for_write(versions: list[dict], seats: int) -> dict:
    """The version a new write starts from: siblings are folded by the airline's rule.

    (A client writing over siblings has read them all; it keeps every booking.)
    """
    if len(versions) == 1:
        return versions[0]
    return combine_app(versions, seats)


def with_booking(base: dict, booking: dict, server: str, ts: int) -> dict:
    """A new version: `base` plus one confirmed booking, written by `server` at `ts`."""
    vv = dict(base["vv"])
    vv[server] = vv.get(server, 0) + 1
    return {
        "vv": {s: vv[s] for s in sorted(vv)},
        "ts": ts,
        "writer": server,
        "seats_remaining": base["seats_remaining"] - 1,
        "bookings": [*base["bookings"], {**booking, "status": "confirmed"}],
    }


def seats_left(versions: list[dict], seats: int) -> int:
    """Seats a server believes it can still sell from this copy."""
    return base_for_write(versions, seats)["seats_remaining"]
