/**
 * Renderer of the quorum lab: N copies of one row on a fully meshed network, every
 * message flying, each copy's value and version, the write and read sets and their
 * shared copy, the newest operations as a time diagram with the history checker's
 * verdicts (judged.js), the history with stale reads marked, the stale-read counter, a write lost
 * to a timestamp tie in words, and lost writes plotted against clock skew.
 * Implements the renderer interface of docs/frontend.md.
 */

import { t } from "../i18n.js";
import { createLabRenderer } from "../lab-view.js";
import { createNetworkView } from "../network-view.js";
import { clusterSpots, clusterViewBox, describeCopy, drawCopies } from "./quorum/copies.js";
import { describeEvents } from "./quorum/describe.js";
import { createHistory } from "./quorum/history.js";
import { createJudged } from "./quorum/judged.js";
import { createLadder } from "./quorum/ladder.js";
import { createMetrics, createSummary, createTieNote, createTrials } from "./quorum/panels.js";
import { messageKinds } from "./quorum/words.js";

/** @import { Renderer, Snapshot } from "../types.js" */

/**
 * A renderer for one mounted lab view.
 * @returns {Renderer}
 */
export function createRenderer() {
  return createLabRenderer({
    className: "quorum-lab",
    place: "replace",
    // the counter and the history table are the side panel's (under or beside the stage)
    side: "quorum-side",
    mount(lab, hello) {
      /** @type {Snapshot} */
      let snapshot = hello.snapshot;
      lab.panel(createSummary(lab.root));
      const view = lab.own(
        createNetworkView(lab.root, {
          send: lab.slots.send,
          onError: lab.slots.onError,
          declaration: hello.declaration,
          kinds: messageKinds(),
          label: t("The cluster: each owner holds a copy of the row"),
          sizes: clusterViewBox,
          positions: clusterSpots,
          messageLabel: (m) => (m.info?.value === undefined ? null : String(m.info.value)),
          describeNode: (node, snap) => describeCopy(node, snap),
        }),
      );
      view.onLayout(() => snapshot && drawCopies(view, snapshot));
      // the network view is drawn right after the summary, before the panels under it
      lab.panel({
        update(next, frame) {
          snapshot = next;
          view.update(next, frame);
          drawCopies(view, next);
        },
      });
      // the checker's verdict on the newest operations, under the cluster
      const judged = createJudged(lab.root);
      const send = /** @type {(action: string, args: object) => unknown} */ (lab.slots.send ?? (() => null));
      const side = /** @type {HTMLElement} */ (lab.side);
      const tieNote = createTieNote(side);
      const trials = createTrials(side, send, { readOnly: lab.readOnly });
      const ladder = createLadder(side, send, { readOnly: lab.readOnly });
      const history = createHistory(side);
      for (const part of [trials, ladder, tieNote, history, judged]) lab.panel(part);
      const metrics = lab.own(createMetrics(lab.metricsSlot));
      return {
        draw(next, frame, values) {
          if (values) metrics.update(values);
        },
        describe: (events) => describeEvents(events, snapshot?.copies ?? 0),
      };
    },
  });
}
