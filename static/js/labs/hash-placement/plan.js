/**
 * Turns "the table changed" into a choreography for one card: which bins appear or leave,
 * which key dots fly where and when, and which stay still. Pure: it reads the previous and
 * the new snapshot, the slots, and where things are drawn now.
 */

import { FADE_MS, duration, reducedMotion } from "../../motion.js";
import { fractionOf } from "./schemes.js";
import { applyMoves, layoutBins, slotIndex, slotPoint, withoutShards } from "./slots.js";
import { segment } from "./timeline.js";

/** @import { BinLayout } from "./slots.js" */
/** @import { Box, Drawn, HashSnapshot, Plan, PlannedDot, Point, Scheme, Slots } from "./types.js" */

const ENTER_MS = 450;
const FLIGHT_MS = 900;
const STAGGER_TOTAL_MS = 900;
const STAGGER_MAX_MS = 28;
const LEAVE_MS = 450;
const RECOLOUR_MS = 250;
// Past this share of empty slots, bins close their gaps once the keys have landed.
const COMPACT_ABOVE = 0.3;

/**
 * The keys whose shard differs between two snapshots, in clockwise order of their hash.
 * @param {Scheme} scheme
 * @param {HashSnapshot} before
 * @param {HashSnapshot} after
 */
export function findMovers(scheme, before, after) {
  const previous = new Map(before.sample.map((key) => [key.id, key.where[scheme]]));
  return after.sample
    .filter((key) => previous.has(key.id) && previous.get(key.id) !== key.where[scheme])
    .map((key) => ({
      id: key.id,
      from: /** @type {string} */ (previous.get(key.id)), // (kept: `previous` has it)
      to: key.where[scheme],
      fraction: fractionOf(scheme, key, after),
    }))
    .sort((p, q) => p.fraction - q.fraction || p.id - q.id);
}

/**
 * The plan for one card: {plan, slots, departures}. `state` = {scheme, before, after,
 * slots, top, drawn} where drawn = {dots, bins} as drawn now (Maps by id / shard).
 * @param {{ scheme: Scheme, before: HashSnapshot, after: HashSnapshot, slots: Slots,
 *   top: number, drawn: Drawn }} state
 */
export function planChange(state) {
  const { scheme, before, after, slots, top, drawn } = state;
  const movers = findMovers(scheme, before, after);
  const oldOrder = before.shards;
  const newOrder = after.shards;
  const union = [...new Set([...oldOrder, ...newOrder])].sort();
  const removed = oldOrder.filter((s) => !newOrder.includes(s));
  const added = newOrder.filter((s) => !oldOrder.includes(s));
  const moved = applyMoves(slots, movers, newOrder);
  const settled = holeRatio(moved, newOrder) > COMPACT_ABOVE ? compactSlots(moved) : moved;
  const tallest = new Map(union.map((s) => [s, longest(slots.get(s), moved.get(s))]));
  const mid = layoutBins(union, tallest, top);
  const end = layoutBins(newOrder, withoutShards(settled, newOrder), top);
  const enters = added.length > 0 || binsShift(drawn.bins, mid);
  const leaves = removed.length > 0 || settled !== moved || !sameBins(mid, end, newOrder);
  const times = timing(movers.length, enters, leaves);
  const oldSlots = slotIndex(slots);
  const newSlots = slotIndex(moved);
  const finalSlots = slotIndex(settled);
  /** @type {Map<number, number>} key id → when it departs (ms) */
  const departures = new Map();
  const queue = new Map(movers.map((m, i) => [m.id, i]));
  // every key of `after` has its slot in `moved` (and so in `settled`)
  const dots = after.sample.map((key) => {
    const now = /** @type {{ shard: string, index: number }} */ (newSlots.get(key.id));
    const was = oldSlots.get(key.id) ?? now;
    const seen = drawn.dots.get(key.id);
    const from = seen && Number.isFinite(seen.x) ? seen : /** @type {Point} */ (slotPoint(mid, was.shard, was.index));
    // `mid` lays out the bins of every shard before and after the change
    const leave = /** @type {{x: number, y: number}} */ (slotPoint(mid, was.shard, was.index));
    const arrive = /** @type {{x: number, y: number}} */ (slotPoint(mid, now.shard, now.index));
    const last = /** @type {{ shard: string, index: number }} */ (finalSlots.get(key.id));
    const rest = /** @type {Point} */ (slotPoint(end, last.shard, last.index));
    // (its segments are added below)
    const dot = /** @type {PlannedDot} */ ({ id: key.id, key: key.key, shard: now.shard, flies: was.shard !== now.shard });
    const segments = [segment(point(from), leave, 0, times.enterMs)];
    if (dot.flies) {
      const order = queue.get(key.id) ?? 0;
      dot.departsAt = times.flightStart + order * times.staggerMs;
      dot.landsAt = dot.departsAt + times.flightMs;
      departures.set(key.id, dot.departsAt);
      const lift = 26 + Math.abs(arrive.x - leave.x) * 0.12;
      segments.push(segment(leave, arrive, dot.departsAt, dot.landsAt, lift));
    }
    segments.push(segment(dot.flies ? arrive : leave, rest, times.leaveStart, times.total));
    dot.segments = segments;
    return dot;
  });
  // `mid` has a bin for every shard of the union
  const bins = union.map((shard) => ({
    shard,
    from: /** @type {Box} */ ({ ...mid.bins.get(shard), ...pick(drawn.bins.get(shard)) }),
    mid: /** @type {Box} */ (mid.bins.get(shard)),
    to: /** @type {Box} */ (end.bins.get(shard) ?? mid.bins.get(shard)),
    entering: added.includes(shard) || !drawn.bins.has(shard),
    leaving: removed.includes(shard),
  }));
  return {
    plan: { bins, dots, times },
    slots: withoutShards(settled, newOrder),
    departures,
    height: Math.max(mid.bottom, end.bottom),
    endHeight: end.bottom,
    movers,
  };
}

