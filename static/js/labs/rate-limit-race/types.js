/**
 * The rate-limit-race lab's shapes, as JSDoc types for the checker (docs/frontend.md,
 * "Checking the JavaScript"): what its snapshot and events carry
 * (simulators/labs/rate_limit_race/lab.py, `snapshot()`, `_client()` and the `do_*`
 * actions; orderings.py for the enumeration). Nothing imports this module at run time.
 */

/**
 * The key's time to live as the lab keeps it: seconds left, "none" (no expiry), or null
 * (no key).
 * @typedef {number | "none" | null} Ttl
 */

/**
 * One step of a client's program: a command to Redis or the client's own check, planned
 * or run (then with its reply and its place in the order, `seq`).
 * @typedef {object} RaceStep
 * @property {string} id "A1", "B2", ...
 * @property {"redis" | "local"} kind
 * @property {"if_admitted" | "if_first" | null} condition when it sends anything at all
 * @property {boolean} decides it admits or refuses the request
 * @property {boolean} done
 * @property {boolean} dropped its client crashed before it
 * @property {string | null} command as far as the client knows it yet
 * @property {string | null} reply
 * @property {boolean} skipped it ran and sent nothing
 * @property {number | null} seq
 * @property {number | null} value_after
 * @property {Ttl} ttl_after
 */

/**
 * A client of the race.
 * @typedef {object} RaceClient
 * @property {string} name "A" to "D"
 * @property {"admitted" | "refused" | "pending" | "crashed"} outcome
 * @property {boolean} crashed
 * @property {number | null} seen the number it got back
 * @property {RaceStep[]} steps
 */

/**
 * The counter's key: its value and expiry while it exists; when it last expired.
 * @typedef {{name: string, last_expired_at_s: number | null}
 *   & ({exists: true, value: number, ttl: number | "none", expires_at_s: number | null}
 *     | {exists: false, value: null, ttl: null, expires_at_s: null})} RaceKey
 */

/**
 * Every ordering of a case played (`do_every_ordering`); `this_case`: it is the case
 * drawn now.
 * @typedef {object} Enumeration
 * @property {string} mode
 * @property {number} clients
 * @property {number} starting_admitted
 * @property {number} limit
 * @property {number} orderings
 * @property {number} overshooting
 * @property {number} worst_admitted
 * @property {number} fewest_admitted
 * @property {[number, number][]} by_admitted [admitted, how many orderings]
 * @property {string[]} examples orders that overshoot, steps joined by spaces
 * @property {boolean} this_case
 */

/**
 * One request sent after the race, whole.
 * @typedef {object} LaterRequest
 * @property {number} at_s
 * @property {{command: string, reply: string}[]} sent
 * @property {number | null} count what the client counted
 * @property {boolean} admitted
 * @property {number | null} value_after
 * @property {Ttl} ttl_after
 */

/**
 * The lab's snapshot (`RateLimitRaceLab.snapshot()`), or a state between two that the
 * renderer draws while it plays a frame's steps.
 * @typedef {object} RaceSnapshot
 * @property {number} seed
 * @property {number} limit
 * @property {number} window_s
 * @property {string} mode
 * @property {number} client_count
 * @property {number} starting_admitted
 * @property {RaceKey} key
 * @property {number} clock_s
 * @property {RaceClient[]} clients
 * @property {string[]} order the plan: every step id in the order they run
 * @property {string} order_text the order as the user set it, steps joined by spaces
 * @property {number} position how many steps have run
 * @property {string | null} next
 * @property {boolean} finished
 * @property {number} admitted
 * @property {number} overshoot
 * @property {number} refused
 * @property {{client: string, after: string | null, dropped: string[]}[]} crashed
 * @property {string[]} crashable
 * @property {number} orderings_possible
 * @property {number} max_orderings
 * @property {Enumeration | null} enumeration
 * @property {{admitted: number, refused: number, last: LaterRequest[]}} later
 * @property {boolean} locked_out
 * @property {number} shuffles
 */

// ---- events (describe.js words them) ---------------------------------------------------

/**
 * A step run (`_run`): what it sent (nothing when `skipped`) and got, and the key after
 * it; `admitted` on the step that decides.
 * @typedef {{
 *   type: "step",
 *   id: string,
 *   client: string,
 *   seq: number,
 *   reply: string | null,
 *   value_after: number | null,
 *   ttl_after: Ttl,
 *   admitted?: boolean | null,
 * } & ({skipped: true, command: null} | {skipped: false, command: string})} StepEvent
 */

/**
 * The rate-limit-race lab's events that the narrator words, by type (each also carries
 * `type`).
 * @typedef {object} RaceEvents
 * @property {StepEvent} step
 * @property {{admitted: number, limit: number, overshoot: number, value: number | null}} race_done
 * @property {{reason: "reset" | "mode" | "clients" | "admitted", mode: string, clients: number,
 *   starting_admitted: number, order: string[]}} race_reset
 * @property {{order: string[]}} order_set
 * @property {{order: string[], draw: number}} shuffled
 * @property {Omit<Enumeration, "this_case">} orderings
 * @property {{client: string, after: string | null, dropped: string[], value: number | null,
 *   ttl: Ttl}} client_crashed
 * @property {{seconds: number, clock_s: number, value: number | null, ttl: Ttl, locked_out: boolean}
 *   & ({expired: true, expired_at: number} | {expired: false, expired_at: null})} time_passed
 * @property {{count: number, admitted: number, refused: number, last: LaterRequest,
 *   value: number | null, ttl: Ttl, locked_out: boolean}} requests
 */

export {};
