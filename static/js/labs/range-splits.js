/**
 * Renderer of the range-splits lab: one seeded stream written into two range tables
 * (split by size, split by load) and hash placement. Each table is drawn as shard lanes
 * across the key line (lanes.js), splits first and moves a moment later; under them the
 * write heat of all three placements over the stream's last minute (heat.js). The
 * boundary tables and keys per shard are the side panel's (side.js). Implements the
 * renderer interface of docs/frontend.md.
 */

import { decimal, fmt, num, t } from "../i18n.js";
import { describeEvents } from "./range-splits/describe.js";
import { createHeat } from "./range-splits/heat.js";
import { createLanes } from "./range-splits/lanes.js";
import { createBoundaryTables, createKeyCharts } from "./range-splits/side.js";

/** @import { Hello, Renderer, RendererSlots } from "../types.js" */

/** What splits a slice in a table, in words. */
function noteOf(policy, thresholds) {
  return policy === "size"
    ? fmt(t("A slice splits above %(keys)s keys."), { keys: num(thresholds.max_keys) })
    : fmt(t("A slice splits above %(writes)s writes in one second."), {
        writes: num(thresholds.max_writes),
      });
}

/**
 * A renderer for one mounted lab view.
 * @returns {Renderer}
 */
export function createRenderer() {
  let root = null;
  let status = null;
  let lanes = [];
  let heat = null;
  let side = null;
  let charts = null;

  const names = () => ({
    size: t("Split by size"),
    load: t("Split by load"),
    hash: t("Hash mod N"),
  });

  function statusLine(snapshot, metrics) {
    const queried = snapshot.query
      ? fmt(t("Last range: %(low)s to %(high)s."), snapshot.query)
      : "";
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
   * @param {any} snapshot
   * @param {any} metrics
   * @param {any[]} events
   * @param {boolean} animate
   */
  function draw(snapshot, metrics, events, animate) {
    status.textContent = statusLine(snapshot, metrics);
    for (const lane of lanes)
      lane.view.update(snapshot.tables[lane.policy], snapshot.shards, {
        note: noteOf(lane.policy, snapshot.thresholds),
        events,
        query: snapshot.query,
        animate,
      });
    heat.update(snapshot, metrics);
    side?.update(snapshot);
    charts?.update(metrics);
  }

  return {
    /**
     * @param {HTMLElement} el
     * @param {Hello} hello
     * @param {Partial<RendererSlots>} [slots]
     */
    mount(el, hello, slots = {}) {
      const word = names();
      root = document.createElement("div");
      root.className = "rs-lab";
      status = document.createElement("p");
      status.className = "rs-status";
      const grid = document.createElement("div");
      grid.className = "rs-tables";
      root.append(status, grid);
      el.replaceChildren(root);
      lanes = ["size", "load"].map((policy) => ({
        policy,
        view: createLanes(grid, { policy, title: word[policy] }),
      }));
      heat = createHeat(root, [
        { key: "size", title: word.size },
        { key: "load", title: word.load },
        { key: "hash", title: word.hash },
      ]);
      const tables = [
        { key: "size", title: word.size },
        { key: "load", title: word.load },
      ];
      side = slots.side ? createBoundaryTables(slots.side, tables) : null;
      charts = createKeyCharts(slots.metrics ?? null, [...tables, { key: "hash", title: word.hash }]);
      draw(hello.snapshot, hello.metrics, [], false);
    },

    update(frame) {
      draw(frame.snapshot, frame.metrics, frame.events ?? [], true);
    },

    describe(events) {
      return describeEvents(events);
    },

    destroy() {
      for (const lane of lanes) lane.view.destroy();
      heat?.destroy();
      side?.destroy();
      charts?.destroy();
      root?.remove();
      lanes = [];
      root = status = heat = side = charts = null;
    },
  };
}
