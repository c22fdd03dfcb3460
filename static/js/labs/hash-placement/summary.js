/**
 * The lab-wide numbers under the cards: which keys are loaded, and the one comparison that
 * tells the story, how much of the data the last change moved under each scheme.
 */

import { fmt, num, percent, t } from "../../i18n.js";
import { kindWords } from "./describe.js";
import { createFill } from "./fill.js";
import { SCHEMES, schemeName } from "./schemes.js";

/** @import { Snapshot } from "../../types.js" */
/** @import { HashMetrics, HashSnapshot } from "./types.js" */

/**
 * Build the summary inside `container`; returns {update(snapshot, metrics)}.
 * @param {HTMLElement} container
 */
export function createSummary(container) {
  container.innerHTML = "";
  const heading = document.createElement("h2");
  heading.className = "summary-title";
  heading.textContent = t("Moved by the last change");
  const keys = document.createElement("p");
  keys.className = "summary-keys";
  const list = document.createElement("ul");
  list.className = "summary-bars";
  const rows = new Map(
    SCHEMES.map((scheme) => {
      const item = document.createElement("li");
      item.innerHTML = `<span class="summary-name"></span><span class="summary-track" aria-hidden="true"><span class="summary-fill"></span></span><span class="summary-value"></span>`;
      const name = /** @type {HTMLElement} */ (item.querySelector(".summary-name"));
      name.textContent = schemeName(scheme);
      list.append(item);
      const fill = createFill(/** @type {HTMLElement} */ (item.querySelector(".summary-fill")));
      return [scheme, { item, fill }];
    }),
  );
  container.append(heading, keys, list);

  /**
   * @param {Snapshot} given the lab's snapshot
   * @param {Record<string, any>} metrics the lab's metrics
   */
  function update(given, metrics) {
    const snapshot = /** @type {HashSnapshot} */ (given);
    const text = fmt(
      t("%(count)s %(kind)s on %(n)s shards; %(drawn)s of them are drawn as dots."),
      {
        count: num(snapshot.keys.count),
        kind: kindWords(snapshot.keys.kind, snapshot.keys.count),
        n: num(snapshot.shards.length),
        drawn: num(snapshot.sample.length),
      },
    );
    if (keys.textContent !== text) keys.textContent = text;
    for (const [scheme, { item, fill }] of rows) {
      const numbers = /** @type {HashMetrics} */ (metrics).schemes[scheme];
      fill.to(numbers.moved_fraction);
      const value = /** @type {HTMLElement} */ (item.querySelector(".summary-value"));
      const shown = fmt(t("%(percent)s (%(moved)s keys)"), {
        percent: percent(numbers.moved_fraction),
        moved: num(numbers.moved),
      });
      if (value.textContent !== shown) value.textContent = shown;
    }
  }

  return { update };
}
