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
import { describeEvents } from "./two-phase-commit/describe.js";
import { describeServer, drawPanels } from "./two-phase-commit/panels.js";
import { createBank, createCosts, createHistory, createJudged } from "./two-phase-commit/side.js";
import { messageKinds } from "./two-phase-commit/words.js";

/** @import { Renderer, Snapshot } from "../types.js" */

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
          positions: (nodes, { narrow }) => (narrow ? NARROW : WIDE),
          sizes: SIZES,
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
