/**
 * The replication lab's snapshot, as JSDoc types for the checker: the shapes
 * simulators/labs/replication/lab.py's `snapshot()` sends. Nothing imports this module
 * at run time; a module names a type with `@import { RpSnapshot } from "./types.js"`.
 */

/** @import { Snapshot } from "../../types.js" */

/**
 * One server as the lab shows it (`_server_view`).
 * @typedef {object} RpServer
 * @property {string} id
 * @property {string} place "zone", "region" or "ocean"
 * @property {string} mode "sync" or "async"
 * @property {string} role "primary" or "replica"
 * @property {boolean} up
 * @property {number} received the last record it has
 * @property {number} applied the last record it applied
 * @property {number} buffered
 * @property {number} tail records a stopped server holds past `received`
 * @property {number} lag_records
 * @property {number} lag_ms
 * @property {number | null} back_at_ms
 * @property {{ana: string, ben: string, position: string}} rows the rows' values there
 */

/**
 * A log record (`_record_view`); `committed` in the snapshot's log.
 * @typedef {object} RpRecord
 * @property {number} lsn
 * @property {string} row
 * @property {string} value
 * @property {number} op the operation that wrote it
 * @property {number} written_ms
 * @property {boolean} [committed]
 */

/**
 * An acknowledged write a failover lost (`_lost_view`): when its commit was returned.
 * @typedef {RpRecord & {committed_ms: number}} RpLostRecord
 */

/**
 * A client's write or read (`Op.as_dict`); `invoke` and `complete` are `[ms, step]`.
 * @typedef {object} RpOp
 * @property {number} id
 * @property {string} client "ana", "ben" or "fleet"
 * @property {"read" | "write"} kind
 * @property {string} row
 * @property {string | null} value null: a read not answered yet
 * @property {[number, number]} invoke
 * @property {[number, number] | null} complete
 * @property {"ok" | "fail" | "info" | null} outcome null: still running
 * @property {string} asked the server asked
 * @property {string | null} server the server that answered
 * @property {number | null} lsn
 * @property {string | null} reason
 * @property {string | null} expected
 * @property {boolean | null} stale
 * @property {number} attempts
 * @property {boolean} lost
 */

/**
 * The last failover (`last_promotion`).
 * @typedef {object} RpPromotion
 * @property {string} server
 * @property {number} at_ms
 * @property {number} lost_count
 * @property {number} unacknowledged
 */

/**
 * The history checker's verdict (simulators/engine/history.py, `as_dict`).
 * @typedef {object} RpVerdict
 * @property {boolean | null} ok null: past its work limit
 * @property {string} explanation
 * @property {Record<string, unknown>} params
 * @property {number[]} witness
 */

/**
 * The replication lab's snapshot (the fields its drawing reads).
 * @typedef {Snapshot & {
 *   playback: import("../../types.js").Playback,
 *   servers: RpServer[],
 *   primary: string | null,
 *   acks: string,
 *   read_your_writes: string,
 *   blocked_by: string[],
 *   log: {length: number, committed: number, records: RpRecord[]},
 *   lost: {last: RpLostRecord[], last_count: number, total: number, unacknowledged: number,
 *     promotion: RpPromotion | null},
 *   lag: Record<string, [number, number, number][]>,
 *   history: RpOp[],
 *   history_total: number,
 *   read_your_writes_verdict: RpVerdict | null,
 * }} RpSnapshot
 */

export {};
