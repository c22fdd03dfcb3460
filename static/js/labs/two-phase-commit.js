/**
 * two-phase-commit: the client, the coordinator and two shards on the network view;
 * each shard's rows beside it with their locks and the writers queued behind them,
 * the coordinator's log and trap under it; in the side panel what a commit costs, the
 * bank workload's totals over time and the operations as Jepsen records them.
 * Implements the renderer interface of docs/frontend.md.
 */

import { t } from "../i18n.js";
import { createLabRenderer } from "../lab-view.js";
import { createNetworkView } from "../network-view.js";
import { roomViewBox } from "../stage-fit.js";
import { describeEvents } from "./two-phase-commit/describe.js";
import { describeServer, drawPanels, SHARD_HALF, SHARD_REACH } from "./two-phase-commit/panels.js";
import { createBank, createCosts, createHistory, createJudged } from "./two-phase-commit/side.js";
import { messageKinds } from "./two-phase-commit/words.js";

/** @import { Renderer, Snapshot } from "../types.js" */

/**
 * Where the servers stand on a wide stage, as fractions of the drawing: the client and
 * the coordinator on the middle line, each shard as far right as its rows beside it
 * leave room for and clear of the top and bottom edges by half its panel.
 * @param {{width: number, height: number}} size
 * @returns {Record<string, [number, number]>}
 */
function wideSpots({ width, height }) {
  const x = Math.min(0.56, (width - SHARD_REACH) / width);
  const edge = Math.min(0.3, SHARD_HALF / height);
  return {
    client: [0.07, 0.5],
    coordinator: [0.3, 0.5],
    flights: [x, Math.max(0.2, edge)],
    bookings: [x, Math.min(0.8, 1 - edge)],
  };
}
/** @type {Record<string, [number, number]>} */
const NARROW = {
  client: [0.5, 0.11],
  coordinator: [0.5, 0.32],
  flights: [0.22, 0.52],
  bookings: [0.78, 0.52],
};
// what each server's circle says (its name is written above it)
const MARKS = { client: () => t("App"), coordinator: () => "Co", flights: () => "Fl", bookings: () => "Bk" };
/**
 * The drawing's logical box (stage-fit.js's RoomBox): on a wide stage, the room it is
 * given, designed for 860 × 360 CSS pixels at one unit a pixel (the rows beside each
 * shard read at 13 px on a laptop and grow with a projector's stage); a phone keeps its
 * box of 400 × 480, the servers stacked.
 * @param {{width: number, height: number, narrow: boolean}} room
 * @returns {[number, number]}
 */
function viewBoxFor(room) {
  return room.narrow ? [400, 480] : roomViewBox(room, { design: [860, 360], least: [720, 330] });
}
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
  return createLabRenderer({
    className: "tp-lab",
    side: "tp-side",
    metrics: { list: METRICS, className: "tp-metrics" },
    mount(lab, hello) {
      /** @type {Snapshot} */
      let snapshot = hello.snapshot;
      const view = lab.own(
        createNetworkView(lab.root, {
          send: lab.slots.send,
          onError: lab.slots.onError,
          declaration: hello.declaration,
          positions: (nodes, size) => (size.narrow ? NARROW : wideSpots(size)),
          sizes: viewBoxFor,
          kinds: messageKinds(),
          actions: { stop: "crash_server", restart: "recover_server" },
          fixedNodes: ["client"],
          nodeMark: (id) => MARKS[/** @type {keyof typeof MARKS} */ (id)]?.() ?? id,
          label: t("The client, the coordinator and the two shards, with the rows each shard holds"),
          messageLabel: (m) => (m.info?.txn === undefined ? null : `T${m.info.txn}`),
          describeNode: (node, snap) => describeServer(node, snap),
        }),
      );
      view.onLayout(() => snapshot && drawPanels(view, snapshot));
      const side = /** @type {HTMLElement} */ (lab.side);
      for (const part of [createCosts(side), createBank(side), createJudged(side), createHistory(side)]) lab.panel(part);
      return {
        draw(next, frame) {
          snapshot = next;
          view.update(next, frame);
          drawPanels(view, next);
        },
        describe: (events) => describeEvents(events),
      };
    },
  });
}
