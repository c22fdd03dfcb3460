/**
 * The shapes of the scatter-gather lab's snapshot and metrics, as JSDoc types for the
 * checker (simulators/labs/scatter_gather/lab.py, `snapshot()` and `metrics()`). Nothing
 * imports this module at run time: `@import { GatherSnapshot } from "./types.js"`.
 */

/**
 * One shard behind the router.
 * @typedef {object} ShardInfo
 * @property {number} id numbered from 0
 * @property {number} slow_factor 1: answers at the normal speed
 * @property {number} flights the rows it holds
 */

/**
 * One asked shard's answer (latency.py, `draw_answers`; lab.py, `_ask`).
 * @typedef {object} Answer
 * @property {number} shard
 * @property {number} latency_us
 * @property {number} slow_factor
 * @property {number} rows
 */

/**
 * A flight's row (schedule.py, `Row.as_dict`); on a board or written, with its shard.
 * @typedef {object} Flight
 * @property {number} flight_id
 * @property {string} number
 * @property {string} origin
 * @property {string} destination
 * @property {string} departure_time HH:MM
 * @property {string} aircraft
 * @property {number} [shard]
 * @property {boolean} [in_global_index] a written flight: the global index has it yet
 */

/**
 * What every query has: the `query` event (lab.py, `_ask`) with its plan's facts.
 * @typedef {object} QueryBase
 * @property {number} shards_asked
 * @property {Answer[]} answers in the order asked
 * @property {number[]} arrival_order shard ids, first answer first
 * @property {number} slowest the shard the merge waited for
 * @property {number} latency_us when the slowest answered
 * @property {number} index_lookups
 * @property {number} ranges
 * @property {number} rows
 * @property {string} sql
 */

/**
 * The last query, with its kind's own facts (queries.py, the `plan_` methods).
 * @typedef {QueryBase & (
 *   { kind: "by_key", flight_id: number, flight: Flight }
 *   | { kind: "scatter", now: string }
 *   | { kind: "board", airport: string, placement: string, board: Flight[] }
 *   | { kind: "aircraft_history", aircraft: string, placement: string, from: string, to: string }
 *   | { kind: "index", index: "local" | "global", column: string, value: string,
 *       index_shard: number | null, flight_ids: number[], missed: number[] }
 * )} Query
 */

/**
 * The gathered answer's p50 and p99 at one N, in theory (latency.py, `analytic_curve`).
 * @typedef {object} CurvePoint
 * @property {number} shards N
 * @property {number} p50_us
 * @property {number} p99_us
 */

/**
 * The gathered answer's p50 and p99 at one N, measured (latency.py, `measure_curve`).
 * @typedef {CurvePoint & { analytic_p50_us: number, analytic_p99_us: number,
 *   within_analytic_p99: number, on_ladder: boolean }} MeasuredPoint
 */

/**
 * The last measurement of the tail.
 * @typedef {object} Measured
 * @property {number} count simulated queries at each N
 * @property {number} shard_count
 * @property {[number, number][]} slow [shard, factor] of the shards slowed then
 * @property {MeasuredPoint[]} points
 */

/**
 * The lab's snapshot.
 * @typedef {object} GatherSnapshot
 * @property {number} shard_count
 * @property {ShardInfo[]} shards
 * @property {{ median_us: number, sigma: number, p99_us: number }} latency_model
 * @property {Query | null} last_query
 * @property {Measured | null} measured
 * @property {Flight[]} written the flights written, with their shard
 */

/**
 * The lab's metrics (the renderer reads the tail's curve).
 * @typedef {object} GatherMetrics
 * @property {CurvePoint[]} analytic N = 1, 2, 4 … 64 and the current N
 */

export {};
