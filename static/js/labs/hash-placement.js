/**
 * Renderer of the hash-placement lab: three placement schemes side by side on the same
 * keys (hash mod N, fixed partitions, a consistent-hash ring). Implements the renderer
 * interface of docs/frontend.md: createRenderer() → {mount, update, describe, destroy}.
 */

import { t } from "../i18n.js";
import { createLabRenderer } from "../lab-view.js";
import { createCard } from "./hash-placement/card.js";
import { describeEvents } from "./hash-placement/describe.js";
import { createFrameQueue } from "./hash-placement/frames.js";
import { SCHEMES } from "./hash-placement/schemes.js";
import { createSummary } from "./hash-placement/summary.js";
import { createSchemeTabs } from "./hash-placement/tabs.js";

/** @import { LabEvent, Renderer } from "../types.js" */

// Events after which "moved in the last change" starts afresh.
const CHANGES = new Set(["moves", "shard_added", "shard_removed", "keys_loaded"]);

/**
 * A renderer for one mounted lab view.
 * @returns {Renderer}
 */
export function createRenderer() {
  return createLabRenderer({
    // the legend and the cards' grid are the stage's own children (stage.css lays them out)
    className: null,
    drawsItself: true,
    mount(lab, hello) {
      const frames = createFrameQueue();
      lab.onDestroy(() => frames.cancel());
      const grid = lab.element("div", "scheme-grid", null);
      // a phone's switcher between the cards (tabs.js): made once the cards are there
      const tabsHere = document.createElement("div");
      lab.root.replaceChildren(legend(), tabsHere, grid);
      lab.onDestroy(() => grid.remove());
      // each scheme's spread and keys per shard: the side panel's, in the cards' order
      const numbersGrid = lab.side ? lab.element("div", "scheme-numbers-grid", lab.side) : null;
      if (numbersGrid) lab.onDestroy(() => numbersGrid.remove());
      const cards = new Map(SCHEMES.map((scheme) => [scheme, lab.own(createCard(grid, scheme, numbersGrid))]));
      const tabs = lab.own(createSchemeTabs(grid));
      tabsHere.replaceWith(tabs.element);
      const metricsEl = lab.metricsSlot;
      const summary = metricsEl ? createSummary(metricsEl) : null;
      if (metricsEl) lab.onDestroy(() => metricsEl.replaceChildren());
      const { snapshot, metrics } = hello;
      for (const [scheme, card] of cards) card.show(snapshot, metrics.schemes[scheme], context(metrics))();
      summary?.update(snapshot, metrics);
      tabs.update(snapshot, metrics);
      return {
        /**
         * Animate one frame: what moved flies, the rest stays still. The work is spread over
         * the next few animation frames (frames.js): one card's change a frame, then all the
         * numbers, so that no single frame does all three cards at once.
         */
        update(frame) {
          frames.flush();
          const { snapshot, metrics, events = [] } = frame;
          const lookup = events.find((e) => e.type === "lookup") ?? null;
          const keepLookup = events.every((e) => ["lookup", "hot_key", "hot_key_cleared"].includes(e.type));
          /** @type {((() => void) | undefined)[]} */
          const numbers = [];
          for (const [scheme, card] of cards) {
            frames.later(() => {
              if (lookup) card.setLookup(lookup, { draw: false });
              else if (!keepLookup) card.setLookup(null, { draw: false });
              numbers.push(card.change(snapshot, metrics.schemes[scheme], context(metrics, events)));
            });
          }
          // The numbers under all three cards, and the lab-wide ones, in one frame: a new text
          // there lays every card out again (their drawings included), once for all as for one.
          frames.later(() => {
            for (const write of numbers) write?.();
            summary?.update(snapshot, metrics);
            tabs.update(snapshot, metrics);
          });
          frames.start();
        },
        /** Sentences that say what the events mean (translated). */
        describe: (events) => describeEvents(events),
      };
    },
  });
}

/**
 * The numbers a card needs besides its scheme's: the keys in all, and whether the frame changed placement.
 * @param {Record<string, any>} metrics
 * @param {LabEvent[]} [events]
 */
function context(metrics, events = []) {
  return { total: metrics.total_keys, isChange: events.some((e) => CHANGES.has(e.type)) };
}

function legend() {
  const p = document.createElement("p");
  p.className = "stage-legend";
  p.innerHTML = `<svg viewBox="0 0 44 16" aria-hidden="true" focusable="false"><circle cx="8" cy="8" r="5" class="legend-dot"/><circle cx="30" cy="8" r="5" class="legend-dot moved"/></svg>`;
  p.append(
    t(
      "Each dot is one sample key, on the circle at its hash and in its shard's bin. Outlined dots moved in the last change.",
    ),
  );
  return p;
}
