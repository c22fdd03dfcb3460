/**
 * The quorum lab's shapes, as JSDoc types for the checker (docs/frontend.md, "Checking the
 * JavaScript"): what its snapshot and metrics carry (simulators/labs/quorum/lab.py,
 * `snapshot()` and `metrics()`; cluster.py, trials.py and histories.py for the parts) and
 * its events. Nothing imports this module at run time.
 */

/** @import { NetworkSnapshot } from "../../network/types.js" */
/** @import { Playback } from "../../types.js" */

/**
 * A version: the writer's timestamp and the node that wrote it ("" for the first value).
 * @typedef {[number, string]} Version
 */

/**
 * A level: "ONE", "QUORUM", "ALL", or a count of copies.
 * @typedef {string | number} Level
 */

/**
 * A client's write or read (`Operation.as_dict()`).
 * @typedef {object} QuorumOp
 * @property {number} id
 * @property {"write" | "read"} kind
 * @property {string} coordinator
 * @property {Level} level
 * @property {number} needed how many copies must answer
 * @property {number} invoke_ms
 * @property {number | null} complete_ms
 * @property {"pending" | "ok" | "failed"} status
 * @property {number | null} value
 * @property {Version | null} version
 * @property {number | null} write the write a read returned
 * @property {number | null} expected what a read should have returned
 * @property {boolean | null} stale
 * @property {string[]} confirmed the first W ackers or R repliers
 * @property {string[]} late those who answered after that, before the timeout
 * @property {boolean} open
 * @property {Record<string, string>} stand_ins owner → the node that stood in for it
 */

/**
 * A node's copy of the row.
 * @typedef {object} Replica
 * @property {string} node
 * @property {number} value
 * @property {Version} version
 * @property {number | null} write
 */

/**
 * A write a node keeps for another (`Hint.as_dict()`); `stand_in`: it keeps it for an
 * owner its coordinator could not reach (sloppy quorum).
 * @typedef {object} Hint
 * @property {number} id
 * @property {string} holder
 * @property {string} target
 * @property {number} value
 * @property {Version} version
 * @property {number | null} write
 * @property {boolean} sending
 * @property {boolean} stand_in
 */

/**
 * The ring: how many nodes, their preference order, the row's owners.
 * @typedef {object} Ring
 * @property {number} nodes
 * @property {string[]} preference
 * @property {string[]} owners
 * @property {boolean} sloppy
 */

/**
 * The last read and the write before it, and the copies they share (`Cluster._overlap`).
 * @typedef {object} Overlap
 * @property {number} read
 * @property {number | null} write
 * @property {string[]} write_set
 * @property {string[]} read_set
 * @property {string[]} shared
 * @property {number | null} w
 * @property {number} r
 * @property {number} n
 */

/**
 * One side of a timestamp tie.
 * @typedef {{write: number, value: number, writer: string}} TieSide
 */

/**
 * Two writes stamped in the same millisecond (`Cluster._tie`; the `tie_broken` event too).
 * @typedef {object} Tie
 * @property {string} node
 * @property {number} timestamp_ms
 * @property {TieSide} kept
 * @property {TieSide} discarded
 * @property {boolean} later_lost
 * @property {number} at_ms
 */

/**
 * A batch of trials' configuration (`TrialConfig.as_dict()`).
 * @typedef {object} TrialConfig
 * @property {number} copies
 * @property {number} [nodes]
 * @property {boolean} [sloppy]
 * @property {number} w
 * @property {number} r
 * @property {string[]} cut
 * @property {string[]} stopped
 * @property {[string, number][]} skews
 * @property {boolean} read_repair
 * @property {boolean} hinted_handoff
 */

/**
 * What the last count of trials found (`_trials_view`: the batch, its config and
 * `TrialResults.as_dict()`).
 * @typedef {object} Trials
 * @property {number} batch
 * @property {TrialConfig} config
 * @property {number} trials
 * @property {number} stale
 * @property {number} reads_ok
 * @property {number} stale_fraction
 * @property {number} failed_writes
 * @property {number} failed_reads
 * @property {number | null} first_stale
 * @property {number} lost_writes
 */

/**
 * One skew of the ladder and what the trials lost at it.
 * @typedef {object} Rung
 * @property {number} skew_ms
 * @property {number} lost_writes
 * @property {number} stale
 * @property {number} acknowledged
 */

/**
 * Lost writes against one node's clock skew (the `skew_ladder` action).
 * @typedef {object} SkewLadder
 * @property {number} run
 * @property {string} node
 * @property {number} count
 * @property {TrialConfig} config
 * @property {Rung[]} rungs
 */

