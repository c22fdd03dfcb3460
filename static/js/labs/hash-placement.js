/**
 * Renderer of the hash-placement lab: three placement schemes side by side on the same
 * keys (hash mod N, fixed partitions, a consistent-hash ring). Implements the renderer
 * interface of docs/frontend.md: createRenderer() → {mount, update, describe, destroy}.
 */

import { t } from "../i18n.js";
import { createCard } from "./hash-placement/card.js";
import { describeEvents } from "./hash-placement/describe.js";
import { createFrameQueue } from "./hash-placement/frames.js";
import { SCHEMES } from "./hash-placement/schemes.js";
import { createSummary } from "./hash-placement/summary.js";

/** @import { Hello, Renderer, RendererSlots } from "../types.js" */

// Events after which "moved in the last change" starts afresh.
const CHANGES = new Set(["moves", "shard_added", "shard_removed", "keys_loaded"]);

/**
 * A renderer for one mounted lab view.
 * @returns {Renderer}
 */
export function createRenderer() {
  let cards = new Map();
  let grid = null;
  let numbersGrid = null;
  let summary = null;
  let metricsEl = null;
  const frames = createFrameQueue();

  function context(metrics, events = []) {
    return { total: metrics.total_keys, isChange: events.some((e) => CHANGES.has(e.type)) };
  }

  return {
    /**
     * Draw the lab from a hello message into `el` (and the lab-wide numbers into `slots.metrics`).
     * @param {HTMLElement} el
     * @param {Hello} hello
     * @param {Partial<RendererSlots>} [slots]
     */
    mount(el, hello, slots = {}) {
      grid = document.createElement("div");
      grid.className = "scheme-grid";
      el.replaceChildren(legend(), grid);
      // each scheme's spread and keys per shard: the side panel's, in the cards' order
      numbersGrid = null;
      if (slots.side) {
        numbersGrid = document.createElement("div");
        numbersGrid.className = "scheme-numbers-grid";
        slots.side.append(numbersGrid);
      }
      cards = new Map(SCHEMES.map((scheme) => [scheme, createCard(grid, scheme, numbersGrid)]));
      metricsEl = slots.metrics ?? null;
      if (metricsEl) summary = createSummary(metricsEl);
      const { snapshot, metrics } = hello;
      for (const [scheme, card] of cards)
        card.show(snapshot, metrics.schemes[scheme], context(metrics))();
      summary?.update(snapshot, metrics);
    },

    /**
     * Animate one frame: what moved flies, the rest stays still. The work is spread over
     * the next few animation frames (frames.js): one card's change a frame, then all the
     * numbers, so that no single frame does all three cards at once.
     */
    update(frame) {
      frames.flush();
      const { snapshot, metrics, events = [] } = frame;
      const lookup = events.find((e) => e.type === "lookup") ?? null;
      const keepLookup = events.every((e) =>
        ["lookup", "hot_key", "hot_key_cleared"].includes(e.type),
      );
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
      });
      frames.start();
    },

    /** Sentences that say what the events mean (translated). */
    describe(events) {
      return describeEvents(events);
    },

    destroy() {
      frames.cancel();
      for (const card of cards.values()) card.destroy();
      cards.clear();
      grid?.remove();
      numbersGrid?.remove();
      metricsEl?.replaceChildren();
      summary = null;
    },
  };
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
