/**
 * A lab's numbers as a definition list in the page's metrics slot (`slots.metrics`, the
 * renderer interface of docs/frontend.md): one `<div data-metric>` per number, its words
 * in `<dt>` and its value in `<dd>`, `is-nonzero` on a box whose value is not 0 (the
 * labs' styles pick out a loss or a refusal that way). The list has the shared class
 * `lab-metrics` (app.css) besides `className`. lab-view.js makes it for a lab whose spec
 * gives `metrics: {list}` (partition-cap, replication, two-phase-commit).
 */

import { num } from "./i18n.js";

/**
 * The list inside `slot` (nothing when there is no slot: an embed without numbers).
 * @param {HTMLElement | null | undefined} slot
 * @param {[string, () => string][]} metrics each number's key and words
 * @param {string} className
 */
export function createMetricsList(slot, metrics, className) {
  /** @type {HTMLElement | null} */
  let list = null;
  if (slot) {
    slot.innerHTML = "";
    list = document.createElement("dl");
    list.className = `lab-metrics ${className}`;
    for (const [key, label] of metrics) {
      const box = document.createElement("div");
      box.dataset.metric = key;
      const dt = document.createElement("dt");
      dt.textContent = label();
      box.append(dt, document.createElement("dd"));
      list.append(box);
    }
    slot.append(list);
  }
  return {
    /** @param {Record<string, any> | null | undefined} values */
    update(values) {
      if (!list || !values) return;
      for (const [key] of metrics) {
        const box = /** @type {HTMLElement} */ (list.querySelector(`[data-metric="${key}"]`));
        const dd = /** @type {HTMLElement} */ (box.querySelector("dd"));
        const text = num(values[key] ?? 0);
        if (dd.textContent !== text) dd.textContent = text;
        box.classList.toggle("is-nonzero", (values[key] ?? 0) > 0);
      }
    },
    destroy() {
      list?.remove();
      list = null;
    },
  };
}
