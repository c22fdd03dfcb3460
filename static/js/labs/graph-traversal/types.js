/**
 * The graph-traversal lab's snapshot and the shapes its modules pass each other, as JSDoc
 * types for the checker: the snapshot is simulators/labs/graph_traversal/lab.py's
 * `snapshot()` (its question, `_answer`). Nothing imports this module at run time; a
 * module names a type with `@import { GtSnapshot } from "./types.js"`.
 */

/** @import { Snapshot } from "../../types.js" */

/**
 * The snapshot's `graph`: what it is, and the graph packed in strings (graphs.py's
 * `packed`, docs/protocol.md).
 * @typedef {object} GtGraphData
 * @property {string} which the graph's code ("routes", "services", ...)
 * @property {boolean} grown
 * @property {"airport" | "service"} kind
 * @property {string} label
 * @property {string} rel
 * @property {string | null} prop
 * @property {boolean} weighted its edges have minutes
 * @property {number} node_count
 * @property {number} edge_count
 * @property {string} hub the node with the most edges out
 * @property {number} hub_degree
 * @property {string} nodes the names, by spaces
 * @property {string} edges each node's destinations, base 36, `width` digits each
 * @property {string} minutes each edge's minutes, 2 digits each ("" for a large graph)
 * @property {number} width
 */

/**
 * One depth of the expansion (traverse.py's `Depth.as_dict`); `edges` are
 * `[from, to, outcome]` as read.
 * @typedef {object} GtDepth
 * @property {number} depth
 * @property {"start" | "end"} side "end": the search back from the end
 * @property {string[]} frontier the first names of it
 * @property {number} frontier_size
 * @property {number} touched edges read
 * @property {Record<string, number>} counts edges read by outcome
 * @property {[string, string, string][]} edges
 */

/**
 * @typedef {object} GtQuery
 * @property {"ends" | "paths" | "shortest"} mode
 * @property {string | null} start
 * @property {string | null} end
 * @property {number} least
 * @property {number | null} most
 * @property {boolean} reverse
 * @property {string[]} avoid
 * @property {string[]} closed
 * @property {[string, string, unknown][]} conditions
 * @property {string | null} returns
 */

/**
 * The lab's own traversal: `paths` are `[stops, minutes]` (minutes null: unweighted),
 * `ends` `[name, fewest edges]`.
 * @typedef {object} GtTraversal
 * @property {number} touched
 * @property {number} lookups
 * @property {GtDepth[]} depths
 * @property {number} path_count
 * @property {[string[], number | null][]} paths
 * @property {number} end_count
 * @property {[string, number][]} ends
 * @property {number} revisits paths that pass a node twice
 */

/**
 * The recursive SQL's run; `agrees` null: not known (stopped).
 * @typedef {object} GtSql
 * @property {string} text
 * @property {boolean} index
 * @property {boolean} path_check
 * @property {boolean} stopped
 * @property {number} limit
 * @property {number} rounds
 * @property {number[]} rows_per_round
 * @property {number[]} lookups_per_round
 * @property {number[]} rows_read_per_round
 * @property {number} rows
 * @property {number} lookups
 * @property {number} comparisons
 * @property {number} rows_read
 * @property {number} answer_count
 * @property {boolean | null} agrees
 */

/**
 * networkx's answer.
 * @typedef {object} GtNetworkx
 * @property {string} call
 * @property {number} answer_count
 * @property {string[][]} paths
 * @property {boolean | null} agrees
 * @property {boolean} stopped
 * @property {boolean} simple_only
 */

/**
 * A question answered three ways (lab.py's `_answer`).
 * @typedef {object} GtQuestion
 * @property {string} pattern
 * @property {GtQuery} query
 * @property {GtTraversal} traversal
 * @property {GtSql} sql
 * @property {GtNetworkx} networkx
 * @property {number} table_rows
 */

/**
 * The costs before the graph grew (lab.py's `_costs`).
 * @typedef {object} GtCosts
 * @property {number} table_rows
 * @property {number} touched
 * @property {number} lookups
 * @property {number} comparisons
 * @property {number} rows_read
 * @property {number} rows
 */

/**
 * A closure and what it cuts: `rows` `[node, trips to or from it, trips only through
 * it]`, `cut` the trips `[from, to]` it alone joined.
 * @typedef {object} GtClosures
 * @property {string} node
 * @property {[string, number, number][]} rows
 * @property {[string, string][]} cut
 * @property {number} cut_count
 * @property {boolean} ranked
 */

/**
 * The graph-traversal lab's snapshot; `dependents` rows are `[service, dependents,
 * direct dependents]`.
 * @typedef {Snapshot & {
 *   graph: GtGraphData,
 *   layout_seed: number,
 *   pattern: string,
 *   course: string | null,
 *   index: boolean,
 *   closed: string[],
 *   question: GtQuestion | null,
 *   before: GtCosts | null,
 *   closures: GtClosures | null,
 *   dependents: [string, number, number][] | null,
 * }} GtSnapshot
 */

// ---- the drawing (layout.js, view.js, expansion.js) -----------------------------------

/**
 * A node of the parsed graph (layout.js's `parseGraph`).
 * @typedef {object} GtNode
 * @property {string} name
 * @property {number} index its place in the snapshot's order
 * @property {number} out edges out
 * @property {number} into edges in
 */

/**
 * An edge of the parsed graph; `bent` when the reverse edge is there too.
 * @typedef {object} GtEdge
 * @property {GtNode} source
 * @property {GtNode} target
 * @property {number | null} minutes
 * @property {number} id
 * @property {boolean} bent
 */

/**
 * A node of the force simulation (forces.js), once placed: d3-force sets `x`, `y`, `vx`
 * and `vy`, a pin `fx` and `fy`.
 * @typedef {object} GtLayoutNode
 * @property {number} index
 * @property {string} name
 * @property {boolean} tiny in a part drawn as the course's graphs are
 * @property {number} x
 * @property {number} y
 * @property {number} vx
 * @property {number} vy
 * @property {number | null} [fx]
 * @property {number | null} [fy]
 */

export {};
