/**
 * Renderer of the quorum lab: N copies of one row on a fully meshed network, every
 * message flying, each copy's value and version, the write and read sets and their
 * shared copy, the newest operations as a time diagram with the history checker's
 * verdicts (judged.js), the history with stale reads marked, the stale-read counter, a write lost
 * to a timestamp tie in words, and lost writes plotted against clock skew.
 * Implements the renderer interface of docs/frontend.md.
 */

import { t } from "../i18n.js";
import { createNetworkView } from "../network-view.js";
import { describeCopy, drawCopies } from "./quorum/copies.js";
import { describeEvents } from "./quorum/describe.js";
import { createHistory } from "./quorum/history.js";
import { createJudged } from "./quorum/judged.js";
import { createLadder } from "./quorum/ladder.js";
import { createMetrics, createSummary, createTieNote, createTrials } from "./quorum/panels.js";
import { messageKinds } from "./quorum/words.js";

/** @import { Frame, Hello, Renderer, RendererSlots, Snapshot } from "../types.js" */

/**
 * A renderer for one mounted lab view.
 * @returns {Renderer}
 */
export function createRenderer() {
  let root = null;
  let view = null;
  let summary = null;
  let trials = null;
  let ladder = null;
  let tieNote = null;
  let history = null;
  let judged = null;
  let metrics = null;
  let side = null;
  let snapshot = null;

  /**
   * Draw `next` and its numbers; `frame` animates what it did.
   * @param {Snapshot} next
   * @param {Record<string, any>} metricValues
   * @param {Frame | null} [frame]
   */
  function draw(next, metricValues, frame = null) {
    snapshot = next;
    summary.update(next);
    view.update(next, frame);
    drawCopies(view, next);
    trials.update(next);
    ladder.update(next);
    tieNote.update(next);
    history.update(next);
    judged.update(next);
    metrics.update(metricValues);
  }

  return {
    /**
     * Draw the lab from a hello into `el`.
     * @param {HTMLElement} el
     * @param {Hello} hello
     * @param {Partial<RendererSlots>} [slots]
     */
    mount(el, hello, slots = {}) {
      root = document.createElement("div");
      root.className = "quorum-lab";
      el.replaceChildren(root);
      summary = createSummary(root);
      view = createNetworkView(root, {
        send: slots.send,
        onError: slots.onError,
        declaration: hello.declaration,
        kinds: messageKinds(),
        label: t("The cluster: each owner holds a copy of the row"),
        messageLabel: (m) => (m.info?.value === undefined ? null : String(m.info.value)),
        describeNode: (node, snap) => describeCopy(node, snap),
      });
      view.onLayout(() => snapshot && drawCopies(view, snapshot));
      // the checker's verdict on the newest operations, under the cluster
      judged = createJudged(root);
      const send = slots.send ?? (() => null);
      // the counter and the history table are the side panel's (under or beside the stage)
      side = document.createElement("div");
      side.className = "quorum-side";
      (slots.side ?? root).append(side);
      tieNote = createTieNote(side);
      trials = createTrials(side, send, { readOnly: slots.readOnly });
      ladder = createLadder(side, send, { readOnly: slots.readOnly });
      history = createHistory(side);
      metrics = createMetrics(slots.metrics ?? null);
      draw(hello.snapshot, hello.metrics);
    },

    update(frame) {
      draw(frame.snapshot, frame.metrics, frame);
    },

    describe(events) {
      return describeEvents(events, snapshot?.copies ?? 0);
    },

    destroy() {
      view?.destroy();
      judged?.destroy();
      metrics?.destroy();
      root?.remove();
      side?.remove();
      view = root = side = summary = tieNote = trials = ladder = history = judged = metrics = snapshot = null;
    },
  };
}
