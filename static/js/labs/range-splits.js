/**
 * Renderer of the range-splits lab: one seeded stream written into two range tables
 * (split by size, split by load) and hash placement. Each table is drawn as shard lanes
 * across the key line (lanes.js), splits first and moves a moment later; under them the
 * write heat of all three placements over the stream's last minute (heat.js). The
 * boundary tables and keys per shard are the side panel's (side.js). Implements the
 * renderer interface of docs/frontend.md.
 */

import { decimal, fmt, num, t } from "../i18n.js";
import { createLabRenderer } from "../lab-view.js";
import { describeEvents } from "./range-splits/describe.js";
import { createHeat } from "./range-splits/heat.js";
import { createLanes } from "./range-splits/lanes.js";
import { createBoundaryTables, createKeyCharts } from "./range-splits/side.js";

/** @import { Renderer, Snapshot } from "../types.js" */

/**
 * What splits a slice in a table, in words.
 * @param {string} policy
 * @param {{ max_keys: number, max_writes: number }} thresholds
 */
function noteOf(policy, thresholds) {
  return policy === "size"
    ? fmt(t("A slice splits above %(keys)s keys."), { keys: num(thresholds.max_keys) })
    : fmt(t("A slice splits above %(writes)s writes in one second."), {
        writes: num(thresholds.max_writes),
      });
}

/** The placements' names. */
const names = () => ({
  size: t("Split by size"),
  load: t("Split by load"),
  hash: t("Hash mod N"),
});

/**
 * The line over the tables: the stream's time, writes and keys, and the last range read.
 * @param {Snapshot} snapshot
 * @param {Record<string, any>} metrics
 */
function statusLine(snapshot, metrics) {
  const queried = snapshot.query ? fmt(t("Last range: %(low)s to %(high)s."), snapshot.query) : "";
  return [
    fmt(t("Stream time %(seconds)s s · %(writes)s writes · %(keys)s keys"), {
      seconds: decimal(snapshot.now_ms / 1000),
      writes: num(snapshot.writes),
      keys: num(metrics.keys),
    }),
    queried,
  ]
    .filter(Boolean)
    .join(" · ");
}

/**
 * A renderer for one mounted lab view.
 * @returns {Renderer}
 */
export function createRenderer() {
  return createLabRenderer({
    className: "rs-lab",
    place: "replace",
    mount(lab) {
      const word = names();
      const status = lab.element("p", "rs-status");
      const grid = lab.element("div", "rs-tables");
      const lanes = /** @type {("size" | "load")[]} */ (["size", "load"]).map((policy) => ({
        policy,
        view: lab.own(createLanes(grid, { policy, title: word[policy] })),
      }));
      const heat = lab.own(
        createHeat(lab.root, [
          { key: "size", title: word.size },
          { key: "load", title: word.load },
          { key: "hash", title: word.hash },
        ]),
      );
      const tables = [
        { key: "size", title: word.size },
        { key: "load", title: word.load },
      ];
      const side = lab.side ? lab.own(createBoundaryTables(lab.side, tables)) : null;
      const charts = lab.own(createKeyCharts(lab.metricsSlot, [...tables, { key: "hash", title: word.hash }]));
      return {
        draw(snapshot, frame, metrics) {
          const events = frame?.events ?? [];
          status.textContent = statusLine(snapshot, metrics ?? {});
          for (const lane of lanes)
            lane.view.update(snapshot.tables[lane.policy], snapshot.shards, {
              note: noteOf(lane.policy, snapshot.thresholds),
              events,
              query: snapshot.query,
              animate: frame !== null,
            });
          heat.update(snapshot, metrics);
          side?.update(snapshot);
          charts.update(metrics);
        },
        describe: (events) => describeEvents(events),
      };
    },
  });
}
