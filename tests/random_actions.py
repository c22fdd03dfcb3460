"""Random arguments for a lab's declared actions, shared by the tests that replay
seeded random histories (tests/server/test_links.py and
tests/simulators/test_snapshots_are_values.py)."""

import random

# texts a text parameter is given: node names, links, keys of the labs' own kinds
TEXTS = ["A", "B", "C", "A-B", "A-C", "B-C", "N12345", "P0000001", "{user1}:cart"]


def random_args(spec, rng: random.Random) -> dict:
    """Arguments for `spec` (an ActionSpec) drawn inside its declared bounds, kept
    small."""
    args = {}
    for param in spec.params:
        if param.kind == "int":
            top = min(param.maximum, param.minimum + 40)
            if spec.name == "advance":
                top = 400
            args[param.name] = rng.randint(param.minimum, top)
        elif param.kind == "choice":
            args[param.name] = rng.choice(param.choices)
        elif param.kind == "bool":
            args[param.name] = rng.random() < 0.5
        else:
            args[param.name] = rng.choice(TEXTS)
    return args
