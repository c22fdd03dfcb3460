/**
 * A key's name under the pointer. The ring's key dots are drawn on a canvas (painter.js)
 * and their SVG circles are not rendered, so nothing the pointer rests on carries a key's
 * title. One transparent circle in the card's back SVG follows the pointer to the nearest
 * key dot and carries that dot's title ("N12345 on shard B"), which the browser shows as
 * it showed the circles' own.
 */

/** @import { DotNode, Group, Point } from "./types.js" */

/**
 * Hover titles for the circles in the d3 group `dots` (each with a `<title>`), pointed at
 * in `figure`, the proxy circle in the d3 SVG `svg`. Returns {destroy}.
 * @param {HTMLElement} figure
 * @param {import("d3").Selection<SVGSVGElement, unknown, null, undefined>} svg
 * @param {Group} dots
 * @param {number} radius the dots' radius, in the SVG's units
 */
export function createDotHover(figure, svg, dots, radius) {
  const proxy = svg
    .append("circle")
    .attr("class", "dot-hover")
    .attr("r", radius + 1.5)
    .attr("display", "none");
  const title = proxy.append("title");
  const reach = (radius + 3) ** 2;
  /** @type {DotNode | null} */
  let current = null;

  /** @param {PointerEvent} event */
  function move(event) {
    const matrix = /** @type {SVGSVGElement} */ (svg.node()).getScreenCTM();
    if (!matrix) return;
    const p = new DOMPoint(event.clientX, event.clientY).matrixTransform(matrix.inverse());
    let nearest = null;
    let best = reach;
    for (const node of /** @type {HTMLCollectionOf<DotNode>} */ (/** @type {SVGGElement} */ (dots.node()).children)) {
      const at = placeOf(node);
      const distance = (at.x - p.x) ** 2 + (at.y - p.y) ** 2;
      if (distance <= best) {
        nearest = node;
        best = distance;
      }
    }
    show(nearest);
  }

  /** @param {DotNode | null} node */
  function show(node) {
    if (node === current) return;
    current = node;
    if (!node) {
      proxy.attr("display", "none");
      return;
    }
    const at = placeOf(node);
    proxy.attr("cx", at.x).attr("cy", at.y).attr("display", null);
    title.text(node.querySelector("title")?.textContent ?? "");
  }

  const leave = () => show(null);
  figure.addEventListener("pointermove", move);
  figure.addEventListener("pointerleave", leave);
  return {
    destroy() {
      figure.removeEventListener("pointermove", move);
      figure.removeEventListener("pointerleave", leave);
    },
  };
}

/**
 * Where a dot's circle is at rest (painter.js remembers it), in the SVG's units.
 * @param {DotNode} node
 * @returns {Point}
 */
function placeOf(node) {
  return node.__rest ?? { x: Number(node.getAttribute("cx")), y: Number(node.getAttribute("cy")) };
}
