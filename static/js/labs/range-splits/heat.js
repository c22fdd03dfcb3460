/**
 * The write heat: for each placement, a strip with a row per shard and a column per
 * quarter second of the stream's last minute, shaded by how many writes that shard took
 * then. Drawn on a canvas (240 columns by up to 8 rows, three times); the shard letters
 * and a spoken summary beside it.
 */

import { fmt, num, percent, t } from "../../i18n.js";
import { shardColour } from "../../palette.js";

/** @import { Snapshot } from "../../types.js" */
/** @import { RangeMetrics, RangeSnapshot } from "./types.js" */

const COLUMNS = 240;
const ROW = 6;

/**
 * @param {HTMLElement} parent
 * @param {{key: string, title: string}[]} placements
 */
export function createHeat(parent, placements) {
  const root = document.createElement("section");
  root.className = "rs-heat";
  root.dataset.spot = "heat";
  const head = document.createElement("h2");
  head.className = "rs-panel-title";
  head.textContent = t("Writes per shard, over the last minute of the stream");
  root.append(head);
  const strips = placements.map(({ key, title }) => {
    const row = document.createElement("div");
    row.className = "rs-heat-row";
    row.dataset.placement = key;
    const label = document.createElement("span");
    label.className = "rs-heat-label";
    label.textContent = title;
    const canvas = document.createElement("canvas");
    canvas.className = "rs-heat-canvas";
    canvas.setAttribute("role", "img");
    const share = document.createElement("span");
    share.className = "rs-heat-share";
    row.append(label, canvas, share);
    root.append(row);
    return { key, title, canvas, share };
  });
  parent.append(root);

  /**
   * @param {Snapshot} snapshot
   * @param {Record<string, any> | null} metrics
   */
  function update(snapshot, metrics) {
    const { heat, shards } = /** @type {RangeSnapshot} */ (snapshot);
    const { columns } = heat;
    const last = columns.length ? columns[columns.length - 1].bucket : 0;
    // the strip runs from the first column kept (a minute back at most) to now
    const first = columns.length ? Math.max(columns[0].bucket, last - COLUMNS + 1) : 0;
    const span = last - first + 1;
    for (const strip of strips) {
      const { canvas } = strip;
      canvas.width = span;
      canvas.height = shards.length * ROW;
      const ctx = canvas.getContext("2d");
      if (!ctx) continue;
      ctx.clearRect(0, 0, canvas.width, canvas.height);
      let most = 1;
      for (const c of columns) for (const s of shards) most = Math.max(most, c[strip.key][s] ?? 0);
      for (const c of columns) {
        const x = c.bucket - first;
        if (x < 0) continue;
        shards.forEach((s, i) => {
          const n = c[strip.key][s] ?? 0;
          if (!n) return;
          ctx.globalAlpha = 0.15 + 0.85 * (n / most);
          ctx.fillStyle = shardColour(s);
          ctx.fillRect(x, i * ROW, 1, ROW - 1);
        });
      }
      ctx.globalAlpha = 1;
      const minute = /** @type {RangeMetrics} */ (metrics).minute_writes[strip.key];
      const total = Object.values(minute).reduce((a, b) => a + b, 0);
      const ranked = shards
        .map((s) => ({ s, n: minute[s] ?? 0 }))
        .sort((a, b) => b.n - a.n || (a.s < b.s ? -1 : 1));
      const top = ranked[0];
      strip.share.textContent = total
        ? fmt(t("%(shard)s took %(share)s"), { shard: top.s, share: percent(top.n / total, 0) })
        : "–";
      strip.share.style.setProperty("--shard", total ? shardColour(top.s) : "transparent");
      canvas.setAttribute(
        "aria-label",
        fmt(t("%(placement)s: writes in the last minute per shard: %(counts)s"), {
          placement: strip.title,
          counts: ranked.map((r) => `${r.s} ${num(r.n)}`).join(", "),
        }),
      );
    }
  }

  return {
    update,
    destroy() {
      root.remove();
    },
  };
}
