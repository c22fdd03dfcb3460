/**
 * The readers of one lane, as dots with a timetable, rebuilt from what each frame says.
 *
 * A frame lists the reads that ended in it (`reads` event: arrival, outcome, when its
 * query was sent, started and done), and its snapshot the queries running now (with
 * their times), how many wait in the database's queue and how many readers wait for the
 * lock. A read still queued or still waiting is not listed anywhere by itself, so its dot
 * is inferred: the queue grew by so many this frame (counting those that left it), so
 * that many dots flew in, spread over the frame; when a query starts, it is the oldest
 * queued one (the database's queue is first in, first out) and takes over that dot; a
 * reader that waited takes over the parked dot whose arrival is nearest to its own. The
 * snapshot's counts stay the truth: the dots are trimmed or added to match them.
 *
 * Each dot: `kind` (hit, miss, early, waited, gave_up, busy), `a` its arrival, and for a read
 * that queried `e` (sent), `s` (started, null while queued), `f` (query done), `slot`
 * (where it ran); `d` when its reader had the answer (null: not yet known). Times are
 * virtual microseconds. `at(time, hop)` says where each is at a time (stage.js places
 * them).
 */

import { OUTCOME_KINDS, spread } from "./words.js";

/** @import { CsEnded, CsLaneView } from "./types.js" */

const HITS_PER_FRAME = 24; // hits drawn per frame and lane at most (the rest are counted)
const KEEP_US = 3_000_000; // dots that ended this long before the drawn time are dropped

/**
 * @typedef {object} Dot
 * @property {string} kind
 * @property {number} a
 * @property {number | null} e
 * @property {number | null} s
 * @property {number | null} f
 * @property {number | null} d
 * @property {number} slot
 * @property {number} lane where it flies (0..1)
 * @property {number} board
 * @property {string | null} key
 */

/**
 * The lane's metrics this module reads: readers that waited, and that gave up, in all.
 * @typedef {{waited: number, gave_up: number}} Totals
 */

