"""Whether a read was stale, and what it should have returned.

Definitions, in real time (the cluster's `step` order, which breaks ties inside one
millisecond in the order things happened):

- A write *completed before* a read when the write was acknowledged (status ok) before
  the read was invoked.
- A write X is *superseded* by a write Y when X completed before Y was invoked and Y
  completed successfully. The initial value counts as a write completed before
  everything. Writes that overlap in time are concurrent: neither supersedes the other.
  A failed write (or one still pending) is never superseded: its outcome is unknown, so
  it may take effect at any later moment, and it supersedes nothing.
- A read is **stale** when the value it returned belongs to a write that was superseded
  by a write completed before the read was invoked.
- What the read *should have returned* (`expected`) is the value of the write that
  completed last before the read was invoked (the initial value if none did). A read can
  differ from it without being stale: when it returned a concurrent write or a failed
  write, for instance.
"""


def judge_read(read, cluster) -> tuple:
    """(expected value, stale, the latest write completed before the read or None).

    Writes acknowledged before the read was invoked are a prefix of
    `cluster.acknowledged` (kept in the order they were acknowledged), found by
    bisection: the read costs the same however long the history is.
    """
    done = cluster.acknowledged
    before = done.bisect(read.invoke_step, key=_complete_step)
    latest = cluster.ops[done[before - 1][2] - 1] if before else None
    expected = latest.value if latest else cluster.first_value
    returned = read.write_id
    if returned == 0:
        finished_step = 0  # the initial value: written before anything happened
    else:
        source = cluster.ops[returned - 1]
        if source.status != "ok":
            return expected, False, latest
        finished_step = source.complete_step
    # stale when a write invoked after the returned one finished was acknowledged
    # before the read began: the latest invocation among them says
    stale = before > 0 and done[before - 1][1] > finished_step
    return expected, stale, latest


def _complete_step(acknowledged: tuple) -> int:
    return acknowledged[0]
