/**
 * The boundary tables, beside or under the stage: each table's slices in key order
 * (kept sorted by the lab), with the slices the last range query read marked, and the
 * keys per shard of the three placements as bar charts.
 */

import { createBarChart } from "../../charts.js";
import { fmt, num, t } from "../../i18n.js";
import { shardColour } from "../../palette.js";

/** @import { Snapshot } from "../../types.js" */
/** @import { RangeMetrics, RangeSnapshot } from "./types.js" */

const SHOWN_ROWS = 60;

/**
 * @param {HTMLElement} parent
 * @param {{key: string, title: string}[]} tables
 */
export function createBoundaryTables(parent, tables) {
  const root = document.createElement("div");
  root.className = "rs-side";
  parent.append(root);
  const parts = tables.map(({ key, title }) => {
    const section = document.createElement("section");
    section.className = "rs-boundaries";
    section.dataset.policy = key;
    const head = document.createElement("h2");
    head.textContent = fmt(t("Boundary table: %(table)s"), { table: title });
    const wrap = document.createElement("div");
    wrap.className = "rs-table-wrap";
    wrap.tabIndex = 0;
    wrap.setAttribute("role", "region");
    wrap.setAttribute("aria-label", head.textContent);
    const table = document.createElement("table");
    table.innerHTML = "<thead><tr><th scope='col'></th><th scope='col'></th><th scope='col'></th><th scope='col'></th><th scope='col'></th><th scope='col'></th></tr></thead><tbody></tbody>";
    const labels = [t("Slice"), t("From key"), t("To key"), t("Shard"), t("Keys"), t("Writes this second")];
    table.querySelectorAll("th").forEach((th, i) => (th.textContent = labels[i]));
    const more = document.createElement("p");
    more.className = "rs-more";
    wrap.append(table);
    section.append(head, wrap, more);
    root.append(section);
    return { key, body: /** @type {HTMLElement} */ (table.tBodies[0]), more };
  });

  /** @param {Snapshot} snapshot */
  function update(snapshot) {
    const { query, tables } = /** @type {RangeSnapshot} */ (snapshot);
    const read = query?.slices ?? {};
    for (const part of parts) {
      const rows = tables[part.key].slices;
      const marked = read[part.key] ?? [];
      // the rows the query read first come into the shown part
      const start = marked.length
        ? Math.max(0, Math.min(rows.findIndex((r) => r.id === marked[0]) - 3, rows.length - SHOWN_ROWS))
        : 0;
      const shown = rows.slice(start, start + SHOWN_ROWS);
      part.body.replaceChildren(
        ...shown.map((r) => {
          const tr = document.createElement("tr");
          if (marked.includes(r.id)) tr.className = "is-read";
          const cells = [
            `#${r.id}`,
            r.start === "" ? t("(the start)") : r.start,
            r.end === null ? t("(the end)") : r.end,
            r.shard,
            num(r.keys),
            num(r.writes),
          ];
          for (const [i, text] of cells.entries()) {
            const td = document.createElement("td");
            td.textContent = text;
            if (i === 3) {
              td.className = "rs-shard-cell";
              td.style.setProperty("--shard", shardColour(r.shard));
            }
            tr.append(td);
          }
          return tr;
        }),
      );
      part.more.textContent =
        rows.length > shown.length
          ? fmt(t("Rows %(first)s to %(last)s of %(count)s."), {
              first: num(start + 1),
              last: num(start + shown.length),
              count: num(rows.length),
            })
          : "";
    }
  }

  return {
    update,
    destroy() {
      root.remove();
    },
  };
}

/**
 * Keys per shard under each placement, as bar charts, in the metrics slot.
 * @param {HTMLElement | null} parent
 * @param {{key: string, title: string}[]} placements
 */
export function createKeyCharts(parent, placements) {
  if (!parent) return { update() {}, destroy() {} };
  const root = document.createElement("div");
  root.className = "rs-charts";
  parent.append(root);
  const charts = placements.map(({ key, title }) => {
    const figure = document.createElement("figure");
    const caption = document.createElement("figcaption");
    caption.textContent = fmt(t("Keys per shard: %(placement)s"), { placement: title });
    figure.append(caption);
    root.append(figure);
    return { key, chart: createBarChart(figure, { title: caption.textContent }) };
  });
  return {
    /** @param {Record<string, any> | null} metrics */
    update(metrics) {
      for (const { key, chart } of charts) chart.update(/** @type {RangeMetrics} */ (metrics).keys_per_shard[key]);
    },
    destroy() {
      root.remove();
    },
  };
}
