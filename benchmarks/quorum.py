"""quorum's own rows of `make bench` (benchmarks/__main__.py finds this module by the
lab's slug): the stale-read counter, timed beside the engine it runs on
(benchmarks/network_engine.py), and 200 messages in flight in Chromium
(benchmarks/browser_network_fps.py)."""

from benchmarks.network_engine import quorum_rows
from benchmarks.timing import Row


def rows(repeat: int, keys: int) -> list[Row | str]:
    """The stale-read counter: 5,000 seeded trials under three configurations."""
    return quorum_rows(repeat)


def browser_rows(repeat: int) -> list:
    """The quorum lab at 200 messages in flight, its frame times in Chromium."""
    from benchmarks.browser_network_fps import network_rows

    return network_rows(repeat)
