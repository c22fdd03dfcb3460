/**
 * The partition-cap lab's shapes, as JSDoc types for the checker (docs/frontend.md,
 * "Checking the JavaScript"): what its snapshot and events carry
 * (simulators/labs/partition_cap/lab.py, `snapshot()`, the operations and the merging;
 * versions.py for versions and bookings). Nothing imports this module at run time.
 */

/** @import { NetworkSnapshot } from "../../network/types.js" */
/** @import { Playback } from "../../types.js" */

/**
 * A version vector: each server's count of writes seen, `{A: 1, C: 1}`.
 * @typedef {Record<string, number>} VersionVector
 */

/**
 * A booking in a version: confirmed, or on standby (the application rule's loser).
 * @typedef {object} Booking
 * @property {string} id
 * @property {string} passenger
 * @property {string} server the server that took it
 * @property {number} ts on that server's clock
 * @property {"confirmed" | "standby"} status
 */

/**
 * One version of the row (a copy holds several when they are siblings).
 * @typedef {object} Version
 * @property {VersionVector} vv
 * @property {string} vv_text
 * @property {number} ts
 * @property {string} writer
 * @property {number} seats_remaining
 * @property {Booking[]} bookings
 */

/**
 * A server's copy of the row.
 * @typedef {object} Copy
 * @property {string} server
 * @property {string} city an English city name (data: translated through the hello's words)
 * @property {boolean} up
 * @property {Version[]} versions
 * @property {VersionVector} vv
 * @property {string} vv_text
 * @property {number} seats_remaining
 * @property {boolean} conflicting
 * @property {boolean} behind another copy has writes this one has not seen
 * @property {number | null} promised_to the booking operation it promised its seat to
 */

/**
 * A client: where it is, which server it talks to, who books.
 * @typedef {object} Client
 * @property {string} id "fra", "tyo"
 * @property {string} city
 * @property {string} server
 * @property {string} passenger
 */

/**
 * The departures board as read from one copy (`_answer`).
 * @typedef {object} Answer
 * @property {Version[]} versions
 * @property {number} seats_remaining
 * @property {boolean} conflicting
 * @property {VersionVector} vv
 * @property {boolean} stale
 */

/**
 * A client's operation, a booking or a read of the departures board, as its server
 * answered it (`_start_op`, then `_complete`): what was told, by `result`.
 * @typedef {{
 *   id: number,
 *   action: "book" | "board",
 *   server: string,
 *   mode: "majority" | "anyway",
 *   invoke_ms: number,
 *   complete_ms: number | null,
 *   reason: string | null,
 *   passenger?: string,
 * } & (
 *   | {result: "pending" | "sold_out" | "failed"}
 *   | {result: "booked", booking: Booking, reachable?: number}
 *   | {result: "refused", reachable: number, copies: number, needed: number}
 *   | {result: "answered", answer: Answer, reachable: number}
 * )} Operation
 */

/**
 * Two copies compared their version vectors (`_on_sync`); `newer`, when they were
 * ordered, the server whose copy is newer.
 * @typedef {{server: string, from: string, local: VersionVector, incoming: VersionVector,
 *   at_ms: number}
 *   & ({verdict: "ordered", newer: string} | {verdict: "equal", newer: null}
 *     | {verdict: "concurrent", newer: null})} Meeting
 */

/**
 * Concurrent versions met, and the rule decided (`_record_conflict`).
 * @typedef {object} Conflict
 * @property {number} id
 * @property {string} server
 * @property {string} via
 * @property {VersionVector[]} vectors
 * @property {"concurrent"} verdict
 * @property {string} rule "lww", "app" or "siblings"
 * @property {string[]} confirmed the bookings kept confirmed
 * @property {string[]} standby
 * @property {string[]} dropped
 * @property {number} siblings how many versions were kept (0: one)
 * @property {number} at_ms
 */

/**
 * A booking a client was told about that no copy holds any more (`_record_vanished`).
 * @typedef {object} Vanished
 * @property {string} booking
 * @property {string} passenger
 * @property {string} server
 * @property {number} op
 * @property {number} booked_ms
 * @property {number} ts
 * @property {string} rule
 * @property {string} last_copy
 * @property {number} at_ms
 */

/**
 * The lab's snapshot (`PartitionCapLab.snapshot()`).
 * @typedef {object} PartitionSnapshot
 * @property {number} seed
 * @property {Playback} [playback]
 * @property {NetworkSnapshot} [network]
 * @property {{id: number, number: string, origin: string, destination: string,
 *   departure: string, seats: number}} flight
 * @property {string[]} servers
 * @property {string[]} link_ids
 * @property {string[]} passengers
 * @property {Client[]} clients
 * @property {string} rule
 * @property {{copies: number, majority: number, tolerates: number, even: boolean}} quorum
 * @property {number} timeout_ms
 * @property {number} max_skew_ms
 * @property {Copy[]} copies
 * @property {boolean} converged
 * @property {Operation[]} operations the latest
 * @property {number} operation_count
 * @property {Meeting[]} meetings the latest
 * @property {number} meeting_count
 * @property {Conflict[]} conflicts
 * @property {Vanished[]} vanished
 */

/**
 * The events describe.js words (the network's among them); `type` tells which.
 * @typedef {({type: "op_completed"} & Operation)
 *   | ({type: "conflict"} & Conflict)
 *   | ({type: "booking_vanished"} & Vanished)
 *   | {type: "split", groups: [string[], string[]]}
 *   | {type: "link_cut" | "link_healed", link: string}
 *   | {type: "node_stopped" | "node_restarted", node: string}
 *   | {type: "clock_skewed", node: string, skew_ms: number}
 *   | {type: "rule_set", rule: string}
 *   | {type: "reset", servers: number}} PartitionEvent
 */

export {};
