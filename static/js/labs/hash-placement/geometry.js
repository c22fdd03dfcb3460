/**
 * Where things sit in a scheme card's drawing: the ring of the hash space, the lanes that
 * keep key dots apart on it, and arc paths. Pure functions of numbers; no DOM.
 */

export const WIDTH = 400;
// the circle's centre: under a line of its own at the top for the origin's label (ring.js)
export const CENTRE = { x: WIDTH / 2, y: 178 };
/** The baseline of the origin's label ("hash 0 ↻ 4,294,967,295"), centred over the circle. */
export const ORIGIN_LABEL_Y = 16;
export const BAND_INNER = 114;
export const BAND_OUTER = 130;
export const TICK_OUTER = 137;
export const LETTER_RADIUS = 148;
export const LANE_OUTER = 106;
export const LANE_STEP = 7;
export const LANES = 6;
export const DOT_RADIUS = 2.7;
export const RING_BOTTOM = CENTRE.y + LETTER_RADIUS + 14;

/** @import { Point } from "./types.js" */

const TAU = Math.PI * 2;
export const HASH_SPACE = 2 ** 32;

/**
 * The point at `fraction` (0..1, clockwise from 12 o'clock) on a circle of `radius`.
 * @param {number} fraction
 * @param {number} radius
 * @returns {Point}
 */
export function polar(fraction, radius) {
  const angle = fraction * TAU - Math.PI / 2;
  return { x: CENTRE.x + radius * Math.cos(angle), y: CENTRE.y + radius * Math.sin(angle) };
}

/**
 * An SVG path for the ring band between two fractions of the circle, clockwise.
 * @param {number} start
 * @param {number} end
 * @param {number} [inner] radius
 * @param {number} [outer] radius
 */
export function bandPath(start, end, inner = BAND_INNER, outer = BAND_OUTER) {
  const span = Math.min(1, Math.max(0, end - start));
  if (span >= 0.9999) {
    return ringPath(inner, outer);
  }
  const large = span > 0.5 ? 1 : 0;
  const a = polar(start, outer);
  const b = polar(start + span, outer);
  const c = polar(start + span, inner);
  const d = polar(start, inner);
  return [
    `M${a.x},${a.y}`,
    `A${outer},${outer} 0 ${large} 1 ${b.x},${b.y}`,
    `L${c.x},${c.y}`,
    `A${inner},${inner} 0 ${large} 0 ${d.x},${d.y}`,
    "Z",
  ].join("");
}

/**
 * A full annulus (used when one shard owns the whole ring).
 * @param {number} inner
 * @param {number} outer
 */
function ringPath(inner, outer) {
  const { x, y } = CENTRE;
  const circle = (/** @type {number} */ r, /** @type {number} */ sweep) =>
    `M${x},${y - r}A${r},${r} 0 1 ${sweep} ${x},${y + r}A${r},${r} 0 1 ${sweep} ${x},${y - r}Z`;
  return circle(outer, 1) + circle(inner, 0);
}

/**
 * An open arc path along a circle from `start` to `end` (fractions), clockwise.
 * @param {number} start
 * @param {number} end
 * @param {number} radius
 */
export function arcPath(start, end, radius) {
  let span = end - start;
  if (span < 0) span += 1;
  const a = polar(start, radius);
  const b = polar(start + Math.min(span, 0.9999), radius);
  const large = span > 0.5 ? 1 : 0;
  return `M${a.x},${a.y}A${radius},${radius} 0 ${large} 1 ${b.x},${b.y}`;
}

/**
 * Give each dot a lane (a radius inside the band) so that dots with nearby angles do not
 * overlap: the outermost lane whose previous dot is far enough away, sweeping clockwise.
 * `items` are {id, fraction}; returns Map id → radius. Depends only on the angles.
 * @param {{ id: number, fraction: number }[]} items
 * @returns {Map<number, number>}
 */
export function assignLanes(items) {
  const sorted = [...items].sort((p, q) => p.fraction - q.fraction || p.id - q.id);
  const lastInLane = new Array(LANES).fill(-Infinity);
  const radii = new Map();
  for (const item of sorted) {
    let chosen = -1;
    let best = 0;
    let bestGap = -Infinity;
    for (let lane = 0; lane < LANES; lane += 1) {
      const radius = LANE_OUTER - lane * LANE_STEP;
      const gap = (item.fraction - lastInLane[lane]) * TAU * radius;
      if (gap >= DOT_RADIUS * 2 + 0.8) {
        chosen = lane;
        break;
      }
      if (gap > bestGap) {
        bestGap = gap;
        best = lane;
      }
    }
    const lane = chosen === -1 ? best : chosen;
    lastInLane[lane] = item.fraction;
    radii.set(item.id, LANE_OUTER - lane * LANE_STEP);
  }
  return radii;
}

/**
 * Linear interpolation between two points.
 * @param {Point} a
 * @param {Point} b
 * @param {number} t 0 at `a`, 1 at `b`
 * @returns {Point}
 */
export function lerpPoint(a, b, t) {
  return { x: a.x + (b.x - a.x) * t, y: a.y + (b.y - a.y) * t };
}
