/**
 * A looked-up key's path on one card: its hash marked on the circle, then the partition or
 * the walk clockwise to the next token, then a line down to the shard's bin, with the numbers
 * written out in words beside the drawing.
 */

import { fmt, num, t } from "../../i18n.js";
import { duration } from "../../motion.js";
import {
  BAND_INNER,
  BAND_OUTER,
  CENTRE,
  HASH_SPACE,
  TICK_OUTER,
  WIDTH,
  arcPath,
  bandPath,
  polar,
} from "./geometry.js";

/** @import { Box, Group, Lookup, LookupPaths, ModPath, PartitionsPath, RingPath, Scheme } from "./types.js" */

const REDIS_SLOTS = 16384;
const MIN_WEDGE = 0.008;

/**
 * Draw `lookup` (the event) for `scheme` into the d3 group `layer`; `binOf(shard)` gives a
 * bin's box and `partitionCount` the current number of partitions.
 * @param {Group} layer
 * @param {Scheme} scheme
 * @param {Lookup | null} lookup
 * @param {{ binOf: (shard: string) => Box | undefined, partitionCount: number | undefined,
 *   arrowhead: string }} how `arrowhead`: the marker's url()
 */
export function drawLookup(layer, scheme, lookup, { binOf, partitionCount, arrowhead }) {
  layer.selectAll("*").remove();
  if (!lookup) return;
  const path = lookup.paths[scheme];
  const at = fractionFor(scheme, lookup, path);
  const mid = (BAND_INNER + BAND_OUTER) / 2;
  const pin = polar(at, mid);
  let leaveFrom = pin;
  if (scheme === "partitions") {
    const count = /** @type {number} */ (
      /** @type {PartitionsPath} */ (path).hash_fn === "crc16" ? REDIS_SLOTS : partitionCount
    );
    const start = /** @type {PartitionsPath} */ (path).partition / count;
    const span = Math.max(MIN_WEDGE, 1 / count);
    layer
      .append("path")
      .attr("class", "lookup-wedge")
      .attr("d", bandPath(start, start + span, BAND_INNER - 3, BAND_OUTER + 3));
  }
  if (scheme === "ring") {
    const token = /** @type {RingPath} */ (path).token / HASH_SPACE;
    layer
      .append("path")
      .attr("class", "lookup-walk")
      .attr("d", arcPath(at, token, TICK_OUTER + 5))
      .attr("marker-end", arrowhead);
    const a = polar(token, BAND_INNER - 4);
    const b = polar(token, TICK_OUTER + 2);
    layer
      .append("line")
      .attr("class", "lookup-token")
      .attr("x1", a.x)
      .attr("y1", a.y)
      .attr("x2", b.x)
      .attr("y2", b.y);
    leaveFrom = polar(token, mid);
  }
  const bin = binOf(path.shard);
  if (bin) {
    const target = { x: bin.x + bin.w / 2, y: bin.y - 2 };
    const line = layer
      .append("path")
      .attr("class", "lookup-line")
      .attr("d", `M${leaveFrom.x},${leaveFrom.y}Q${CENTRE.x},${CENTRE.y} ${target.x},${target.y}`)
      .attr("marker-end", arrowhead);
    drawIn(line);
  }
  layer
    .append("circle")
    .attr("class", "lookup-pin")
    .attr("cx", pin.x)
    .attr("cy", pin.y)
    .attr("r", 7);
  const label = polar(at, TICK_OUTER + 16);
  const text = layer
    .append("text")
    .attr("class", "lookup-label")
    .attr("x", label.x)
    .attr("y", label.y)
    .attr("dy", "0.35em")
    .text(lookup.key);
  keepInside(text, label.x, at > 0.5 ? "end" : "start");
}

/**
 * The lookup in words, for the card's text line.
 * @param {Scheme} scheme
 * @param {Lookup} lookup
 */
export function lookupSentence(scheme, lookup) {
  // (the path of `scheme`: each branch below names its type)
  const path = lookup.paths[scheme];
  const values = { key: lookup.key, shard: path.shard };
  if (scheme === "mod") {
    const mod = /** @type {ModPath} */ (path);
    return fmt(t("%(key)s: hash %(hash)s mod %(n)s = %(r)s → shard %(shard)s"), {
      ...values,
      hash: num(mod.hash),
      n: num(mod.shard_count),
      r: num(mod.remainder),
    });
  }
  const partitions = /** @type {PartitionsPath} */ (path);
  if (scheme === "partitions" && partitions.hash_fn === "crc16") {
    return fmt(t("%(key)s: CRC16 → slot %(slot)s of 16,384 → shard %(shard)s"), {
      ...values,
      slot: num(partitions.partition),
    });
  }
  if (scheme === "partitions") {
    return fmt(t("%(key)s: hash %(hash)s → partition %(p)s → shard %(shard)s"), {
      ...values,
      hash: num(partitions.value),
      p: num(partitions.partition),
    });
  }
  const ring = /** @type {RingPath} */ (path);
  return fmt(t("%(key)s: hash %(hash)s → next token clockwise %(token)s → shard %(shard)s"), {
    ...values,
    hash: num(ring.hash),
    token: num(ring.token),
  });
}

/**
 * Where the looked-up key sits on the card's circle (0..1).
 * @param {Scheme} scheme
 * @param {Lookup} lookup
 * @param {LookupPaths[Scheme]} path the path of `scheme`
 */
function fractionFor(scheme, lookup, path) {
  const partitions = /** @type {PartitionsPath} */ (path);
  if (scheme === "partitions" && partitions.hash_fn === "crc16") return partitions.value / REDIS_SLOTS;
  if (scheme === "partitions") return partitions.value / HASH_SPACE;
  return /** @type {ModPath | RingPath} */ (path).hash / HASH_SPACE;
}

/**
 * Anchor the label on the side away from the circle, but never past the card's edges.
 * @param {import("d3").Selection<SVGTextElement, unknown, null, undefined>} text
 * @param {number} x
 * @param {"start" | "end"} anchor
 */
function keepInside(text, x, anchor) {
  const width = /** @type {SVGTextElement} */ (text.node()).getComputedTextLength?.() ?? 0;
  let left = anchor === "end" ? x - width : x;
  left = Math.max(2, Math.min(WIDTH - 2 - width, left));
  text.attr("text-anchor", "start").attr("x", left);
}

/**
 * Draw the path in, from its start to its end.
 * @param {import("d3").Selection<SVGPathElement, unknown, null, undefined>} path
 */
function drawIn(path) {
  const node = /** @type {SVGPathElement} */ (path.node());
  const length = node.getTotalLength();
  path
    .attr("stroke-dasharray", `${length} ${length}`)
    .attr("stroke-dashoffset", length)
    .transition()
    .duration(duration(700))
    .attr("stroke-dashoffset", 0)
    .on("end", () => path.attr("stroke-dasharray", null));
}