/** @param {string} strategy */
export function createLaneTraffic(strategy) {
  /** @type {Dot[]} */
  let dots = [];
  /** @type {Map<string, Dot>} */
  const byKey = new Map();
  /** @type {{t: number, queued: number, waiting: number, waited: number, gaveUp: number} | null} the frame before */
  let prev = null;
  /** @type {number[]} until when each database slot is taken (µs) */
  let slotBusy = [];
  let anonymous = 0;

  /**
   * @param {Omit<Partial<Dot>, "lane">} fields
   * @returns {Dot}
   */
  function dot(fields) {
    // its `lane` is set next
    const made = /** @type {Dot} */ ({ kind: "hit", a: 0, e: null, s: null, f: null, d: null, slot: -1, board: 0, key: null, ...fields });
    made.lane = spread(made.key ? hashText(made.key) : (anonymous += 1) * 7919 + made.a);
    dots.push(made);
    if (made.key) byKey.set(made.key, made);
    return made;
  }

  /**
   * Put a query's dot in a free slot of the database (the one free soonest).
   * @param {Dot} d a query started (`s` known)
   * @param {number} limit queries at once
   */
  function takeSlot(d, limit) {
    if (slotBusy.length !== limit) slotBusy = Array.from({ length: limit }, (_, i) => slotBusy[i] ?? 0);
    let best = 0;
    for (let i = 0; i < slotBusy.length; i += 1) {
      if (slotBusy[i] <= /** @type {number} */ (d.s)) {
        best = i;
        break;
      }
      if (slotBusy[i] < slotBusy[best]) best = i;
    }
    slotBusy[best] = Math.max(slotBusy[best], d.f ?? 0);
    d.slot = best;
  }

  /** The unbound dots queued (no start known), oldest sent first. */
  const queuedAnon = () => dots.filter((d) => d.e !== null && d.s === null).sort((x, y) => (x.e ?? 0) - (y.e ?? 0));
  /** The parked dots whose end is unknown (waiting for the lock). */
  const parkedAnon = () => dots.filter((d) => d.e === null && d.d === null);

  /**
   * Take the dot of `list` whose arrival is nearest to `a` out of it.
   * @param {Dot[]} list
   * @param {number} a
   */
  function popNearest(list, a) {
    let best = -1;
    for (let i = 0; i < list.length; i += 1) {
      if (best < 0 || Math.abs(list[i].a - a) < Math.abs(list[best].a - a)) best = i;
    }
    if (best < 0) return null;
    return list.splice(best, 1)[0];
  }

  /** @param {Dot} d */
  function remove(d) {
    dots = dots.filter((x) => x !== d);
    if (d.key) byKey.delete(d.key);
  }

  /** Spread `n` times over (from, to]. */
  const spreadOver = (/** @type {number} */ n, /** @type {number} */ from, /** @type {number} */ to) => Array.from({ length: n }, (_, i) => from + ((i + 1) / (n + 1)) * Math.max(0, to - from));

  return {
    strategy,
    /**
     * Start from a snapshot: the queries running, the queue and the waiting readers as
     * they are (nothing flies in).
     * @param {number} t the snapshot's time (µs)
     * @param {CsLaneView} view the lane's snapshot
     * @param {Totals} totals the lane's metrics
     * @param {number} limit queries at once
     */
    start(t, view, totals, limit) {
      dots = [];
      byKey.clear();
      slotBusy = [];
      for (const [board, why, e, s, f, a] of view.running) {
        const d = dot({ kind: why === 2 ? "early" : "miss", a, e, s, f, board, key: `${a}:${board}` });
        takeSlot(d, limit);
      }
      // already queued or waiting: in place at once
      for (const e of spreadOver(view.queued, t - 1, t)) dot({ kind: "miss", a: e, e, board: 0 });
      for (const a of spreadOver(view.waiting.length, t - 1, t)) dot({ kind: "waited", a, board: 0 });
      prev = { t, queued: view.queued, waiting: view.waiting.length, waited: totals.waited, gaveUp: totals.gave_up };
    },

    /**
     * What one frame says about this lane.
     * @param {number} t the frame's time (µs)
     * @param {CsLaneView} view the lane's snapshot
     * @param {Totals} totals the lane's metrics
     * @param {CsEnded | null} ended the lane's part of the `reads` event (or null)
     * @param {number} limit queries at once
     */
    frame(t, view, totals, ended, limit) {
      if (!prev) {
        this.start(t, view, totals, limit);
        return;
      }
      const from = prev.t;
      const records = ended?.reads ?? [];
      // queries learnt of now: running, or already done within the frame
      const fresh = [];
      for (const [board, why, e, s, f, a] of view.running) {
        const key = `${a}:${board}`;
        if (!byKey.has(key)) fresh.push({ key, board, why, a, e, s, f, d: null });
      }
      for (const [a, board, outcome, e, s, done] of records) {
        if (outcome !== 1 && outcome !== 2) continue;
        const key = `${a}:${board}`;
        const known = byKey.get(key);
        if (known) known.d = done;
        else if (!fresh.some((q) => q.key === key)) fresh.push({ key, board, why: outcome, a, e, s, f: done - 1000, d: done });
      }
      fresh.sort((x, y) => x.s - y.s);
      const fromQueue = fresh.filter((q) => q.e < q.s).length;
      const fromWaiting = fresh.filter((q) => q.a < q.e).length;
      const gone = totals.waited - prev.waited + (totals.gave_up - prev.gaveUp);

      // who arrived unseen: the queue and the waiting readers grew by so many
      const intoQueue = Math.max(0, view.queued - prev.queued + fromQueue);
      for (const e of spreadOver(intoQueue, from, t)) dot({ kind: "miss", a: e, e, board: 0 });
      const intoWait = Math.max(0, view.waiting.length - prev.waiting + gone + fromWaiting);
      for (const a of spreadOver(intoWait, from, t)) dot({ kind: "waited", a, board: 0 });

      // the queries: each takes over a queued dot (oldest first) or a parked one
      let queue = queuedAnon();
      let parked = parkedAnon();
      for (const q of fresh) {
        const fields = { kind: q.why === 2 ? "early" : "miss", a: q.a, e: q.e, s: q.s, f: q.f, d: q.d, board: q.board, key: q.key };
        const waiter = q.a < q.e ? popNearest(parked, q.a) : null;
        const queued = q.e < q.s ? queue.shift() : null;
        let d = waiter ?? queued;
        if (waiter && queued) remove(queued);
        if (d) {
          Object.assign(d, fields);
          byKey.set(q.key, d);
        } else {
          d = dot(fields);
        }
        takeSlot(d, limit);
      }
      // readers that waited, and those that gave up
      let matched = 0;
      for (const [a, board, outcome, , , done] of records) {
        if (outcome !== 3 && outcome !== 4) continue;
        const kind = OUTCOME_KINDS[outcome];
        const d = popNearest(parked, a);
        matched += 1;
        if (d) Object.assign(d, { kind, a, d: done, board });
        else dot({ kind, a, d: done, board });
      }
      // the rest of those who left (the frame listed a sample): the oldest parked ones
      parked.sort((x, y) => x.a - y.a);
      for (let i = matched; i < gone && parked.length; i += 1) {
        const d = /** @type {Dot} */ (parked.shift());
        d.d = t;
      }
      // reads the database refused at once, its queue full: to its door and back
      for (const [a, board, outcome, , , done] of records) {
        if (outcome === 5) dot({ kind: "busy", a, d: done, board });
      }
      // hits: a sample of them is plenty
      const hits = records.filter((r) => r[2] === 0);
      const every = Math.max(1, Math.ceil(hits.length / HITS_PER_FRAME));
      for (let i = 0; i < hits.length; i += every) {
        const [a, board, , , , done] = hits[i];
        dot({ kind: "hit", a, d: done, board });
      }
      // the snapshot's counts are the truth
      queue = queuedAnon();
      for (let extra = queue.length - view.queued; extra > 0; extra -= 1) remove(/** @type {Dot} */ (queue.shift()));
      for (let missing = view.queued - queue.length; missing > 0; missing -= 1) dot({ kind: "miss", a: t, e: t, board: 0 });
      parked = parkedAnon().sort((x, y) => x.a - y.a);
      for (let extra = parked.length - view.waiting.length; extra > 0; extra -= 1) {
        /** @type {Dot} */ (parked.shift()).d = t;
      }
      for (let missing = view.waiting.length - parked.length; missing > 0; missing -= 1) dot({ kind: "waited", a: t, board: 0 });
      prev = { t, queued: view.queued, waiting: view.waiting.length, waited: totals.waited, gaveUp: totals.gave_up };
    },

    /**
     * The lane at `time`: every dot to draw, the queries running (with their slots), how
     * many are queued and how many readers wait at the cache. Drops what ended long ago.
     * @param {number} time µs
     * @param {number} hop µs a flight takes
     */
    at(time, hop) {
      this.prune(time - KEEP_US - 4 * hop, hop);
      const running = [];
      const queued = [];
      let waiting = 0;
      for (const d of dots) {
        if (d.e === null) {
          if (d.kind !== "hit" && d.kind !== "busy" && d.a <= time && (d.d === null || time < d.d)) waiting += 1;
          continue;
        }
        if (d.e <= time && (d.s === null || time < d.s)) queued.push(d);
        else if (d.s !== null && d.s <= time && time < (d.f ?? Infinity)) running.push(d);
        else if (d.a < d.e - hop && d.a <= time && time < d.e - hop) waiting += 1;
      }
      queued.sort((x, y) => (x.e ?? 0) - (y.e ?? 0));
      return { dots, running, queued, waiting };
    },

    /** Drop the dots last seen before `horizon` (µs); at() does it too, but a hidden
     * tab draws nothing while its frames still come.
     * @param {number} horizon
     * @param {number} hop µs a flight takes
     */
    prune(horizon, hop) {
      if (!dots.some((d) => endOf(d, hop) < horizon)) return;
      const kept = [];
      for (const d of dots) {
        if (endOf(d, hop) >= horizon) kept.push(d);
        else if (d.key) byKey.delete(d.key);
      }
      dots = kept;
    },

    get size() {
      return dots.length;
    },
  };
}

/**
 * When a dot is last seen (µs).
 * @param {Dot} d
 * @param {number} hop
 */
function endOf(d, hop) {
  if (d.kind === "busy") return d.a + 3 * hop;
  if (d.e === null) return d.d === null ? Infinity : d.d + hop;
  if (d.s === null) return Infinity;
  return (d.f ?? Infinity) + 2 * hop;
}

/** @param {string} text */
function hashText(text) {
  let h = 2166136261;
  for (let i = 0; i < text.length; i += 1) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 16777619) >>> 0;
  }
  return h;
}