/**
 * A plan that draws a card from scratch, nothing moving.
 * @param {Scheme} scheme
 * @param {HashSnapshot} snapshot
 * @param {Slots} slots every key of the snapshot in its shard's slots
 * @param {number} top
 * @returns {{ plan: Plan, height: number, endHeight: number }}
 */
export function planFresh(scheme, snapshot, slots, top) {
  const layout = layoutBins(snapshot.shards, slots, top);
  const where = slotIndex(slots);
  const dots = snapshot.sample.map(/** @returns {PlannedDot} */ (key) => {
    const at = /** @type {{ shard: string, index: number }} */ (where.get(key.id));
    const p = /** @type {Point} */ (slotPoint(layout, at.shard, at.index));
    return {
      id: key.id,
      key: key.key,
      shard: at.shard,
      flies: false,
      segments: [segment(p, p, 0, 0)],
    };
  });
  const bins = snapshot.shards.map((shard) => {
    const box = /** @type {Box} */ (layout.bins.get(shard));
    return { shard, from: box, mid: box, to: box, entering: true, leaving: false };
  });
  const times = timing(0, true, false);
  return { plan: { bins, dots, times }, height: layout.bottom, endHeight: layout.bottom };
}

/**
 * When each phase of a change starts and how long it lasts.
 * @param {number} moverCount
 * @param {boolean} enters bins appear or shift first
 * @param {boolean} leaves bins leave or close their gaps last
 * @returns {import("./types.js").Times}
 */
function timing(moverCount, enters, leaves) {
  const enterMs = duration(enters ? ENTER_MS : 0);
  const staggerMs =
    moverCount > 1 ? duration(Math.min(STAGGER_MAX_MS, STAGGER_TOTAL_MS / (moverCount - 1))) : 0;
  // with motion reduced, a flight is a fade in place (timeline.js fadeAt), all at once
  const flightMs = reducedMotion() ? FADE_MS : FLIGHT_MS;
  const flightStart = enterMs;
  const flightEnd = moverCount
    ? flightStart + staggerMs * (moverCount - 1) + flightMs
    : flightStart;
  const leaveStart = flightEnd;
  const total = leaveStart + duration(leaves ? LEAVE_MS : 0);
  return {
    enterMs,
    staggerMs,
    flightMs,
    flightStart,
    leaveStart,
    total,
    countStart: flightStart,
    countEnd: flightEnd,
    recolourMs: duration(RECOLOUR_MS),
  };
}

/**
 * The share of empty slots in the bins of `shards`.
 * @param {Slots} slots
 * @param {string[]} shards
 */
function holeRatio(slots, shards) {
  let holes = 0;
  let total = 0;
  for (const shard of shards) {
    const ids = slots.get(shard) ?? [];
    total += ids.length;
    holes += ids.filter((id) => id === null).length;
  }
  return total ? holes / total : 0;
}

/**
 * The slots with their holes closed.
 * @param {Slots} slots
 * @returns {Slots}
 */
function compactSlots(slots) {
  return new Map([...slots].map(([shard, ids]) => [shard, ids.filter((id) => id !== null)]));
}

/**
 * As long as the longer of a shard's slots before and after.
 * @param {unknown[]} [a]
 * @param {unknown[]} [b]
 */
function longest(a = [], b = []) {
  return { length: Math.max(a.length, b.length) };
}

/**
 * True when a bin drawn now is not where `layout` puts it.
 * @param {Drawn["bins"]} drawnBins
 * @param {BinLayout} layout
 */
function binsShift(drawnBins, layout) {
  for (const [shard, box] of layout.bins) {
    const now = drawnBins.get(shard);
    if (now && (now.x !== box.x || now.y !== box.y)) return true;
  }
  return false;
}

/**
 * True when the bins of `order` are in the same places under both layouts.
 * @param {BinLayout} a
 * @param {BinLayout} b
 * @param {string[]} order
 */
function sameBins(a, b, order) {
  return order.every((shard) => {
    const p = a.bins.get(shard);
    const q = b.bins.get(shard);
    return p && q && p.x === q.x && p.y === q.y && p.h === q.h;
  });
}

/** @param {Point} p */
function point(p) {
  return { x: p.x, y: p.y };
}

/**
 * A drawn bin's corner, if it has one.
 * @param {Point | undefined} bin
 * @returns {Partial<Point>}
 */
function pick(bin) {
  return bin && Number.isFinite(bin.x) ? { x: bin.x, y: bin.y } : {};
}
