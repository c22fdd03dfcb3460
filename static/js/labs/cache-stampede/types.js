/**
 * The cache-stampede lab's snapshot, metrics and events, as JSDoc types for the checker:
 * the shapes simulators/labs/cache_stampede/lab.py's `snapshot()`, `metrics()` and
 * `collect_events()` send (a lane's parts: sim.py's `Lane.view`, `numbers` and `take`).
 * Times are virtual microseconds (`_us`). Nothing imports this module at run time; a
 * module names a type with `@import { CsSnapshot } from "./types.js"`.
 */

/** @import { Playback, Snapshot } from "../../types.js" */

/**
 * A board in a lane's cache.
 * @typedef {object} CsEntry
 * @property {number} version the database's version it was built from
 * @property {number} computed_us
 * @property {number} expiry_us
 * @property {number} delta_us how long its query took (XFetch's δ)
 */

/**
 * A refill of a board: the identical queries it took, when the first was sent, when the
 * board it replaced expired, when it landed; `early` when before that expiry.
 * @typedef {object} CsRefill
 * @property {number} queries
 * @property {number} started_us
 * @property {number} expiry_us
 * @property {number} at_us
 * @property {boolean} early
 */

/**
 * A `refilled` event: a refill in `lane` of `board` (its code).
 * @typedef {CsRefill & {type: "refilled", lane: string, board: string}} CsRefillEvent
 */

/**
 * A query running: `[board, why (outcome code), sent, started, done, reader's arrival]`.
 * @typedef {[number, number, number, number, number, number]} CsRunning
 */

/**
 * One lane as the snapshot has it (`Lane.view`). `history`: 100 ms buckets, each
 * `[start, reads, hits, queries, peak in flight, age, stale, p50, p99]`.
 * @typedef {object} CsLaneView
 * @property {string} strategy
 * @property {Record<string, CsEntry>} boards by board number
 * @property {[number, number][]} locks `[board, held until]`
 * @property {CsRunning[]} running
 * @property {number} queued how many wait in the database's queue
 * @property {number[]} queued_boards
 * @property {number[]} waiting readers waiting for the lock: their boards
 * @property {number} memory_used_mb
 * @property {Record<string, CsRefill>} last_refills by board number
 * @property {number[][]} history
 */

/**
 * One cache server: the boards it holds and the reads they had.
 * @typedef {{id: number, boards: string[], reads: number}} CsServer
 */

/**
 * The cache-stampede lab's snapshot.
 * @typedef {Snapshot & {
 *   playback: Playback,
 *   seed: number,
 *   now_us: number,
 *   strategy: string,
 *   rate: number,
 *   ttl_ms: number,
 *   query_ms: number,
 *   db_limit: number,
 *   beta: string,
 *   memory_mb: number,
 *   cache_servers: number,
 *   airports: string[],
 *   hot: {board: string, share: number},
 *   hot_expiry_us: number | null,
 *   readers_until_us: number,
 *   servers: CsServer[],
 *   lanes: CsLaneView[],
 *   updates: {board: string, at_us: number, version: number}[],
 *   model: {cache_rtt_us: number, poll_us: number, max_polls: number, lock_ex_us: number,
 *     bucket_us: number, x_bin: number, x_bins: number, outcomes: string[]},
 * }} CsSnapshot
 */

/**
 * A lane's numbers (`Lane.numbers`): totals since the start, the last second, and
 * XFetch's bins (`[reads, early refreshes]` each; null in a lane without XFetch).
 * @typedef {object} CsLaneNumbers
 * @property {number} reads
 * @property {number} hits
 * @property {number} queries
 * @property {number} early
 * @property {number} waited
 * @property {number} gave_up
 * @property {number} busy
 * @property {number} polls
 * @property {number} evictions
 * @property {number} peak_in_flight
 * @property {number} most_refills_at_once
 * @property {number} max_stale_us
 * @property {number} max_age_us
 * @property {number} in_flight
 * @property {number} queued
 * @property {number} waiting
 * @property {{seconds: number, reads: number, hits: number, queries: number, hit_rate: number | null}} last_second
 * @property {[number, number][] | null} xfetch_bins
 */

/**
 * The lab's metrics.
 * @typedef {object} CsMetrics
 * @property {number} now_ms
 * @property {number} rate
 * @property {Record<string, CsLaneNumbers>} lanes by strategy
 * @property {number | null} queries_per_s_expected
 * @property {number} hot_server
 * @property {Record<string, number>} reads_by_board
 */

/**
 * A lane's part of the `reads` event (`Lane.take`): the reads drawn, each `[arrival,
 * board, outcome, sent, started, done, polls]` (−1: no query), and the boards evicted.
 * @typedef {object} CsEnded
 * @property {number[][]} reads
 * @property {number} ended
 * @property {number[]} evicted
 * @property {number} evicted_other
 */

export {};
