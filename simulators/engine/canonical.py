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
