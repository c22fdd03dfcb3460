/**
 * Each copy drawn under its server in the network view: seats left, the version vector,
 * its bookings (or "2 versions" for siblings), and a "behind" tag. Text, not colour
 * alone, says every state.
 */

import d3 from "d3";
import { fmt, num, t } from "../../i18n.js";
import { vvText } from "./words.js";

/** @import { NetworkView } from "../../network-view.js" */
/** @import { Snapshot } from "../../types.js" */
/** @import { Copy, PartitionSnapshot } from "./types.js" */

/**
 * A line of a copy's box: its class and its text.
 * @typedef {{cls: string, text: string}} Line
 */

const LINE = 16;
const MIN_WIDTH = 116; // the box's narrowest, between the padding
const PAD = 8;

/**
 * Fill the view's node panels from the snapshot's copies.
 * @param {NetworkView} view
 * @param {Snapshot} state the lab's snapshot
 */
export function drawPanels(view, state) {
  const snapshot = /** @type {PartitionSnapshot} */ (state);
  const copies = new Map((snapshot.copies ?? []).map((c) => [c.server, c]));
  const top = view.layout.radius + 16;
  view.panels.each(function fill(node) {
    const copy = copies.get(node.id);
    const g = d3.select(this);
    if (!copy) {
      g.selectAll("*").remove();
      return;
    }
    const lines = panelLines(copy);
    g.attr("data-seats", copy.seats_remaining).classed("is-conflicting", copy.conflicting);
    const bg = g
      .selectAll("rect.pc-panel-bg")
      .data([lines.length])
      .join("rect")
      .attr("class", "pc-panel-bg")
      .attr("y", top - 12)
      .attr("height", (n) => n * LINE + 8)
      .attr("rx", 6);
    const texts = g
      .selectAll("text.pc-line")
      .data(lines)
      .join("text")
      .attr("class", (d) => `pc-line ${d.cls}`)
      .attr("x", 0)
      .attr("y", (d, i) => top + i * LINE)
      .text((d) => d.text);
    // the box fits its widest line (the lines are centred on the server)
    const width = Math.max(MIN_WIDTH, .../** @type {SVGTextElement[]} */ (texts.nodes()).map(textWidth)) + 2 * PAD;
    bg.attr("x", -width / 2).attr("width", width);
  });
}

/**
 * A line's drawn width in viewBox units (0 where the drawing is not laid out).
 * @param {SVGTextElement} node
 */
function textWidth(node) {
  try {
    return node.getComputedTextLength();
  } catch {
    return 0;
  }
}

/**
 * @param {Copy} copy
 * @returns {Line[]}
 */
function panelLines(copy) {
  /** @type {Line[]} */
  const lines = [
    {
      cls: "pc-seats",
      text:
        copy.seats_remaining > 0
          ? fmt(t("seats: %(n)s"), { n: num(copy.seats_remaining) })
          : t("seats: 0 (sold)"),
    },
    { cls: "pc-vv", text: vvText(copy.vv) },
  ];
  if (copy.conflicting) {
    lines.push({
      cls: "pc-siblings",
      text: fmt(t("⚠ %(n)s versions"), { n: num(copy.versions.length) }),
    });
  }
  const seen = new Set();
  for (const version of copy.versions) {
    for (const booking of version.bookings) {
      if (seen.has(booking.id)) continue;
      seen.add(booking.id);
      lines.push({
        cls: booking.status === "standby" ? "pc-standby" : "pc-booking",
        text:
          booking.status === "standby"
            ? fmt(t("%(id)s standby"), booking)
            : fmt(t("%(id)s ✓ %(passenger)s"), booking),
      });
    }
  }
  if (copy.behind) lines.push({ cls: "pc-behind", text: t("behind") });
  return lines.slice(0, 6);
}
