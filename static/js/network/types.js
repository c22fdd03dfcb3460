/**
 * The shapes of the network drawing, as JSDoc types for the checker (docs/frontend.md,
 * "Checking the JavaScript"): a lab's `snapshot.network` (simulators/engine/network.py,
 * `Network.snapshot()`), its message events, and the drawing's own points and styles.
 * Nothing imports this module at run time; a module names a type with
 * `@import { NetNode } from "./network/types.js"` in a comment.
 */

/** @import { Playback } from "../types.js" */

/**
 * A point in the drawing's viewBox units.
 * @typedef {{x: number, y: number}} Point
 */

/**
 * One server (or client) of the network (`Node.as_dict()`).
 * @typedef {object} NetNode
 * @property {string} id
 * @property {string} label its id when it has no other
 * @property {boolean} up
 * @property {number} [skew_ms] how far its clock runs ahead (negative: behind)
 */

/**
 * A two-way link (`Link.as_dict()`).
 * @typedef {object} NetLink
 * @property {string} id
 * @property {string} a
 * @property {string} b
 * @property {boolean} up
 * @property {[number, number]} [latency_ms] the lowest and highest delay (without the tail)
 * @property {number} [loss_permille]
 */

/**
 * One message on the wire or held at a cut (`Message.as_dict()`); `info`: the lab's data
 * for drawing it.
 * @typedef {object} NetMessage
 * @property {number} id
 * @property {string} from
 * @property {string} to
 * @property {string} kind
 * @property {number} sent_ms
 * @property {number} arrive_ms
 * @property {Record<string, any>} [info]
 */

/**
 * A lab's `snapshot.network` (`Network.snapshot()`).
 * @typedef {object} NetworkSnapshot
 * @property {number} now_ms
 * @property {"lose" | "hold" | string} cut_policy
 * @property {NetNode[]} nodes
 * @property {NetLink[]} links
 * @property {NetMessage[]} in_flight
 * @property {NetMessage[]} held
 * @property {{sent?: number, delivered?: number, lost?: number}} counts
 */

/**
 * What the network view reads of a lab's snapshot: its network and its clock.
 * @typedef {{playback?: Playback, network?: NetworkSnapshot}} NetworkLabSnapshot
 */

/**
 * A `message_lost` event: where and why a message died.
 * @typedef {object} MessageLost
 * @property {"message_lost"} type
 * @property {number} id
 * @property {string} from
 * @property {string} to
 * @property {string} kind
 * @property {string} reason "link_cut", "node_down", ...
 * @property {number} sent_ms
 * @property {number} arrive_ms
 * @property {number} at_ms
 */

/**
 * What a lab says of a message kind (the network view's `kinds`).
 * @typedef {object} KindDeclared
 * @property {string} label
 * @property {string} colour
 * @property {string} shape circle, square, diamond, triangle or hexagon
 * @property {boolean} [hollow] a white inside within a rim of the colour
 */

/**
 * How a message kind is drawn (styles.js's `styleOf(kind)`).
 * @typedef {object} KindStyle
 * @property {string} label
 * @property {string} colour
 * @property {string} shape
 * @property {boolean} [hollow]
 */

/**
 * One entry of the legend: a kind's style, or "lost" (shape "cross") and "held".
 * @typedef {KindStyle & {key: string}} LegendEntry
 */

export {};
