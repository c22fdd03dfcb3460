/**
 * The shapes of the range-splits lab's snapshot and metrics, as JSDoc types for the
 * checker (simulators/labs/range_splits/lab.py, `snapshot()` and `metrics()`). Nothing
 * imports this module at run time: `@import { RangeSnapshot } from "./types.js"`.
 * Records keyed by placement name hold "size" and "load" (the two range tables) and, where
 * hash placement counts too, "hash"; records keyed by shard name hold every shard.
 */

/** @typedef {"size" | "load"} Policy a range table: split by size or by load */

/**
 * One row of a boundary table, in key order (table.py, `boundaries`).
 * @typedef {object} SliceRow
 * @property {number} id
 * @property {string} start its first key ("": the start of the key space)
 * @property {string | null} end the next slice's start (null: the end of the key space)
 * @property {string} shard
 * @property {number} keys
 * @property {number} writes written in the current second
 */

/**
 * One range table.
 * @typedef {object} RangeTable
 * @property {SliceRow[]} slices
 * @property {boolean} full
 * @property {number | null} newest the slice that took the latest write
 */

/**
 * A quarter second of the write heat: writes per shard, by placement.
 * @typedef {{ bucket: number } & { [placement: string]: Record<string, number> }} HeatColumn
 */

/**
 * The last range query (lab.py, `do_range_query`; a `range_read` event carries it too).
 * @typedef {object} RangeQuery
 * @property {string} low
 * @property {string} high
 * @property {number} keys the keys found
 * @property {Record<string, number[]>} slices the slices each range table read
 * @property {Record<string, string[]>} shards the shards each placement asked
 * @property {string[]} hash_holding the shards hash placement holds the keys on
 */

/**
 * The lab's snapshot.
 * @typedef {object} RangeSnapshot
 * @property {string[]} shards
 * @property {number} now_ms stream time
 * @property {number} writes
 * @property {{ max_keys: number, max_writes: number, window_ms: number, max_slices: number }} thresholds
 * @property {Record<string, RangeTable>} tables by policy
 * @property {{ bucket_ms: number, columns: HeatColumn[] }} heat
 * @property {RangeQuery | null} query
 */

/**
 * The lab's metrics.
 * @typedef {object} RangeMetrics
 * @property {number} writes
 * @property {number} keys
 * @property {Record<string, Record<string, number>>} keys_per_shard by placement, by shard
 * @property {Record<string, Record<string, number>>} minute_writes by placement, by shard
 * @property {Record<string, number>} hottest_share by placement
 */

export {};
