/**
 * The two-phase-commit lab's shapes, as JSDoc types for the checker (docs/frontend.md,
 * "Checking the JavaScript"): what its snapshot and events carry
 * (simulators/labs/two_phase_commit/lab.py, `snapshot()`; cluster.py for the shards,
 * the coordinator, the transactions, the operations and the bank; histories.py for the
 * checker). Nothing imports this module at run time.
 */

/** @import { NetworkSnapshot } from "../../network/types.js" */
/** @import { Playback } from "../../types.js" */

/**
 * A log record: [record, transaction, detail] ("prepare", "commit", "abort", "end").
 * @typedef {[string, number, unknown]} LogRecord
 */

/**
 * A row of a shard, by its name's prefix: a seat ("seat:12A", value {passenger, fare}), a
 * booking ("booking:12A", value its passenger, "" when free) or an account ("acct:3",
 * value its balance); its lock and the writers queued for it ([txn, mode]).
 * @typedef {object} ShardRow
 * @property {string} row
 * @property {{passenger: string, fare: number} | string | number} value
 * @property {{mode: "S" | "X", holders: number[]} | null} lock
 * @property {[number, string][]} queue
 */

/**
 * A shard (`Shard.snapshot`).
 * @typedef {object} Shard
 * @property {string} id "flights" or "bookings"
 * @property {boolean} up
 * @property {ShardRow[]} rows
 * @property {number[]} prepared transactions prepared, waiting for the decision
 * @property {LogRecord[]} log the last records
 * @property {number} log_records
 * @property {number} log_writes forced writes
 * @property {number[]} waiting
 */

/**
 * A transaction as the coordinator holds it (`Txn.as_dict`).
 * @typedef {object} Txn
 * @property {number} id
 * @property {string} f
 * @property {string} mode "2pc", "independent" or "one"
 * @property {"running" | "voting" | "logging" | "committed" | "aborted"} state
 * @property {string[]} shards
 * @property {Record<string, string[]>} rows by shard
 * @property {Record<string, boolean>} votes by shard
 * @property {string[]} acks
 */

/**
 * The coordinator (`Coordinator.snapshot`).
 * @typedef {object} Coordinator
 * @property {"coordinator"} id
 * @property {boolean} up
 * @property {LogRecord[]} log the last records
 * @property {number} log_writes
 * @property {Txn[]} txns in memory
 * @property {number[]} unfinished decided, not yet acknowledged by every shard
 */

/**
 * What a transaction cost (`Txn.costs`).
 * @typedef {object} Costs
 * @property {number} txn
 * @property {string} f
 * @property {string} mode
 * @property {number} shards
 * @property {number} log_writes
 * @property {Record<string, number>} log_writes_by by server
 * @property {number} round_trips
 * @property {number} messages
 * @property {number | null} latency_ms
 */

/**
 * A client's operation as Jepsen records it (`Operation.as_dict`): `invoke` and
 * `complete` are [ms, step]; `value` by `f` (a read's: every account's balance, once
 * it returned ok).
 * @typedef {{
 *   id: number,
 *   client: string,
 *   kind: "read" | "write",
 *   invoke: [number, number],
 *   complete: [number, number] | null,
 *   outcome: "ok" | "fail" | "info" | null,
 *   route: string,
 *   resolved: "committed" | "aborted" | null,
 *   reason: string | null,
 * } & (
 *   | {f: "book", value: BookValue}
 *   | {f: "fare", value: FareValue}
 *   | {f: "transfer", value: TransferValue}
 *   | {f: "read", value: number[] | null}
 * )} TpOp
 */

/** @typedef {{seat: string, passenger: string}} BookValue a booking's */
/** @typedef {{seat: string, fare: number}} FareValue a change of fare's */
/** @typedef {{from: number, to: number, amount: number}} TransferValue a transfer's */
/** @typedef {{passenger: string, fare: number}} Seat a seat row's value */

/**
 * The bank workload (`Bank.snapshot`): `totals`, [ms, total, op] of every read that
 * returned.
 * @typedef {object} Bank
 * @property {boolean} running
 * @property {string[]} clients
 * @property {number} invoked
 * @property {number} limit
 * @property {number} total_now
 * @property {[number, number, number][]} totals
 * @property {number} reads_ok
 * @property {number} off reads that did not add up
 * @property {{op: number, at_ms: number, total: number} | null} first_off
 * @property {Record<string, number>} transfers by outcome
 */

/**
 * The bank checker's verdict (`Verdict.shown()`).
 * @typedef {object} Verdict
 * @property {string} promise
 * @property {boolean | null} ok
 * @property {number[]} witness
 * @property {string} [explanation]
 * @property {Record<string, string | number>} [params]
 */

/**
 * The lab's snapshot (`TwoPhaseCommitLab.snapshot()`).
 * @typedef {object} TpSnapshot
 * @property {Playback} [playback]
 * @property {NetworkSnapshot} [network]
 * @property {string} flight
 * @property {string[]} seats
 * @property {{account: number, shard: string}[]} accounts
 * @property {number} total what every read should add up to
 * @property {number} max_transfer
 * @property {string} mode "2pc" or "independent"
 * @property {string[]} modes
 * @property {string | null} trap when the coordinator will crash
 * @property {string[]} servers
 * @property {Coordinator} coordinator
 * @property {Shard[]} shards
 * @property {Txn[]} txns
 * @property {(Costs & {state: string})[]} recent
 * @property {{one_shard: Costs | null, two_shard: Costs | null}} costs the last of each
 * @property {TpOp[]} ops the latest
 * @property {number} ops_total
 * @property {Bank} bank
 * @property {{window: number[], verdicts: Verdict[]}} checker
 * @property {Record<string, number>} timing
 */

/**
 * The events describe.js words; `type` tells which.
 * @typedef {({type: "op_completed", op: number} & TpOp)
 *   | {type: "trap_set", point: string}
 *   | {type: "trap_sprung", point: string, txn: number}
 *   | {type: "crashed", node: string}
 *   | {type: "recovered", node: string, resent?: number[], prepared?: number[]}
 *   | {type: "decided", txn: number, decision: "commit" | "abort", reason?: string,
 *       logged?: boolean}
 *   | {type: "inquiry_answered", txn: number, shard: string, decision: "commit" | "abort",
 *       presumed: boolean}
 *   | {type: "resolved", op: number, resolved: "committed" | "aborted"}
 *   | {type: "total_off", op: number, at_ms: number, total: number}
 *   | {type: "bank_started", ops: number, mode: string}
 *   | {type: "bank_done", ops: number}
 *   | {type: "bank_stopped", invoked: number}
 *   | {type: "mode_set", mode: string, before: string, disarmed: string | null}} TpEvent
 */

export {};
