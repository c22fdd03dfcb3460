/**
 * Piecewise motion over wall time: a list of segments, each moving a point from one place
 * to another between two instants, optionally along an arc that lifts it (a key's flight).
 * The drawn position is kept on the element (`node.__pos`) so that a new frame arriving
 * mid-flight starts from where the dot really is.
 */

import d3 from "d3";

/**
 * A key dot's element, with where it is drawn now and whether it moved in the last change.
 * @typedef {SVGElement & {__pos?: {x: number, y: number}, __moved?: boolean}} DrawnDot
 */

/** A segment: from {x,y} to {x,y}, over [start, end] ms, lifted by `lift` px mid-way. */
export function segment(from, to, start, end, lift = 0) {
  return { from, to, start, end, lift };
}

/** Where a point following `segments` is at time `ms` (segments sorted by start). */
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

/** True when following the segments would move the point at all. */
export function moves(segments) {
  return segments.some((s) => s.from.x !== s.to.x || s.from.y !== s.to.y);
}

/** Where the segments end. */
export function endOf(segments) {
  return segments[segments.length - 1].to;
}

/** Run each element's `d.segments` over `total` ms, writing a translate transform. */
export function play(selection, total, name) {
  selection
    .interrupt(name)
    .transition(name)
    .duration(total)
    .ease(d3.easeLinear)
    .tween("position", function tween(d) {
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

/** Put elements straight at the end of their segments. */
export function settle(selection, name) {
  selection
    .interrupt(name)
    .each(function place(d) {
      const end = endOf(d.segments);
      this.__pos = { x: end.x, y: end.y };
    })
    .attr("transform", function transform() {
      return `translate(${this.__pos.x},${this.__pos.y})`;
    });
}

/** Animate the elements whose segments move, and settle the rest. */
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
 */
export function changedGoals(selection, goalOf) {
  return selection.filter(function changed(d) {
    const goal = goalOf(d);
    if (this.__goal === goal) return false;
    this.__goal = goal;
    return true;
  });
}
