/**
 * replication: one primary and its replicas, the write-ahead log on every server as a
 * queue of records, the records flying to the replicas, and how far each one lags.
 * Over the drawing: who is primary, when a commit is returned, the read-your-writes fix,
 * what blocks commits, the last read and what the last failover lost. In the side
 * panel: the lag over time, the lost writes, the operations.
 * Implements the renderer interface of docs/frontend.md.
 */

import { t } from "../i18n.js";
import { createMetricsList } from "../metrics-list.js";
import { createNetworkView } from "../network-view.js";
import { describeServer, drawCards, serverSpots, viewBoxFor } from "./replication/cards.js";
import { describeEvents } from "./replication/describe.js";
import { createLag, createLost, createOperations, createSummary } from "./replication/sections.js";
import { messageKinds } from "./replication/words.js";

/** @import { Frame, Renderer, Snapshot } from "../types.js" */

const PLACE_RANK = { zone: 0, region: 1, ocean: 2 };
/** @type {[string, () => string][]} each metric's key and words */
const METRICS = [
  ["writes", () => t("Writes")],
  ["commits", () => t("Commits returned")],
  ["pending_commits", () => t("Commits waiting")],
  ["stale_reads", () => t("Reads of an old address")],
  ["lost_acknowledged", () => t("Acknowledged writes lost")],
  ["failovers", () => t("Failovers")],
  ["max_lag_records", () => t("Largest lag (records)")],
  ["max_lag_ms", () => t("Largest lag (ms)")],
];

/**
 * A renderer for one mounted lab view.
 * @returns {Renderer}
 */
export function createRenderer() {
  let view = null;
  /** @type {Snapshot | null} */
  let snapshot = null;
  let root = null;
  let side = null;
  let parts = null;
  let metricsList = null;

  /** Servers left to right from the nearest to the farthest (cards.js places them). */
  function positions(nodes, size) {
    const places = new Map((snapshot?.servers ?? []).map((s) => [s.id, PLACE_RANK[s.place] ?? 0]));
    const order = [...nodes].sort((a, b) => (places.get(a.id) ?? 0) - (places.get(b.id) ?? 0) || (a.id < b.id ? -1 : 1));
    return serverSpots(
      order.map((node) => node.id),
      size,
    );
  }

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
    drawCards(view, next);
    for (const part of Object.values(parts)) part.update(next);
    drawMetrics(metrics);
  }

  return {
    mount(el, hello, slots) {
      root = document.createElement("div");
      root.className = "rp-lab";
      el.append(root);
      snapshot = hello.snapshot;
      const summary = createSummary(root);
      const netBox = document.createElement("div");
      netBox.className = "rp-network";
      root.append(netBox);
      view = createNetworkView(netBox, {
        send: slots.send,
        onError: slots.onError,
        declaration: hello.declaration,
        positions,
        // the room the stage gives, one unit a pixel: the cards' text at its own size
        sizes: viewBoxFor,
        kinds: messageKinds(),
        label: t("The primary, its replicas and the log records on their way"),
        messageLabel: (m) => (m.kind === "wal" ? `#${m.info?.lsn}` : m.kind === "wal_batch" ? `#${m.info?.first}–${m.info?.last}` : null),
        describeNode: (node, snap) => describeServer(node, snap),
      });
      view.onLayout(() => snapshot && drawCards(view, snapshot));
      side = document.createElement("div");
      side.className = "rp-side";
      (slots.side ?? root).append(side);
      parts = { summary, lag: createLag(side), lost: createLost(side), operations: createOperations(side) };
      metricsList = createMetricsList(slots.metrics, METRICS, "rp-metrics");
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
      view = root = side = metricsList = parts = snapshot = null;
    },
  };
}
