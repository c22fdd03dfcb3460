/**
 * The shapes of the hash-placement lab, as JSDoc types for the checker: the snapshot, the
 * metrics and the lookup event the server sends (simulators/labs/hash_placement/lab.py,
 * `snapshot()`, `metrics()`, `do_lookup`), and what the cards pass between their helpers
 * (a plan, a dot's motion, the SVG circles that record the dots). Nothing imports this
 * module at run time: `@import { HashSnapshot } from "./types.js"`.
 */

// ---- what the server sends ------------------------------------------------------------

/** @typedef {"mod" | "partitions" | "ring"} Scheme */

/**
 * One sample key, drawn as a dot (the same keys in every snapshot of a key set).
 * @typedef {object} SampleKey
 * @property {number} id its index in the key set
 * @property {string} key
 * @property {number} hash MurmurHash3, 0 … 2^32 − 1
 * @property {number} slot Redis Cluster's slot, 0 … 16,383
 * @property {Record<Scheme, string>} where its shard under each scheme
 */

/**
 * The hot key: a share of all requests asks for it.
 * @typedef {object} HotKey
 * @property {string} key
 * @property {number} share_percent
 * @property {number} hash
 * @property {number} slot
 * @property {Record<Scheme, string>} where
 */

/**
 * The fixed partitions' table, as runs of one owner: [first, after the last, shard].
 * @typedef {object} PartitionTable
 * @property {number} count
 * @property {"murmur3" | "crc16"} hash crc16: Redis Cluster's 16,384 slots
 * @property {[number, number, string][]} runs
 */

/**
 * The ring: every token, ascending, and its shard.
 * @typedef {object} RingTable
 * @property {number} vnodes tokens per shard
 * @property {[number, string][]} tokens
 */

/**
 * The lab's snapshot.
 * @typedef {object} HashSnapshot
 * @property {string[]} shards
 * @property {{ kind: string, count: number }} keys the key set
 * @property {HotKey | null} hot_key
 * @property {{ mod: { shard_count: number }, partitions: PartitionTable, ring: RingTable }} schemes
 * @property {SampleKey[]} sample
 */

/**
 * One scheme's numbers (lab.py, `metrics`; stats.py).
 * @typedef {object} SchemeNumbers
 * @property {Record<string, number>} per_shard keys per shard, every shard named
 * @property {number} mean
 * @property {number} max
 * @property {number} stddev
 * @property {number} max_over_mean
 * @property {number} moved keys the last change moved
 * @property {number} moved_fraction of all keys, 0..1
 * @property {Record<string, number>} sent rows each shard sent in the last change
 * @property {Record<string, number>} received
 * @property {Record<string, number>} request_share percent of requests per shard
 */

/**
 * The lab's metrics.
 * @typedef {{ total_keys: number, schemes: Record<Scheme, SchemeNumbers> }} HashMetrics
 */

/** @typedef {{ hash: number, shard_count: number, remainder: number, shard: string }} ModPath */

/**
 * `value`: the Redis slot (crc16) or the hash (murmur3).
 * @typedef {{ hash_fn: "murmur3" | "crc16", value: number, partition: number,
 *   partition_count: number, shard: string }} PartitionsPath
 */

/** @typedef {{ hash: number, token: number, shard: string }} RingPath */

/**
 * A looked-up key's way through each scheme (lab.py, `do_lookup`).
 * @typedef {{ mod: ModPath, partitions: PartitionsPath, ring: RingPath }} LookupPaths
 */

/**
 * A `lookup` event.
 * @typedef {object} Lookup
 * @property {"lookup"} type
 * @property {string} key
 * @property {number} hash
 * @property {number} slot
 * @property {LookupPaths} paths
 */

// ---- what the card's helpers pass each other --------------------------------------------

/** @typedef {{ x: number, y: number }} Point */

/** @typedef {{ x: number, y: number, w: number, h: number }} Box a bin's rectangle */

/** @typedef {{ r: number, g: number, b: number }} RGB a colour, 0..255 each */

/**
 * A piece of a motion: from one point to another between two instants (timeline.js).
 * @typedef {object} Segment
 * @property {Point} from
 * @property {Point} to
 * @property {number} start ms
 * @property {number} end ms
 * @property {number} lift px, mid-way (a key's flight)
 */

/**
 * How a dot is drawn at one instant: where, how big, in what colour, how opaque.
 * @typedef {{ x: number, y: number, r: number, fill: RGB, alpha?: number }} DotState
 */

/**
 * How a dot at rest is drawn (painter.js, `remember`).
 * @typedef {DotState & { moved: boolean }} RestingDot
 */

/**
 * A dot as the painter drew it in its last frame.
 * @typedef {RestingDot & { alpha: number, rim: number, layer: number }} PaintedDot
 */

/**
 * A motion for the painter (painter.js, `animate`).
 * @typedef {object} Motion
 * @property {number} end ms
 * @property {number} layer 0 ring dots, 1 bin dots, 2 flying bin dots
 * @property {number} rim the outline's width
 * @property {(ms: number) => DotState} state
 * @property {(node: DotNode) => void} done writes the final state on the circle
 * @property {(ms: number) => boolean} [moved] outlined as moved (else the circle's class says)
 * @property {boolean} [track] keep `node.__pos`
 */

/**
 * A key dot's SVG circle, the record the painter draws from, with what the helpers keep
 * on it: where it is drawn now (`__pos`), whether it moved in the last change
 * (`__moved`), how it is drawn at rest (`__rest`) and as last painted (`__drawn`).
 * @typedef {SVGElement & { __pos?: Point, __moved?: boolean, __rest?: RestingDot,
 *   __drawn?: PaintedDot | null }} DotNode
 */

/**
 * A bin in a plan: its box before, during and after the change.
 * @typedef {object} PlannedBin
 * @property {string} shard
 * @property {Box} from
 * @property {Box} mid
 * @property {Box} to
 * @property {boolean} entering
 * @property {boolean} leaving
 * @property {Segment[]} [segments] its corner's motion (bins.js)
 */

/**
 * A bin dot in a plan: its key, its shard, and its motion.
 * @typedef {object} PlannedDotBase
 * @property {number} id
 * @property {string} key
 * @property {string} shard
 * @property {Segment[]} segments
 */

/** @typedef {PlannedDotBase & { flies: false }} StillDot a key that stays on its shard */

/**
 * A key that changes shard, and when it flies (ms).
 * @typedef {PlannedDotBase & { flies: true, departsAt: number, landsAt: number }} FlyingDot
 */

/** @typedef {StillDot | FlyingDot} PlannedDot */

/**
 * The phases of a change, in ms (plan.js, `timing`).
 * @typedef {object} Times
 * @property {number} enterMs
 * @property {number} staggerMs
 * @property {number} flightMs
 * @property {number} flightStart
 * @property {number} leaveStart
 * @property {number} total
 * @property {number} countStart
 * @property {number} countEnd
 * @property {number} recolourMs
 */

/** @typedef {{ bins: PlannedBin[], dots: PlannedDot[], times: Times }} Plan */

/**
 * Where things are drawn now (bins.js, `current`): key dots by id, bins by shard.
 * @typedef {{ dots: Map<number, Point>, bins: Map<string, Point & { to: Box }> }} Drawn
 */

/**
 * Each shard's slots, in order: a key's id, or null for a hole (slots.js).
 * @typedef {Map<string, (number | null)[]>} Slots
 */

/**
 * A d3 selection of one group of a card's SVG.
 * @typedef {import("d3").Selection<SVGGElement, unknown, null, undefined>} Group
 */

export {};
