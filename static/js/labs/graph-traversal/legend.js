/**
 * The key to the drawing, under it: each outcome the question's edges had, as the line
 * is drawn (its colour, its dashes, its arrowhead) with its mark and its words, so no
 * two differ by colour alone; then the answer's paths, the search from the end, a
 * closed node and a cut trip when they are drawn.
 */

import { t } from "../../i18n.js";
import { OUTCOMES, outcomeMark, outcomeText } from "./words.js";

/** @import { Snapshot } from "../../types.js" */
/** @import { GtSnapshot } from "./types.js" */

/** @typedef {"answer" | "line" | "badge" | "closed" | "cut"} ItemKind how an item's sample is drawn */

const SVG = "http://www.w3.org/2000/svg";

/** @param {HTMLElement} parent */
export function createLegend(parent) {
  const root = document.createElement("ul");
  root.className = "gt-legend";
  root.setAttribute("aria-label", t("Key to the drawing"));
  parent.append(root);
  let shown = "";

  /**
   * @param {Snapshot} snap
   */
  function update(snap) {
    const snapshot = /** @type {GtSnapshot} */ (snap);
    const question = snapshot.question;
    /** @type {[ItemKind, string, string, string][]} what, kind, words, mark */
    const items = [];
    if (question) {
      /** @type {Set<string>} */
      const present = new Set();
      let fromEnd = false;
      for (const d of question.traversal.depths) {
        for (const k of Object.keys(d.counts)) present.add(k);
        if (d.side === "end") fromEnd = true;
      }
      if (question.traversal.paths.length) items.push(["answer", "answer", t("the answer's path"), ""]);
      for (const outcome of OUTCOMES) {
        if (present.has(outcome)) items.push(["line", outcome, outcomeText(outcome), outcomeMark(outcome)]);
      }
      if (fromEnd) items.push(["line", "end", t("the search from the end"), "←"]);
      if (question.query.mode === "ends" && question.traversal.ends.length <= 40) items.push(["badge", "depth", t("fewest edges to reach it"), "2"]);
    }
    if ((snapshot.closed ?? []).length) items.push(["closed", "closed", t("closed"), ""]);
    if (snapshot.closures?.cut?.length) items.push(["cut", "cut", t("a trip the closure cuts"), ""]);
    const key = JSON.stringify(items);
    if (key === shown) return;
    shown = key;
    root.replaceChildren(...items.map(([what, kind, words, mark]) => item(what, kind, words, mark)));
    root.hidden = !items.length;
  }

  return {
    update,
    element: root,
    destroy() {
      root.remove();
    },
  };
}

/**
 * One item of the key: its sample line (or box, or badge), its mark and its words.
 * @param {ItemKind} what
 * @param {string} kind the outcome, or what else it is
 * @param {string} words
 * @param {string} mark
 */
function item(what, kind, words, mark) {
  const li = document.createElement("li");
  li.className = "gt-legend-item";
  li.dataset.kind = kind;
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("viewBox", "0 0 30 14");
  svg.setAttribute("aria-hidden", "true");
  svg.classList.add("gt-legend-sample");
  if (what === "line" || what === "answer" || what === "cut") {
    const line = document.createElementNS(SVG, "line");
    line.setAttribute("x1", "2");
    line.setAttribute("y1", "7");
    line.setAttribute("x2", "28");
    line.setAttribute("y2", "7");
    line.setAttribute("class", what === "answer" ? "gt-answer" : what === "cut" ? "gt-cut" : "gt-mark");
    if (what === "line") {
      line.dataset.outcome = kind === "end" ? "grown" : kind;
      line.dataset.side = kind === "end" ? "end" : "start";
    }
    svg.append(line);
  } else if (what === "closed") {
    const box = document.createElementNS(SVG, "rect");
    box.setAttribute("x", "8");
    box.setAttribute("y", "1");
    box.setAttribute("width", "12");
    box.setAttribute("height", "12");
    box.setAttribute("class", "gt-legend-closed");
    const strike = document.createElementNS(SVG, "line");
    strike.setAttribute("x1", "8");
    strike.setAttribute("y1", "13");
    strike.setAttribute("x2", "20");
    strike.setAttribute("y2", "1");
    strike.setAttribute("class", "gt-legend-strike");
    svg.append(box, strike);
  }
  if (what === "badge") {
    const badge = document.createElement("span");
    badge.className = "gt-legend-badge";
    badge.textContent = mark;
    li.append(badge);
  } else {
    li.append(svg);
    if (mark) {
      const m = document.createElement("span");
      m.className = "gt-legend-mark";
      m.setAttribute("aria-hidden", "true");
      m.textContent = mark;
      li.append(m);
    }
  }
  const text = document.createElement("span");
  text.textContent = words;
  li.append(text);
  return li;
}
