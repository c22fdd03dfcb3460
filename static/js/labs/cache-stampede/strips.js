/**
 * The four lanes side by side, on the stage's clock: one button each (the one drawn large
 * is pressed, "watching"), with its database at a glance (a cell per query it may run at
 * once, filled while one runs, and the queue) and what its last refill of a board took:
 * "23 queries", "1 query", "1 query, 68 ms early". Pressing one watches it (set_strategy);
 * in a read-only view they only show.
 */

import { fmt, num, t } from "../../i18n.js";
import { refillText, shortNames } from "./words.js";

/** @import { CsRefillEvent } from "./types.js" */

/**
 * @param {HTMLElement} parent
 * @param {{names: Record<string, string>, strategies: string[], onPick: ((strategy: string) => void) | null}} options
 */
export function createStrips(parent, { names, strategies, onPick }) {
  const root = document.createElement("div");
  root.className = "cs-strips";
  root.setAttribute("role", "group");
  root.setAttribute("aria-label", t("The four strategies on the same readers"));
  parent.append(root);
  /** @type {Map<HTMLElement, string>} each element's words, written only when they change */
  const shown = new Map();
  /**
   * @param {HTMLElement} el
   * @param {string} words
   */
  const write = (el, words) => {
    if (shown.get(el) === words) return;
    shown.set(el, words);
    el.textContent = words;
  };
  const short = shortNames();
  const strips = strategies.map((strategy) => {
    const el = document.createElement(onPick ? "button" : "div");
    el.className = "cs-strip";
    el.dataset.strategy = strategy;
    if (el instanceof HTMLButtonElement) {
      el.type = "button";
      el.addEventListener("click", () => onPick?.(strategy));
    }
    const head = document.createElement("span");
    head.className = "cs-strip-head";
    const name = document.createElement("span");
    name.className = "cs-strip-name";
    name.textContent = names[strategy];
    const shortName = document.createElement("span");
    shortName.className = "cs-strip-short";
    shortName.textContent = short[strategy];
    shortName.setAttribute("aria-hidden", "true");
    const badge = document.createElement("span");
    badge.className = "cs-strip-watching";
    head.append(name, shortName, " ", badge);
    const db = document.createElement("span");
    db.className = "cs-strip-db";
    const cells = document.createElement("span");
    cells.className = "cs-cells";
    cells.setAttribute("aria-hidden", "true");
    const count = document.createElement("span");
    count.className = "cs-strip-count";
    db.append(cells, count);
    const refill = document.createElement("span");
    refill.className = "cs-strip-refill";
    const refillLabel = document.createElement("span");
    refillLabel.className = "cs-strip-refill-label";
    const refillWhat = document.createElement("span");
    refill.append(refillLabel, " ", refillWhat);
    el.append(head, " ", db, " ", refill);
    root.append(el);
    return { strategy, el, badge, cells, count, refill, refillLabel, refillWhat, limit: -1, filled: -1, key: "" };
  });

  /**
   * @param {string} watched
   * @param {number} limit queries at once
   * @param {Record<string, {running: number, queued: number, refill: CsRefillEvent | null}>} lanes
   */
  function update(watched, limit, lanes) {
    for (const strip of strips) {
      const lane = lanes[strip.strategy];
      const on = strip.strategy === watched;
      // written only when they change: a playing lab draws sixty frames a second
      const key = [watched, lane.running, lane.queued, lane.refill?.at_us ?? "", lane.refill?.lane ?? ""].join("|");
      if (strip.key === key && strip.limit === limit) continue;
      strip.key = key;
      if (strip.el instanceof HTMLButtonElement) strip.el.setAttribute("aria-pressed", String(on));
      strip.el.classList.toggle("is-watched", on);
      write(strip.badge, on ? t("watching") : "");
      if (strip.limit !== limit) {
        strip.limit = limit;
        strip.filled = -1;
        strip.cells.replaceChildren(...Array.from({ length: Math.min(limit, 64) }, () => document.createElement("i")));
      }
      const running = Math.min(lane.running, strip.cells.children.length);
      if (running !== strip.filled) {
        strip.filled = running;
        [...strip.cells.children].forEach((cell, i) => cell.classList.toggle("on", i < running));
      }
      write(
        strip.count,
        lane.queued
          ? fmt(t("%(running)s running · %(queued)s queued"), { running: num(lane.running), queued: num(lane.queued) })
          : fmt(t("%(running)s running"), { running: num(lane.running) }),
      );
      // "refill:" is left out on a phone, where the strip is narrow, and before an early
      // refresh ("1 query, 68 ms early" says what it was)
      write(strip.refillLabel, lane.refill && !lane.refill.early ? t("refill:") : "");
      write(strip.refillWhat, lane.refill ? refillText(lane.refill) : t("no refill yet"));
      strip.refill.dataset.queries = lane.refill ? String(lane.refill.queries) : "";
      strip.el.dataset.running = String(lane.running);
      strip.el.dataset.queued = String(lane.queued);
    }
  }

  return {
    update,
    element: root,
    destroy() {
      root.remove();
    },
  };
}
