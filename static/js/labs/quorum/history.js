/**
 * The history panel: every client operation with its times, what it returned, what it
 * should have returned, and whether it was stale. A stale read is marked with a word and
 * an icon (and its row's colour), never colour alone.
 */

import d3 from "d3";
import { fmt, num, t } from "../../i18n.js";
import { failureText, levelText, msText } from "./words.js";

/** @import { Snapshot } from "../../types.js" */
/** @import { QuorumOp, QuorumSnapshot } from "./types.js" */

/**
 * One cell of a row: its text, and its class and title if any.
 * @typedef {{text: string, cls?: string, title?: string}} Cell
 */

// What a read returned and its verdict come first, so that a phone shows STALE without
// scrolling the table sideways; how and when it ran follows.
const COLUMNS = [
  () => t("Operation"),
  () => t("Value"),
  () => t("Should be"),
  () => t("Verdict"),
  () => t("Status"),
  () => t("Coordinator"),
  () => t("Level"),
  () => t("Invoked"),
  () => t("Done"),
];

/**
 * Build the panel inside `parent`; returns {update(snapshot)}.
 * @param {HTMLElement} parent
 */
export function createHistory(parent) {
  const section = d3
    .select(parent)
    .append("section")
    .attr("class", "q-history")
    .attr("data-spot", "history"); // a tour step points here (tour/spotlight.js)
  section.append("h2").attr("id", "q-history-title").text(t("Operation history"));
  const intro = section.append("p").attr("class", "q-note");
  const wrap = section.append("div").attr("class", "q-table-wrap").attr("tabindex", 0);
  wrap.attr("role", "region").attr("aria-labelledby", "q-history-title");
  const table = wrap.append("table").attr("class", "q-table");
  table
    .append("caption")
    .attr("class", "visually-hidden")
    .text(t("Client operations, newest first"));
  table
    .append("thead")
    .append("tr")
    .selectAll("th")
    .data(COLUMNS)
    .join("th")
    .attr("scope", "col")
    .text((label) => label());
  const body = table.append("tbody");

  return {
    /** @param {Snapshot} state the lab's snapshot */
    update(state) {
      const snapshot = /** @type {QuorumSnapshot} */ (state);
      const history = snapshot.history ?? [];
      const shown = history.length;
      const total = snapshot.history_total ?? shown;
      const note =
        total === 0
          ? t("No operations yet: write, then read.")
          : total > shown
            ? fmt(t("The last %(shown)s of %(total)s operations, newest first."), {
                shown: num(shown),
                total: num(total),
              })
            : t("Newest first. A read is stale when it returned a value that a write finished before the read began had already replaced.");
      if (intro.text() !== note) intro.text(note);
      // A playing lab draws ten frames a second: a row is written again only when its
      // operation changed (every cell written would lay the table out again).
      body
        .selectAll("tr")
        .data([...history].reverse(), (op) => op.id)
        .join((enter) => enter.append("tr"))
        .each((op, i, all) => {
          const tr = /** @type {HTMLTableRowElement} */ (all[i]);
          const key = `${snapshot.copies}|${JSON.stringify(op)}`;
          if (drawnKeys.get(tr) === key) return;
          drawnKeys.set(tr, key);
          const row = d3
            .select(tr)
            .attr("data-op", op.id)
            .attr("data-kind", op.kind)
            .attr("data-status", op.status)
            .attr("data-stale", op.kind === "read" ? String(Boolean(op.stale)) : null)
            .classed("is-stale", Boolean(op.stale))
            .classed("is-failed", op.status === "failed");
          row
            .selectAll("td")
            .data(cells(op, snapshot.copies))
            .join("td")
            .attr("class", (cell) => cell.cls ?? null)
            .attr("title", (cell) => cell.title ?? null)
            .text((cell) => cell.text);
        });
    },
  };
}

/** @type {WeakMap<HTMLTableRowElement, string>} */
const drawnKeys = new WeakMap(); // a row → its operation as last written

/**
 * @param {QuorumOp} op
 * @param {number} copies
 * @returns {Cell[]}
 */
function cells(op, copies) {
  const kind = op.kind === "write" ? t("write") : t("read");
  return [
    { text: `#${num(op.id)} ${kind}`, cls: "q-op" },
    { text: valueText(op), cls: "q-num" },
    // (a read that returned knows what it should have returned)
    {
      text: op.kind === "read" && op.status === "ok" ? num(/** @type {number} */ (op.expected)) : "",
      cls: "q-num",
    },
    verdictCell(op),
    statusCell(op, copies),
    { text: op.coordinator },
    { text: levelText(op.level, op.needed, copies) },
    { text: msText(op.invoke_ms), cls: "q-num" },
    { text: msText(op.complete_ms), cls: "q-num" },
  ];
}

/**
 * @param {QuorumOp} op
 * @param {number} copies
 * @returns {Cell}
 */
function statusCell(op, copies) {
  if (op.status === "ok") return { text: t("ok"), cls: "q-status-ok" };
  if (op.status === "pending") {
    return {
      text: fmt(t("waiting (%(got)s of %(needed)s)"), {
        got: num(op.confirmed.length),
        needed: num(op.needed),
      }),
      cls: "q-status-pending",
    };
  }
  const why = failureText(op, copies);
  return { text: fmt(t("failed: %(why)s"), { why }), cls: "q-status-failed", title: why };
}

/** @param {QuorumOp} op */
function valueText(op) {
  // a write carries its value from the start; a read, once it returned
  const value = /** @type {number} */ (op.value);
  if (op.kind === "write") return fmt(t("wrote %(value)s"), { value: num(value) });
  return op.status === "ok" ? num(value) : "";
}

/**
 * @param {QuorumOp} op
 * @returns {Cell}
 */
function verdictCell(op) {
  if (op.kind !== "read" || op.status !== "ok") return { text: "" };
  if (op.stale) return { text: t("⚠ STALE"), cls: "q-verdict-stale" };
  if (op.value !== op.expected) {
    return {
      text: t("not stale (a concurrent or failed write)"),
      cls: "q-verdict-fresh",
    };
  }
  return { text: t("✓ latest"), cls: "q-verdict-fresh" };
}
