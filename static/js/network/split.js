/**
 * Split the network by drawing a line across it: press on empty space, drag, release.
 * The nodes on each side of the line are marked while dragging; on release the smaller
 * side (the first side on a tie) is handed to `onSplit(group)`. Escape cancels.
 */

import d3 from "d3";
import { sideOf } from "./layout.js";

const MIN_LENGTH = 40; // shorter drags are clicks on the background, not splits

/** Wire the gesture: `backdrop` takes the pointer, `layer` shows the line. */
export function enableSplitGesture({ svg, backdrop, layer, nodes, onSplit, onMark }) {
  let start = null;
  let pointerId = null;
  const line = layer.append("line").attr("class", "split-line").attr("visibility", "hidden");

  function sides(end) {
    const a = [];
    const b = [];
    for (const [id, point] of nodes()) {
      const side = sideOf(start, end, point);
      if (side > 0) a.push(id);
      else if (side < 0) b.push(id);
    }
    return [a, b];
  }

  function finish(event, commit) {
    if (!start) return;
    const end = { x: d3.pointer(event, svg.node())[0], y: d3.pointer(event, svg.node())[1] };
    const long = Math.hypot(end.x - start.x, end.y - start.y) >= MIN_LENGTH;
    const [a, b] = long ? sides(end) : [[], []];
    start = null;
    line.attr("visibility", "hidden");
    onMark(null);
    if (pointerId !== null && backdrop.node().hasPointerCapture?.(pointerId)) {
      backdrop.node().releasePointerCapture(pointerId);
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
      backdrop.node().setPointerCapture?.(event.pointerId);
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
