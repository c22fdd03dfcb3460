/**
 * On a phone the three cards are shown one at a time, each as wide as the stage: a row of
 * tabs over them, one a scheme, each with the share of the keys its last change moved, so
 * the comparison the lab is about stays in view whichever card is open. stage.css shows
 * the tabs under 600 px; wider, every card is shown and the tabs are not (the cards'
 * `is-current` class then changes nothing).
 */

import { percent } from "../../i18n.js";
import { SCHEMES, schemeTitle } from "./schemes.js";

/** @import { Snapshot } from "../../types.js" */
/** @import { HashMetrics, HashSnapshot, Scheme } from "./types.js" */

/**
 * Tabs for the cards in `grid` (each `.scheme-card[data-scheme]`, with the id
 * `card-<scheme>`); returns {element, update(snapshot, metrics), destroy()}.
 * @param {HTMLElement} grid
 */
export function createSchemeTabs(grid) {
  const list = document.createElement("div");
  list.className = "scheme-tabs";
  list.setAttribute("role", "tablist");
  /** @type {Map<Scheme, {tab: HTMLButtonElement, name: HTMLElement, moved: HTMLElement}>} */
  const tabs = new Map();
  for (const scheme of SCHEMES) {
    const tab = document.createElement("button");
    tab.type = "button";
    tab.className = "scheme-tab";
    tab.id = `scheme-tab-${scheme}`;
    tab.dataset.scheme = scheme;
    tab.setAttribute("role", "tab");
    tab.setAttribute("aria-controls", `card-${scheme}`);
    const name = document.createElement("span");
    name.className = "scheme-tab-name";
    const moved = document.createElement("span");
    moved.className = "scheme-tab-moved";
    tab.append(name, moved);
    tab.addEventListener("click", () => select(scheme));
    list.append(tab);
    tabs.set(scheme, { tab, name, moved });
  }
  // the arrows, Home and End move between the tabs (the tabs pattern of WAI-ARIA)
  list.addEventListener("keydown", (event) => {
    const at = SCHEMES.indexOf(/** @type {Scheme} */ (grid.dataset.current));
    const to = {
      ArrowLeft: at - 1,
      ArrowRight: at + 1,
      Home: 0,
      End: SCHEMES.length - 1,
    }[event.key];
    if (to === undefined) return;
    event.preventDefault();
    const scheme = SCHEMES[(to + SCHEMES.length) % SCHEMES.length];
    select(scheme);
    tabs.get(scheme)?.tab.focus();
  });

  /** @param {Scheme} scheme */
  function select(scheme) {
    grid.dataset.current = scheme;
    for (const [each, { tab }] of tabs) {
      const on = each === scheme;
      tab.setAttribute("aria-selected", String(on));
      tab.tabIndex = on ? 0 : -1;
    }
    for (const card of grid.querySelectorAll(".scheme-card")) {
      card.classList.toggle("is-current", /** @type {HTMLElement} */ (card).dataset.scheme === scheme);
    }
  }
  select(SCHEMES[0]);

  return {
    element: list,
    /**
     * @param {Snapshot} snap
     * @param {Record<string, any>} numbers the lab's metrics
     */
    update(snap, numbers) {
      const snapshot = /** @type {HashSnapshot} */ (snap);
      const metrics = /** @type {HashMetrics} */ (numbers);
      for (const [scheme, { name, moved }] of tabs) {
        setText(name, schemeTitle(scheme, snapshot));
        setText(moved, percent(metrics.schemes[scheme]?.moved_fraction ?? 0));
      }
    },
    destroy() {
      list.remove();
    },
  };
}

/**
 * @param {Element} node
 * @param {string} text
 */
function setText(node, text) {
  if (node.textContent !== text) node.textContent = text;
}
