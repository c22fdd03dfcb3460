/**
 * partition-cap: flight 7's last seat on three (four, five) servers while the network is
 * cut. Frankfurt's server on the left, Tokyo's on the right; each copy's seats, bookings
 * and version vector under its server; the two clients and what they were told; after
 * healing, what the copies found when they met and which bookings vanished.
 */

import { fmt, t } from "../i18n.js";
import { createMetricsList } from "../metrics-list.js";
import { createNetworkView } from "../network-view.js";
import { describeEvents } from "./partition-cap/describe.js";
import { drawPanels } from "./partition-cap/panels.js";
import {
  createClients,
  createCopies,
  createHeader,
  createOperations,
  createVerdicts,
} from "./partition-cap/sections.js";
import { messageKinds, seatsText, vvText } from "./partition-cap/words.js";

/** @import { Frame, Renderer, Snapshot } from "../types.js" */

// Frankfurt left, Tokyo right, the others between (fractions of the drawing)
const WIDE = {
  3: { A: [0.12, 0.46], B: [0.5, 0.2], C: [0.88, 0.46] },
  4: { A: [0.1, 0.46], D: [0.36, 0.2], B: [0.64, 0.2], C: [0.9, 0.46] },
  5: { A: [0.1, 0.4], D: [0.3, 0.17], B: [0.7, 0.17], C: [0.9, 0.4], E: [0.5, 0.6] },
};
const NARROW = {
  3: { A: [0.2, 0.15], C: [0.8, 0.15], B: [0.5, 0.58] },
  4: { A: [0.2, 0.13], C: [0.8, 0.13], D: [0.2, 0.58], B: [0.8, 0.58] },
  5: { A: [0.2, 0.1], C: [0.8, 0.1], D: [0.2, 0.42], B: [0.8, 0.42], E: [0.5, 0.72] },
};
// the copies hang under their servers: a shorter wide drawing than the default
/** @type {{wide: [number, number], narrow: [number, number]}} */
const SIZES = { wide: [960, 380], narrow: [400, 460] };
/** @type {[string, () => string][]} each metric's key and words */
const METRICS = [
  ["confirmed", () => t("Bookings confirmed to clients")],
  ["surviving", () => t("Bookings that survive")],
  ["vanished", () => t("Vanished")],
  ["refused", () => t("Refused")],
  ["conflicts", () => t("Conflicts")],
];

/**
 * A renderer for one mounted lab view.
 * @returns {Renderer}
 */
export function createRenderer() {
  let view = null;
  let snapshot = null;
  let root = null;
  let parts = null;
  let metricsList = null;
  let side = null;
  const myRefs = new Map();

  function positions(nodes, { narrow }) {
    const table = narrow ? NARROW : WIDE;
    return table[nodes.length] ?? null;
  }

  function drawMetrics(metrics) {
    metricsList?.update(metrics);
  }

  /**
   * Draw `next` (and the numbers, when given); `frame` animates what it did.
   * @param {Snapshot} next
   * @param {Record<string, number> | null} metrics
   * @param {Frame | null} [frame]
   */
  function drawAll(next, metrics, frame = null) {
    snapshot = next;
    view.update(next, frame);
    drawPanels(view, next);
    for (const part of Object.values(parts)) part.update?.(next);
    if (metrics) drawMetrics(metrics);
  }

  return {
    mount(el, hello, slots) {
      root = document.createElement("div");
      root.className = "pc-lab";
      el.append(root);
      const header = createHeader(root);
      const send = (action, args, box) => {
        parts.clients.clearErrors();
        const ref = slots.send(action, args);
        if (ref) myRefs.set(ref, box);
        return ref;
      };
      const clients = createClients(root, send, { readOnly: slots.readOnly });
      const netBox = document.createElement("div");
      netBox.className = "pc-network";
      root.append(netBox);
      view = createNetworkView(netBox, {
        send: slots.send,
        onError: slots.onError,
        declaration: hello.declaration,
        positions,
        sizes: SIZES,
        kinds: messageKinds(),
        label: t("Flight 7's servers and the links between them"),
        messageLabel: (m) => (m.kind === "sync" && m.info?.vv ? vvText(m.info.vv) : null),
        describeNode(node, snap) {
          const copy = snap?.copies?.find((c) => c.server === node.id);
          if (!copy) return "";
          return fmt(t("Its copy: %(seats)s, version %(vv)s."), {
            seats: seatsText(copy.seats_remaining),
            vv: vvText(copy.vv),
          });
        },
      });
      view.onLayout(() => snapshot && drawPanels(view, snapshot));
      slots.onError?.((problem) => {
        if (!myRefs.has(problem.ref)) return false;
        const box = myRefs.get(problem.ref);
        myRefs.delete(problem.ref);
        return parts.clients.showError(box, problem.message || problem.code);
      });
      // what the copies hold and what the clients were told: the side panel's tables
      side = document.createElement("div");
      side.className = "pc-side";
      (slots.side ?? root).append(side);
      const verdicts = createVerdicts(side);
      const copies = createCopies(side);
      const operations = createOperations(side);
      parts = { header, clients, verdicts, copies, operations };

      metricsList = createMetricsList(slots.metrics, METRICS, "pc-metrics");
      drawAll(hello.snapshot, hello.metrics);
    },

    update(frame) {
      if (frame.ref) myRefs.delete(frame.ref);
      drawAll(frame.snapshot, frame.metrics, frame);
    },

    describe(events) {
      return describeEvents(events, snapshot);
    },

    destroy() {
      view?.destroy();
      root?.remove();
      side?.remove();
      metricsList?.destroy();
      view = null;
      root = null;
      side = null;
      metricsList = null;
    },
  };
}
