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
    """(expected value, stale, the latest write completed before the read or None)."""
    latest = None
    done_before = []
    for write in cluster.writes.values():
        if write.status == "ok" and write.complete_step < read.invoke_step:
            done_before.append(write)
            if latest is None or write.complete_step > latest.complete_step:
                latest = write
    expected = latest.value if latest else cluster.first_value
    returned = read.write_id
    if returned == 0:
        finished_step = 0  # the initial value: written before anything happened
    else:
        source = cluster.writes[returned]
        if source.status != "ok":
            return expected, False, latest
        finished_step = source.complete_step
    stale = any(w.invoke_step > finished_step for w in done_before)
    return expected, stale, latest
