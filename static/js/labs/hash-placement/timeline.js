/**
 * Piecewise motion over wall time: a list of segments, each moving a point from one place
 * to another between two instants, optionally along an arc that lifts it (a key's flight).
 * The drawn position is kept on the element (`node.__pos`) so that a new frame arriving
 * mid-flight starts from where the dot really is.
 */

import d3 from "d3";

/** @import { BaseType, Selection } from "d3" */
/** @import { Point, Segment } from "./types.js" */

/**
 * An element that keeps where it is drawn now (`__pos`).
 * @typedef {{ __pos?: Point }} Positioned
 */

/**
 * A segment: from {x,y} to {x,y}, over [start, end] ms, lifted by `lift` px mid-way.
 * @param {Point} from
 * @param {Point} to
 * @param {number} start
 * @param {number} end
 * @param {number} [lift]
 * @returns {Segment}
 */
export function segment(from, to, start, end, lift = 0) {
  return { from, to, start, end, lift };
}

/**
 * Where a point following `segments` is at time `ms` (segments sorted by start).
 * @param {Segment[]} segments
 * @param {number} ms
 * @returns {Point}
 */
export function positionAt(segments, ms) {
  let point = segments[0].from;
  for (const s of segments) {
    if (ms < s.start) return point;
    if (ms >= s.end) {
      point = s.to;
      continue;
    }
    const e = d3.easeCubicInOut((ms - s.start) / (s.end - s.start));
    return {
      x: s.from.x + (s.to.x - s.from.x) * e,
      y: s.from.y + (s.to.y - s.from.y) * e - s.lift * Math.sin(Math.PI * e),
    };
  }
  return point;
}

/**
 * Where a point following `segments` is drawn at `ms` when motion is reduced, and how
 * opaque: {x, y, alpha}. It does not travel: over the segment that moves it (a key's
 * flight) it fades out where it was and fades in where it lands. Segments that take no
 * time (every other motion, with motion reduced) jump.
 * @param {Segment[]} segments
 * @param {number} ms
 * @returns {Point & { alpha: number }}
 */
export function fadeAt(segments, ms) {
  let point = segments[0].from;
  for (const s of segments) {
    if (ms < s.start) return { ...point, alpha: 1 };
    if (ms >= s.end) {
      point = s.to;
      continue;
    }
    const u = (ms - s.start) / (s.end - s.start);
    return u < 0.5 ? { ...s.from, alpha: 1 - 2 * u } : { ...s.to, alpha: 2 * u - 1 };
  }
  return { ...point, alpha: 1 };
}

/**
 * True when following the segments would move the point at all.
 * @param {Segment[]} segments
 */
export function moves(segments) {
  return segments.some((s) => s.from.x !== s.to.x || s.from.y !== s.to.y);
}

/**
 * Where the segments end.
 * @param {Segment[]} segments
 */
export function endOf(segments) {
  return segments[segments.length - 1].to;
}

/**
 * Run each element's `d.segments` over `total` ms, writing a translate transform.
 * @template {Element} E
 * @template {{ segments: Segment[] }} D
 * @template {BaseType} P
 * @template PD
 * @param {Selection<E, D, P, PD>} selection
 * @param {number} total
 * @param {string} name the transition's
 */
export function play(selection, total, name) {
  selection
    .interrupt(name)
    .transition(name)
    .duration(total)
    .ease(d3.easeLinear)
    .tween("position", /** @this {E & Positioned} */ function tween(d) {
      const node = this;
      const segments = d.segments;
      return (u) => {
        const p = positionAt(segments, u * total);
        const last = node.__pos;
        // Writing an unchanged transform still costs a style recalculation: skip it.
        if (last && last.x === p.x && last.y === p.y) return;
        node.__pos = p;
        node.setAttribute("transform", `translate(${p.x},${p.y})`);
      };
    });
}

/**
 * Put elements straight at the end of their segments.
 * @template {Element} E
 * @template {{ segments: Segment[] }} D
 * @template {BaseType} P
 * @template PD
 * @param {Selection<E, D, P, PD>} selection
 * @param {string} name the transition's
 */
export function settle(selection, name) {
  selection
    .interrupt(name)
    .each(/** @this {E & Positioned} */ function place(d) {
      const end = endOf(d.segments);
      this.__pos = { x: end.x, y: end.y };
    })
    .attr("transform", /** @this {E & Positioned} */ function transform() {
      const at = /** @type {Point} */ (this.__pos); // just placed
      return `translate(${at.x},${at.y})`;
    });
}

/**
 * Animate the elements whose segments move, and settle the rest.
 * @template {Element} E
 * @template {{ segments: Segment[] }} D
 * @template {BaseType} P
 * @template PD
 * @param {Selection<E, D, P, PD>} selection
 * @param {number} total
 * @param {string} name the transitions'
 */
export function run(selection, total, name) {
  play(
    selection.filter((d) => moves(d.segments)),
    total,
    name,
  );
  settle(
    selection.filter((d) => !moves(d.segments)),
    name,
  );
}

/**
 * Keep only the elements whose goal (a string from `goalOf(d)`) changed since the last
 * call, and remember the new goals: an element already heading to the right place is left
 * to finish its motion undisturbed.
 * @template {BaseType} E
 * @template D
 * @template {BaseType} P
 * @template PD
 * @param {Selection<E, D, P, PD>} selection
 * @param {(d: D) => string} goalOf
 */
export function changedGoals(selection, goalOf) {
  return selection.filter(function changed(d) {
    // (the selections' elements are d3's BaseType, which includes null: none is)
    const node = /** @type {{ __goal?: string }} */ (this);
    const goal = goalOf(d);
    if (node.__goal === goal) return false;
    node.__goal = goal;
    return true;
  });
}
