"""Snapshot deltas: what changed between two consecutive snapshots of a lab.

A frame carries the lab's whole snapshot so any client can draw from it, but most of a
snapshot stays the same from one action to the next (hash-placement's 240 sample keys,
a network lab's nodes and links). When the changes are clearly smaller than the whole,
the frame carries `patch` instead of `snapshot`: a list of operations the client applies
to the snapshot of the frame before (which every client has: a hello carries a whole
snapshot, and frames arrive in order).

Operations, applied in order:
- `["s", path, value]`: set the value at `path` (a list of object keys and list
  indexes), creating nothing else;
- `["d", path]`: delete the object key at `path`.
Lists are patched item by item when their length is unchanged, else replaced whole.
"""

import json
from typing import Any

# Send a patch only when it is at most this share of the whole snapshot's size.
PATCH_SHARE = 0.5


def diff(
    old: Any,
    new: Any,
    path: list | None = None,
    out: list | None = None,
    within: list[float] | None = None,
) -> list:
    """The operations that turn `old` into `new` (JSON-like values).

    `within`: a one-item list holding how many characters the operations' JSON may
    take; each operation takes at least its `_least_chars` from it, and `TooLong` is
    raised as soon as it runs out (a frame whose patch could not be sent stops early).
    """
    path = [] if path is None else path
    out = [] if out is None else out
    if isinstance(old, dict) and isinstance(new, dict):
        for key in old:
            if key not in new:
                _add(out, ["d", [*path, key]], within)
        for key, value in new.items():
            if key not in old:
                _add(out, ["s", [*path, key], value], within)
            elif not _same(old[key], value):
                diff(old[key], value, [*path, key], out, within)
        return out
    if isinstance(old, list) and isinstance(new, list) and len(old) == len(new):
        for index, (a, b) in enumerate(zip(old, new, strict=True)):
            if not _same(a, b):
                diff(a, b, [*path, index], out, within)
        return out
    _add(out, ["s", path, new], within)
    return out


class TooLong(Exception):
    """The operations would take more characters than `diff` was given."""


def _add(out: list, operation: list, within: list[float] | None) -> None:
    out.append(operation)
    if within is not None:
        within[0] -= _least_chars(operation)
        if within[0] < 0:
            raise TooLong


def _least_chars(operation: list) -> int:
    """At most the length of `operation` in compact JSON, and of the comma after it
    in a list of them: `["s",[`, the path, `],`, the value, `]`, `,` (a string at
    least its characters and quotes, any other step or value at least one)."""
    chars = 10 + max(0, len(operation[1]) - 1)  # brackets, the kind, commas
    for step in operation[1]:
        chars += len(step) + 2 if isinstance(step, str) else 1
    if len(operation) == 3:
        value = operation[2]
        chars += len(value) + 2 if isinstance(value, str) else 1
    else:
        chars -= 2  # ["d",[...]]: no value, nor the comma before it
    return chars


def _same(a: Any, b: Any) -> bool:
    # 1 == 1.0 == True in Python, but not in JSON: compare types too, all the way
    # down ({"d": False} == {"d": 0} in Python)
    if type(a) is not type(b) or a != b:
        return False
    if isinstance(a, dict):
        return all(_same(value, b[key]) for key, value in a.items())
    if isinstance(a, list):
        return all(_same(x, y) for x, y in zip(a, b, strict=True))
    return True


def patch(value: Any, operations: list) -> Any:
    """Apply `operations` to `value` in place; returns it (a root set replaces it)."""
    for operation in operations:
        kind, path = operation[0], operation[1]
        if not path:
            value = operation[2]
            continue
        parent = value
        for step in path[:-1]:
            parent = parent[step]
        if kind == "d":
            del parent[path[-1]]
        else:
            parent[path[-1]] = operation[2]
    return value


def frame_body(previous: dict | None, snapshot: dict, snapshot_text: str) -> dict:
    """`{"snapshot": ...}` or, when clearly smaller, `{"patch": [...]}`."""
    if previous is None:
        return {"snapshot": snapshot}
    most = PATCH_SHARE * len(snapshot_text)
    try:  # a patch that could not be sent is not worked out to its end
        operations = diff(previous, snapshot, within=[most + 1])
    except TooLong:
        return {"snapshot": snapshot}
    if not operations:
        return {"patch": []}
    size = len(json.dumps(operations, separators=(",", ":")))
    if size <= PATCH_SHARE * len(snapshot_text):
        return {"patch": operations}
    return {"snapshot": snapshot}
