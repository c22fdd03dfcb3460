"""Interleavings of the clients' steps: named, checked, drawn and all played.

An interleaving (an "order") lists every step of every client once, each client's
steps in their own program order. With c clients of s steps there are (c·s)! / (s!)^c
of them: 20 for two clients of three steps, 1,680 for three, 369,600 for four.
"""

from math import factorial
from random import Random

from simulators.labs.rate_limit_race.programs import (
    LIMIT,
    START,
    STEP_COUNTS,
    Key,
    run_step,
)

CLIENT_NAMES = ("A", "B", "C", "D")
EXAMPLES = 3  # overshooting orders an enumeration reports, the first ones it meets


def step_ids(mode: str, clients: int) -> list[list[str]]:
    """Each client's step ids in program order: [["A1", "A2", "A3"], ["B1", …]]."""
    steps = STEP_COUNTS[mode]
    return [
        [f"{name}{n}" for n in range(1, steps + 1)] for name in CLIENT_NAMES[:clients]
    ]


def ordering_count(mode: str, clients: int) -> int:
    """How many interleavings the clients' programs have: (c·s)! / (s!)^c."""
    steps = STEP_COUNTS[mode]
    return factorial(clients * steps) // factorial(steps) ** clients


def round_robin(mode: str, clients: int) -> list[str]:
    """The course's order: every client's first step, then every second one …"""
    programs = step_ids(mode, clients)
    return [program[i] for i in range(len(programs[0])) for program in programs]


def shuffled(mode: str, clients: int, rng: Random) -> list[str]:
    """An interleaving drawn uniformly: the clients' turns shuffled, then numbered."""
    steps = STEP_COUNTS[mode]
    turns = [i for i in range(clients) for _ in range(steps)]
    rng.shuffle(turns)
    done = [0] * clients
    order = []
    for i in turns:
        done[i] += 1
        order.append(f"{CLIENT_NAMES[i]}{done[i]}")
    return order


def split_order(text: str) -> list[str]:
    """The step ids in `text`, separated by spaces or commas, in upper case."""
    return [token.upper() for token in text.replace(",", " ").split()]


def order_problem(tokens: list[str], mode: str, clients: int) -> tuple | None:
    """What is wrong with an order, as (code, step or steps), or None if it is sound.

    Checked in this order: a step that is not one of the race's, a step named twice,
    steps missing, and a client's step before one that comes earlier in its program.
    """
    programs = step_ids(mode, clients)
    known = {
        step: (client, n)
        for client, ids in enumerate(programs)
        for n, step in enumerate(ids)
    }
    for token in tokens:
        if token not in known:
            return "unknown_step", token
    seen = set()
    for token in tokens:
        if token in seen:
            return "step_twice", token
        seen.add(token)
    missing = [step for ids in programs for step in ids if step not in seen]
    if missing:
        return "missing_step", missing
    ran = [0] * clients
    for token in tokens:
        client, n = known[token]
        if n != ran[client]:
            return "out_of_order", (token, programs[client][ran[client]])
        ran[client] += 1
    return None


def every_ordering(mode: str, clients: int, key: Key, admitted: int) -> dict:
    """Play every interleaving from the same start (`key`, `admitted` before it).

    A depth-first walk over the interleavings, lowest client first at each place (so
    the orders come in lexicographic order): every order is played to its end, and
    orders that begin alike share the steps they begin with, played once. No time
    passes during a race.
    """
    steps = STEP_COUNTS[mode]
    programs = step_ids(mode, clients)
    totals: dict[int, int] = {}
    examples: list[list[str]] = []
    path: list[str] = []
    progress = [0] * clients
    local = [START] * clients

    def walk(key: Key, count: int, left: int) -> None:
        if left == 0:
            totals[count] = totals.get(count, 0) + 1
            if count > LIMIT and len(examples) < EXAMPLES:
                examples.append(list(path))
            return
        for i in range(clients):
            number = progress[i] + 1
            if number > steps:
                continue
            before = local[i]
            ran = run_step(mode, number, key, before, 0)
            progress[i], local[i] = number, ran.local
            path.append(programs[i][number - 1])
            admits = ran.local.admitted is True and before.admitted is not True
            walk(ran.key, count + admits, left - 1)
            path.pop()
            progress[i], local[i] = number - 1, before

    walk(key, admitted, clients * steps)
    orderings = sum(totals.values())
    over = sum(n for total, n in totals.items() if total > LIMIT)
    return {
        "orderings": orderings,
        "overshooting": over,
        "worst_admitted": max(totals),
        "fewest_admitted": min(totals),
        "by_admitted": [[total, totals[total]] for total in sorted(totals)],
        "examples": [" ".join(order) for order in examples],
    }
