/**
 * The lab-wide numbers under the cards: which keys are loaded, and the one comparison that
 * tells the story, how much of the data the last change moved under each scheme.
 */

import { fmt, num, percent, t } from "../../i18n.js";
import { kindWords } from "./describe.js";
import { SCHEMES, schemeName } from "./schemes.js";

/** Build the summary inside `container`; returns {update(snapshot, metrics)}. */
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
      return [scheme, item];
    }),
  );
  container.append(heading, keys, list);

  function update(snapshot, metrics) {
    keys.textContent = fmt(
      t("%(count)s %(kind)s on %(n)s shards; %(drawn)s of them are drawn as dots."),
      {
        count: num(snapshot.keys.count),
        kind: kindWords(snapshot.keys.kind, snapshot.keys.count),
        n: num(snapshot.shards.length),
        drawn: num(snapshot.sample.length),
      },
    );
    for (const [scheme, item] of rows) {
      const numbers = metrics.schemes[scheme];
      const fill = /** @type {HTMLElement} */ (item.querySelector(".summary-fill"));
      fill.style.width = `${Math.min(100, numbers.moved_fraction * 100)}%`;
      const value = /** @type {HTMLElement} */ (item.querySelector(".summary-value"));
      value.textContent = fmt(t("%(percent)s (%(moved)s keys)"), {
        percent: percent(numbers.moved_fraction),
        moved: num(numbers.moved),
      });
    }
  }

  return { update };
}
