/**
 * two-phase-commit: the client, the coordinator and two shards on the network view;
 * each shard's rows beside it with their locks and the writers queued behind them,
 * the coordinator's log and trap under it; in the side panel what a commit costs, the
 * bank workload's totals over time and the operations as Jepsen records them.
 * Implements the renderer interface of docs/frontend.md.
 */

import { t } from "../i18n.js";
import { createMetricsList } from "../metrics-list.js";
import { createNetworkView } from "../network-view.js";
import { describeEvents } from "./two-phase-commit/describe.js";
import { describeServer, drawPanels } from "./two-phase-commit/panels.js";
import { createBank, createCosts, createHistory, createJudged } from "./two-phase-commit/side.js";
import { messageKinds } from "./two-phase-commit/words.js";

/** @import { Frame, Renderer, Snapshot } from "../types.js" */

/** @type {Record<string, [number, number]>} */
const WIDE = {
  client: [0.07, 0.5],
  coordinator: [0.3, 0.5],
  flights: [0.56, 0.2],
  bookings: [0.56, 0.8],
};
/** @type {Record<string, [number, number]>} */
const NARROW = {
  client: [0.5, 0.11],
  coordinator: [0.5, 0.32],
  flights: [0.22, 0.52],
  bookings: [0.78, 0.52],
};
// what each server's circle says (its name is written above it)
const MARKS = { client: () => t("App"), coordinator: () => "Co", flights: () => "Fl", bookings: () => "Bk" };
/** @type {{wide: [number, number], narrow: [number, number]}} */
const SIZES = { wide: [960, 440], narrow: [400, 480] };
/** @type {[string, () => string][]} each metric's key and words */
const METRICS = [
  ["ok", () => t("ok")],
  ["fail", () => t("fail")],
  ["info", () => t("info")],
  ["locks_held", () => t("Rows locked")],
  ["waiting", () => t("Writers waiting")],
  ["total_now", () => t("Accounts total")],
  ["bank_reads_off", () => t("Reads not adding up")],
];

/**
 * A renderer for one mounted lab view.
 * @returns {Renderer}
 */
export function createRenderer() {
  let view = null;
  let snapshot = null;
  let root = null;
  let side = null;
  let parts = [];
  let metricsList = null;

  function drawMetrics(metrics) {
    metricsList?.update(metrics);
  }

  /**
   * @param {Snapshot} next
   * @param {Record<string, any> | null} metrics
   * @param {Frame | null} [frame]
   */
  function drawAll(next, metrics, frame = null) {
    snapshot = next;
    view.update(next, frame);
    drawPanels(view, next);
    for (const part of parts) part.update(next);
    if (metrics) drawMetrics(metrics);
  }

  return {
    mount(el, hello, slots) {
      root = document.createElement("div");
      root.className = "tp-lab";
      el.append(root);
      view = createNetworkView(root, {
        send: slots.send,
        onError: slots.onError,
        declaration: hello.declaration,
        positions: (nodes, { narrow }) => (narrow ? NARROW : WIDE),
        sizes: SIZES,
        kinds: messageKinds(),
        actions: { stop: "crash_server", restart: "recover_server" },
        fixedNodes: ["client"],
        nodeMark: (id) => MARKS[id]?.() ?? id,
        label: t("The client, the coordinator and the two shards, with the rows each shard holds"),
        messageLabel: (m) => (m.info?.txn === undefined ? null : `T${m.info.txn}`),
        describeNode: (node, snap) => describeServer(node, snap),
      });
      view.onLayout(() => snapshot && drawPanels(view, snapshot));
      side = document.createElement("div");
      side.className = "tp-side";
      (slots.side ?? root).append(side);
      parts = [createCosts(side), createBank(side), createJudged(side), createHistory(side)];
      metricsList = createMetricsList(slots.metrics, METRICS, "pc-metrics tp-metrics");
      drawAll(hello.snapshot, hello.metrics);
    },

    update(frame) {
      drawAll(frame.snapshot, frame.metrics, frame);
    },

    describe(events) {
      return describeEvents(events);
    },

    destroy() {
      view?.destroy();
      root?.remove();
      side?.remove();
      metricsList?.destroy();
      for (const part of parts) part.destroy?.();
      view = root = side = metricsList = snapshot = null;
      parts = [];
    },
  };
}
