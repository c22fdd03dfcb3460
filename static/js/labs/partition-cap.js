/**
 * partition-cap: flight 7's last seat on three (four, five) servers while the network is
 * cut. Frankfurt's server on the left, Tokyo's on the right; each copy's seats, bookings
 * and version vector under its server; the two clients and what they were told; after
 * healing, what the copies found when they met and which bookings vanished.
 */

import { fmt, t } from "../i18n.js";
import { createLabRenderer } from "../lab-view.js";
import { createNetworkView } from "../network-view.js";
import { roomViewBox } from "../stage-fit.js";
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

/** @import { Renderer, Snapshot } from "../types.js" */

// Frankfurt left, Tokyo right, the others between (fractions of the drawing)
/** @type {Record<number, Record<string, [number, number]>>} */
const WIDE = {
  3: { A: [0.12, 0.46], B: [0.5, 0.2], C: [0.88, 0.46] },
  4: { A: [0.1, 0.46], D: [0.36, 0.2], B: [0.64, 0.2], C: [0.9, 0.46] },
  5: { A: [0.1, 0.4], D: [0.3, 0.17], B: [0.7, 0.17], C: [0.9, 0.4], E: [0.5, 0.6] },
};
/** @type {Record<number, Record<string, [number, number]>>} */
const NARROW = {
  3: { A: [0.2, 0.15], C: [0.8, 0.15], B: [0.5, 0.58] },
  4: { A: [0.2, 0.13], C: [0.8, 0.13], D: [0.2, 0.58], B: [0.8, 0.58] },
  5: { A: [0.2, 0.1], C: [0.8, 0.1], D: [0.2, 0.42], B: [0.8, 0.42], E: [0.5, 0.72] },
};
/**
 * The drawing's logical box (stage-fit.js's RoomBox): on a wide stage, the room between
 * the two clients' columns, designed for 560 × 300 CSS pixels at one unit a pixel (the
 * copies under the servers read at 13 px on a laptop and grow with a projector's stage);
 * a phone keeps its box of 400 × 460.
 * @param {{width: number, height: number, narrow: boolean}} room
 * @returns {[number, number]}
 */
function viewBoxFor(room) {
  return room.narrow ? [400, 460] : roomViewBox(room, { design: [560, 300], least: [480, 270] });
}
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
  return createLabRenderer({
    className: "pc-lab",
    // what the copies hold and what the clients were told: the side panel's tables
    side: "pc-side",
    metrics: { list: METRICS, className: "pc-metrics" },
    mount(lab, hello) {
      /** @type {Snapshot} */
      let snapshot = hello.snapshot;
      /** @type {Map<string, unknown>} refs of the clients' own actions: where to say a refusal */
      const myRefs = new Map();
      lab.panel(createHeader(lab.root));
      /**
       * @param {string} action
       * @param {Record<string, unknown>} args
       * @param {unknown} box
       */
      const send = (action, args, box) => {
        clients.clearErrors();
        const ref = lab.slots.send(action, args);
        if (ref) myRefs.set(ref, box);
        return ref;
      };
      const clients = lab.panel(createClients(lab.root, send, { readOnly: lab.readOnly }));
      const netBox = lab.element("div", "pc-network");
      const view = lab.own(
        createNetworkView(netBox, {
          send: lab.slots.send,
          onError: lab.slots.onError,
          declaration: hello.declaration,
          positions: (nodes, { narrow }) => (narrow ? NARROW : WIDE)[nodes.length] ?? null,
          sizes: viewBoxFor,
          kinds: messageKinds(),
          label: t("Flight 7's servers and the links between them"),
          messageLabel: (m) => (m.kind === "sync" && m.info?.vv ? vvText(m.info.vv) : null),
          describeNode(node, snap) {
            const copy = snap?.copies?.find((/** @type {{ server: string }} */ c) => c.server === node.id);
            if (!copy) return "";
            return fmt(t("Its copy: %(seats)s, version %(vv)s."), {
              seats: seatsText(copy.seats_remaining),
              vv: vvText(copy.vv),
            });
          },
        }),
      );
      view.onLayout(() => snapshot && drawPanels(view, snapshot));
      lab.onError((problem) => {
        const ref = problem.ref ?? "";
        if (!myRefs.has(ref)) return false;
        const box = myRefs.get(ref);
        myRefs.delete(ref);
        return clients.showError(box, problem.message || problem.code);
      });
      const side = /** @type {HTMLElement} */ (lab.side);
      lab.panel(createVerdicts(side));
      lab.panel(createCopies(side));
      lab.panel(createOperations(side));
      return {
        draw(next, frame) {
          if (frame?.ref) myRefs.delete(frame.ref);
          snapshot = next;
          view.update(next, frame);
          drawPanels(view, next);
        },
        describe: (events) => describeEvents(events, snapshot),
      };
    },
  });
}