/**
 * The checker's verdict on one promise (`Verdict.shown()`): why, when it is broken or
 * could not be checked (ok null).
 * @typedef {object} Verdict
 * @property {string} promise "linearizable", "monotonic-reads", "read-your-writes"
 * @property {boolean | null} ok
 * @property {number[]} witness the operations that show it broken
 * @property {string} [explanation] English, translated through the hello's words
 * @property {Record<string, string | number>} [params]
 */

/**
 * The newest operations judged (histories.py, `verdicts_of`): the operations as rows
 * [id, kind, value, invoke step, complete step or null (unknown), outcome].
 * @typedef {object} Checker
 * @property {[number, string, number | null, number, number | null, string][]} ops
 * @property {Verdict[]} verdicts
 */

/**
 * The levels in force, how many copies they ask for, and whether they overlap.
 * @typedef {object} Levels
 * @property {Level} w
 * @property {Level} r
 * @property {number} w_needed
 * @property {number} r_needed
 * @property {boolean} overlap_guaranteed
 */

/**
 * The quorum lab's snapshot (`QuorumLab.snapshot()`; `replicas` to `tie` from
 * `Cluster.snapshot()`).
 * @typedef {object} QuorumSnapshot
 * @property {Playback} [playback]
 * @property {NetworkSnapshot} [network]
 * @property {{flight: string, column: string}} row
 * @property {number} copies N
 * @property {string[]} nodes
 * @property {string[]} coordinators "auto" and every running node
 * @property {string[]} link_ids
 * @property {Levels} levels
 * @property {boolean} read_repair
 * @property {boolean} hinted_handoff
 * @property {boolean} sloppy
 * @property {number} ring_nodes M
 * @property {number} skew_bound_ms
 * @property {number} timeout_ms
 * @property {number} next_value
 * @property {Replica[]} replicas
 * @property {Hint[]} hints
 * @property {Ring} ring
 * @property {Overlap | null} overlap
 * @property {Tie | null} tie
 * @property {QuorumOp[]} history the newest operations
 * @property {number} history_total
 * @property {Checker} checker
 * @property {Trials | null} trials
 * @property {SkewLadder | null} skew_ladder
 * @property {{batch: number, index: number} | null} replay the trial being replayed
 */

/**
 * The quorum lab's numbers (`QuorumLab.metrics()`: the cluster's tally, the messages and
 * the trials).
 * @typedef {object} QuorumMetrics
 * @property {number} reads
 * @property {number} writes
 * @property {number} completed_reads
 * @property {number} stale_reads
 * @property {number} stale_fraction
 * @property {number} failed_writes
 * @property {number} failed_reads
 * @property {number} repairs
 * @property {number} hints_stored
 * @property {number} hints_delivered
 * @property {number} messages_sent
 * @property {number} messages_lost
 * @property {Trials | null} trials
 */

// ---- events (describe.js words them) ---------------------------------------------------

/**
 * An operation that completed or failed: the operation, with `op` its id and `reason` why
 * it failed ("timeout", "coordinator_stopped"; null when it completed).
 * @typedef {QuorumOp & {op: number, reason?: string | null}} OpEnded
 */

/**
 * An operation that completed: a write's value, or what a read returned.
 * @typedef {OpEnded & {value: number}} OpCompleted
 */

/**
 * The quorum lab's events that the narrator words, by type (each also carries `type`).
 * @typedef {object} QuorumEvents
 * @property {{op: number, kind: "write" | "read", coordinator: string, level: Level,
 *   needed: number}} op_invoked
 * @property {OpCompleted} op_completed
 * @property {OpEnded} op_failed
 * @property {{node: string, value: number, version: Version, write: number | null, kept: boolean,
 *   cause: string, op: number | null}} copy_written
 * @property {Hint} hint_stored
 * @property {Hint} hint_delivered
 * @property {{link: string}} link_cut
 * @property {{link: string}} link_healed
 * @property {{node: string}} node_stopped
 * @property {{node: string}} node_restarted
 * @property {{node: string, skew_ms: number}} clock_skewed
 * @property {Levels & {copies: number}} levels_set
 * @property {{copies: number, clamped: boolean}} copies_set
 * @property {Ring} nodes_set
 * @property {{on: boolean}} sloppy_set
 * @property {{on: boolean}} read_repair_set
 * @property {{on: boolean}} hinted_handoff_set
 * @property {Trials} trials_run
 * @property {Tie} tie_broken
 * @property {SkewLadder} skew_ladder_run
 * @property {{batch: number, index: number, config: TrialConfig}} trial_replayed
 */

export {};
