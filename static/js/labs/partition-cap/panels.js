/**
 * Each copy drawn under its server in the network view: seats left, the version vector,
 * its bookings (or "2 versions" for siblings), and a "behind" tag. Text, not colour
 * alone, says every state.
 */

import d3 from "d3";
import { fmt, num, t } from "../../i18n.js";
import { vvText } from "./words.js";

const LINE = 15;

/** Fill the view's node panels from the snapshot's copies. */
export function drawPanels(view, snapshot) {
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
    g.selectAll("rect.pc-panel-bg")
      .data([lines.length])
      .join("rect")
      .attr("class", "pc-panel-bg")
      .attr("x", -66)
      .attr("y", top - 12)
      .attr("width", 132)
      .attr("height", (n) => n * LINE + 8)
      .attr("rx", 6);
    g.selectAll("text.pc-line")
      .data(lines)
      .join("text")
      .attr("class", (d) => `pc-line ${d.cls}`)
      .attr("x", 0)
      .attr("y", (d, i) => top + i * LINE)
      .text((d) => d.text);
  });
}

function panelLines(copy) {
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
