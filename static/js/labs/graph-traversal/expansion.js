/**
 * A question's expansion as marks on the drawing, depth by depth: what the drawing
 * shows after `upto` depths (the one now lit, the ones before it kept as the tree they
 * grew, their pruned edges faint), or the answer once all have been shown.
 *
 * An edge is listed as it was read: from the frontier node `a` to `b`. The search that
 * comes back from the end (shortestPath's second side) and a reverse pattern (`<-[…]-`)
 * read edges against their direction, so the edge drawn is `b → a`: the graph's own.
 */

import { fmt, num, t, tn } from "../../i18n.js";
import { PRUNED } from "./words.js";
import { answerCount, edgesRead } from "./words.js";

/** @import { GtQuestion } from "./types.js" */

/**
 * An edge read, as drawn: `past` once its depth has gone by.
 * @typedef {{key: string, from: string, to: string, outcome: string, side: string, past: boolean}} EdgeMark
 */
/**
 * A sign at a node: ✕ at a barred one, a failed edge's minutes (`to`: on the edge to
 * it), the depth a node was reached at.
 * @typedef {{key: string, name: string, to?: string, kind: "avoided" | "failed" | "depth", text: string}} SignMark
 */
/**
 * What the drawing shows of a question (`marksOf`): view.js's `setMarks`.
 * @typedef {object} Marks
 * @property {boolean} badges a depth is written beside nodes
 * @property {EdgeMark[]} edges
 * @property {SignMark[]} signs
 * @property {{name: string, side: string}[]} rings the frontier lit now
 * @property {{key: string, from: string, to: string}[]} path the answer's edges
 * @property {string[]} onPath
 * @property {string[]} meets where the two searches met
 * @property {string[]} named nodes whose names a large graph shows
 * @property {string | null} start
 */

const BADGES_MOST = 40; // more nodes reached than this: no depth written beside each
const NAMED_MOST = 20; // names written over a large graph

/**
 * The marks after `upto` depths of `question.traversal.depths`.
 * @param {GtQuestion} question the snapshot's `question`
 * @param {{upto: number, final: boolean, size: string, minutes: (from: string, to: string) => string}} how
 *   `final`: the answer, drawn over the whole expansion; `size`: the drawing's, "small"
 *   (pruned edges of depths gone by stay, faint, and the answer keeps its ✕ and ✗),
 *   "medium" (the pruned edges stay) or "large"; `minutes`: an edge's minutes in words
 * @returns {Marks}
 */
export function marksOf(question, { upto, final, size, minutes }) {
  const keepPruned = size !== "large";
  const q = question.query;
  const depths = question.traversal.depths;
  /** @type {EdgeMark[]} */
  const edges = [];
  /** @type {SignMark[]} */
  const signs = [];
  /** @type {Marks["rings"]} */
  const rings = [];
  /** @type {Set<string>} */
  const named = new Set();
  /** @type {Set<string>} */
  const signed = new Set();
  /** @type {string[]} */
  const meets = [];
  for (let di = 0; di < Math.min(upto, depths.length); di += 1) {
    const d = depths[di];
    const now = !final && di === upto - 1;
    const backwards = (d.side === "end") !== Boolean(q.reverse);
    d.edges.forEach(([a, b, outcome], i) => {
      if (!now && !keepPruned && PRUNED.has(outcome)) return;
      const from = backwards ? b : a;
      const to = backwards ? a : b;
      edges.push({ key: `${di}:${i}`, from, to, outcome, side: d.side, past: !now });
      if (outcome === "met") meets.push(b);
      if ((now || (final && size === "small")) && (outcome === "avoided" || outcome === "failed")) {
        const key = `${outcome}:${from}>${to}`;
        if (signed.has(key)) return;
        signed.add(key);
        signs.push(
          outcome === "avoided"
            ? { key, name: from, to, kind: "avoided", text: "✕" }
            : { key, name: from, to, kind: "failed", text: `${minutes(from, to)} ✗`.trim() },
        );
      }
    });
    if (now) {
      for (const name of d.frontier) rings.push({ name, side: d.side });
      if (d.frontier.length <= 24) for (const name of d.frontier) named.add(name);
    }
  }
  /** @type {Marks["path"]} */
  const path = [];
  /** @type {Set<string>} */
  const onPath = new Set();
  if (final) {
    /** @type {Set<string>} */
    const seen = new Set();
    for (const [stops] of question.traversal.paths) {
      stops.forEach((name, i) => {
        onPath.add(name);
        if (i === 0) return;
        const from = q.reverse ? name : stops[i - 1];
        const to = q.reverse ? stops[i - 1] : name;
        const key = `${from}>${to}`;
        if (seen.has(key)) return;
        seen.add(key);
        path.push({ key, from, to });
      });
    }
    if (q.mode === "ends") {
      const ends = question.traversal.ends;
      for (const [name, depth] of ends) {
        onPath.add(name);
        if (ends.length <= BADGES_MOST) signs.push({ key: `depth:${name}`, name, kind: "depth", text: num(depth) });
      }
    }
    for (const name of onPath) if (named.size < NAMED_MOST) named.add(name);
  }
  if (q.start) named.add(q.start);
  if (q.end) named.add(q.end);
  return {
    badges: signs.some((sign) => sign.kind === "depth"),
    edges,
    signs,
    rings,
    path,
    onPath: [...onPath],
    meets: final ? [...new Set(meets)] : [],
    named: [...named],
    start: q.start,
  };
}

/**
 * Edges read by the first `upto` depths.
 * @param {GtQuestion} question
 * @param {number} upto
 */
export function readSoFar(question, upto) {
  return question.traversal.depths.slice(0, upto).reduce((sum, d) => sum + d.touched, 0);
}

/**
 * What the readout says while depth `upto` is lit: "depth 2 · frontier 3 · 5 edges read".
 * @param {GtQuestion} question
 * @param {number} upto
 */
export function depthText(question, upto) {
  const d = question.traversal.depths[upto - 1];
  const values = {
    depth: num(d.depth),
    frontier: num(d.frontier_size),
    read: edgesRead(d.touched),
    end: question.query.end ?? "",
  };
  if (d.side === "end") return fmt(t("depth %(depth)s back from %(end)s · frontier %(frontier)s · %(read)s"), values);
  return fmt(t("depth %(depth)s · frontier %(frontier)s · %(read)s"), values);
}

/**
 * What the readout says once the expansion has been shown: the answer and its cost.
 * @param {GtQuestion} question
 */
export function doneText(question) {
  const n = question.traversal.depths.length;
  return fmt(t("%(answer)s · %(read)s in %(depths)s"), {
    answer: answerCount(question),
    read: edgesRead(question.traversal.touched),
    depths: fmt(tn("%(n)s depth", "%(n)s depths", n), { n: num(n) }),
  });
}
