/**
 * Where things sit in the network drawing: the viewBox (wide or narrow), node positions
 * (a circle unless the lab says otherwise), and points along a link.
 */

/** @import { Point } from "./types.js" */

export const NODE_RADIUS = 24;
const LANE = 5; // the two directions of a link fly a little apart

/**
 * The viewBox sizes: one for wide screens, one for phones.
 * @type {{wide: [number, number], narrow: [number, number]}}
 */
export const SIZES = { wide: [960, 440], narrow: [400, 520] };

/**
 * Where a lab wants its nodes: `{id: [fx, fy]}` in fractions of the drawing, or a
 * function of the nodes and the drawing's size giving that (null: all on the circle).
 * @typedef {Record<string, [number, number]>
 *   | ((nodes: {id: string}[], size: {width: number, height: number, narrow: boolean})
 *       => Record<string, [number, number]> | null)} Positions
 */

/**
 * Positions in viewBox units, `Map(id → {x, y})`. `positions` is the lab's choice: an
 * object `{id: [fx, fy]}` of fractions of the drawing, or a function
 * `(nodes, {width, height, narrow}) → such an object`; nodes it leaves out go on the circle.
 * @param {{id: string}[]} nodes
 * @param {{width: number, height: number, narrow: boolean}} size
 * @param {Positions | null} [positions]
 * @returns {Map<string, Point>}
 */
export function placeNodes(nodes, { width, height, narrow }, positions = null) {
  const chosen =
    typeof positions === "function" ? positions(nodes, { width, height, narrow }) : positions;
  const circle = circleLayout(nodes, width, height);
  const placed = new Map();
  for (const node of nodes) {
    const fraction = chosen?.[node.id];
    placed.set(
      node.id,
      fraction
        ? { x: fraction[0] * width, y: fraction[1] * height }
        : /** @type {Point} */ (circle.get(node.id)),
    );
  }
  return placed;
}

/**
 * Nodes evenly on a circle, the first at the top, clockwise.
 * @param {{id: string}[]} nodes
 * @param {number} width
 * @param {number} height
 * @returns {Map<string, Point>}
 */
function circleLayout(nodes, width, height) {
  const cx = width / 2;
  const cy = height / 2;
  const radius = Math.max(
    40,
    Math.min(width / 2 - NODE_RADIUS - 40, height / 2 - NODE_RADIUS - 56),
  );
  const count = Math.max(1, nodes.length);
  const out = new Map();
  nodes.forEach((node, index) => {
    if (count === 2) {
      out.set(node.id, { x: cx + (index === 0 ? -1 : 1) * radius * 1.2, y: cy });
      return;
    }
    const angle = -Math.PI / 2 + (2 * Math.PI * index) / count;
    out.set(node.id, { x: cx + radius * Math.cos(angle), y: cy + radius * Math.sin(angle) });
  });
  return out;
}

/**
 * The unit vector from the drawing's centre towards `point` (for placing panels outward).
 * @param {Point} point
 * @param {number} width
 * @param {number} height
 * @returns {Point}
 */
export function outward(point, width, height) {
  const dx = point.x - width / 2;
  const dy = point.y - height / 2;
  const length = Math.hypot(dx, dy);
  return length < 1 ? { x: 0, y: 1 } : { x: dx / length, y: dy / length };
}

/**
 * A message's path on its link: it starts at (x0, y0) and runs (dx, dy); `at(progress)` is
 * the point `progress` (0..1) of the way along.
 * @typedef {{x0: number, y0: number, dx: number, dy: number,
 *   at: (progress: number) => Point}} MessagePath
 */

/**
 * A message's path on its link: from the edge of `from`'s circle to the edge of `to`'s,
 * shifted sideways into its direction's lane. Returns `at(progress) → {x, y}`.
 * @param {Point} from
 * @param {Point} to
 * @param {number} [radius]
 * @returns {MessagePath}
 */
export function messagePath(from, to, radius = NODE_RADIUS) {
  const dx = to.x - from.x;
  const dy = to.y - from.y;
  const length = Math.hypot(dx, dy) || 1;
  const ux = dx / length;
  const uy = dy / length;
  // the lane is to the right of the direction of travel, so the two directions part
  const lx = -uy * LANE;
  const ly = ux * LANE;
  const x0 = from.x + ux * (radius + 4) + lx;
  const y0 = from.y + uy * (radius + 4) + ly;
  const span = Math.max(0, length - 2 * (radius + 4));
  return {
    x0,
    y0,
    dx: ux * span,
    dy: uy * span,
    /** @param {number} progress */
    at(progress) {
      return { x: x0 + ux * span * progress, y: y0 + uy * span * progress };
    },
  };
}

/**
 * Which side of the line a→b the point p is on: -1, 0 or 1.
 * @param {Point} a
 * @param {Point} b
 * @param {Point} p
 * @returns {number}
 */
export function sideOf(a, b, p) {
  const cross = (b.x - a.x) * (p.y - a.y) - (b.y - a.y) * (p.x - a.x);
  return Math.sign(cross);
}
