/**
 * replication: one primary and its replicas, the write-ahead log on every server as a
 * queue of records, the records flying to the replicas, and how far each one lags.
 * Over the drawing: who is primary, when a commit is returned, the read-your-writes fix,
 * what blocks commits, the last read and what the last failover lost. In the side
 * panel: the lag over time, the lost writes, the operations.
 * Implements the renderer interface of docs/frontend.md.
 */

import { t } from "../i18n.js";
import { createLabRenderer } from "../lab-view.js";
import { createNetworkView } from "../network-view.js";
import { describeServer, drawCards, serverSpots, viewBoxFor } from "./replication/cards.js";
import { describeEvents } from "./replication/describe.js";
import { createLag, createLost, createOperations, createSummary } from "./replication/sections.js";
import { messageKinds } from "./replication/words.js";

/** @import { Renderer, Snapshot } from "../types.js" */

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
  return createLabRenderer({
    className: "rp-lab",
    side: "rp-side",
    metrics: { list: METRICS, className: "rp-metrics" },
    mount(lab, hello) {
      /** @type {Snapshot} */
      let snapshot = hello.snapshot;

      /**
       * Servers left to right from the nearest to the farthest (cards.js places them).
       * @param {{ id: string }[]} nodes
       * @param {{ width: number, height: number, narrow: boolean }} size
       */
      function positions(nodes, size) {
        /** @type {Map<string, number>} */
        const places = new Map(
          (snapshot?.servers ?? []).map((/** @type {{ id: string, place: keyof typeof PLACE_RANK }} */ s) => [s.id, PLACE_RANK[s.place] ?? 0]),
        );
        const order = [...nodes].sort((a, b) => (places.get(a.id) ?? 0) - (places.get(b.id) ?? 0) || (a.id < b.id ? -1 : 1));
        return serverSpots(
          order.map((node) => node.id),
          size,
        );
      }

      lab.panel(createSummary(lab.root));
      const netBox = lab.element("div", "rp-network");
      const view = createNetworkView(netBox, {
        send: lab.slots.send,
        onError: lab.slots.onError,
        declaration: hello.declaration,
        positions,
        // the room the stage gives, one unit a pixel: the cards' text at its own size
        sizes: viewBoxFor,
        kinds: messageKinds(),
        label: t("The primary, its replicas and the log records on their way"),
        messageLabel: (m) => (m.kind === "wal" ? `#${m.info?.lsn}` : m.kind === "wal_batch" ? `#${m.info?.first}–${m.info?.last}` : null),
        describeNode: (node, snap) => describeServer(node, snap),
      });
      lab.own(view);
      view.onLayout(() => snapshot && drawCards(view, snapshot));
      const side = /** @type {HTMLElement} */ (lab.side);
      lab.panel(createLag(side));
      lab.panel(createLost(side));
      lab.panel(createOperations(side));
      return {
        draw(next, frame) {
          snapshot = next;
          view.update(next, frame);
          drawCards(view, next);
        },
        describe: (events) => describeEvents(events),
      };
    },
  });
}
