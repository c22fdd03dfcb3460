/**
 * Split the network by drawing a line across it: press on empty space, drag, release.
 * The nodes on each side of the line are marked while dragging; on release the smaller
 * side (the first side on a tie) is handed to `onSplit(group)`. Escape cancels.
 */

import d3 from "d3";
import { sideOf } from "./layout.js";

/** @import { Point } from "./types.js" */

const MIN_LENGTH = 40; // shorter drags are clicks on the background, not splits

/**
 * The two sides of a line being drawn: the nodes on either side.
 * @typedef {{a: string[], b: string[]}} Sides
 */

/**
 * Wire the gesture: `backdrop` takes the pointer, `layer` shows the line. Returns what
 * unwires it.
 * @param {object} parts
 * @param {import("d3").Selection<SVGSVGElement, unknown, null, undefined>} parts.svg
 * @param {import("d3").Selection<SVGRectElement, unknown, null, undefined>} parts.backdrop
 * @param {import("d3").Selection<SVGGElement, unknown, null, undefined>} parts.layer
 * @param {() => Map<string, Point>} parts.nodes where every node is now
 * @param {(group: string[]) => void} parts.onSplit the smaller side, on release
 * @param {(sides: Sides | null) => void} parts.onMark while dragging; null: no line
 * @returns {() => void}
 */
export function enableSplitGesture({ svg, backdrop, layer, nodes, onSplit, onMark }) {
  /** @type {Point | null} */
  let start = null;
  /** @type {number | null} */
  let pointerId = null;
  // the backdrop's element (there while the gesture is wired)
  const surface = () => /** @type {SVGRectElement} */ (backdrop.node());
  const line = layer.append("line").attr("class", "split-line").attr("visibility", "hidden");

  /**
   * @param {Point} end
   * @returns {[string[], string[]]}
   */
  function sides(end) {
    const a = [];
    const b = [];
    for (const [id, point] of nodes()) {
      const side = sideOf(/** @type {Point} */ (start), end, point);
      if (side > 0) a.push(id);
      else if (side < 0) b.push(id);
    }
    return [a, b];
  }

  /**
   * @param {PointerEvent} event
   * @param {boolean} commit
   */
  function finish(event, commit) {
    if (!start) return;
    const end = { x: d3.pointer(event, svg.node())[0], y: d3.pointer(event, svg.node())[1] };
    const long = Math.hypot(end.x - start.x, end.y - start.y) >= MIN_LENGTH;
    const [a, b] = long ? sides(end) : [[], []];
    start = null;
    line.attr("visibility", "hidden");
    onMark(null);
    if (pointerId !== null && surface().hasPointerCapture?.(pointerId)) {
      surface().releasePointerCapture(pointerId);
    }
    pointerId = null;
    if (commit && long && a.length && b.length) onSplit(a.length <= b.length ? a : b);
  }

  backdrop
    .on("pointerdown.split", (event) => {
      if (event.button !== 0) return;
      const [x, y] = d3.pointer(event, svg.node());
      start = { x, y };
      pointerId = event.pointerId;
      surface().setPointerCapture?.(event.pointerId);
      line.attr("x1", x).attr("y1", y).attr("x2", x).attr("y2", y);
      event.preventDefault();
    })
    .on("pointermove.split", (event) => {
      if (!start) return;
      const [x, y] = d3.pointer(event, svg.node());
      line.attr("x2", x).attr("y2", y).attr("visibility", "visible");
      if (Math.hypot(x - start.x, y - start.y) >= MIN_LENGTH) {
        const [a, b] = sides({ x, y });
        onMark({ a, b });
      }
    })
    .on("pointerup.split", (event) => finish(event, true))
    .on("pointercancel.split", (event) => finish(event, false));

  /** @param {KeyboardEvent} event */
  function onKey(event) {
    if (event.key === "Escape" && start) {
      start = null;
      line.attr("visibility", "hidden");
      onMark(null);
    }
  }
  document.addEventListener("keydown", onKey);
  return () => {
    document.removeEventListener("keydown", onKey);
    backdrop.on(".split", null);
  };
}
