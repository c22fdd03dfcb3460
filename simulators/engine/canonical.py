"""Canonical JSON and digests: one encoding of a state, so equal states hash equally."""

import hashlib
import json
from typing import Any


def canonical_json(value: Any) -> str:
    """Encode `value` with sorted keys and no spaces; refuse NaN and infinity."""
    return json.dumps(
        value,
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=False,
        allow_nan=False,
    )


def digest_of(value: Any) -> str:
    """SHA-256 of the canonical JSON of `value`, as hex."""
    return hashlib.sha256(canonical_json(value).encode("utf-8")).hexdigest()


class Chain:
    """A digest of values added one at a time, each once: a long past in O(1).

    A lab whose past only grows (settled operations: simulators/engine/ledger.py)
    folds each item into the chain once, and its digest covers the chain instead of
    encoding the whole past on every frame.
    """

    __slots__ = ("count", "hex")

    def __init__(self) -> None:
        self.count = 0
        self.hex = ""

    def __getstate__(self):
        return (self.count, self.hex)

    def __setstate__(self, state) -> None:
        self.count, self.hex = state

    def add(self, value: Any) -> None:
        text = self.hex + canonical_json(value)
        self.hex = hashlib.sha256(text.encode("utf-8")).hexdigest()
        self.count += 1
