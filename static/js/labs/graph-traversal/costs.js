/**
 * The cost strip under the drawing (`data-spot="costs"`): the three engines side by
 * side. The traversal: the edges it read (counting up as the expansion plays) and its
 * index lookups. The recursive SQL: the rows each round of the recursion produced (tiny
 * bars), its index lookups and what they cost (lookups × log₂ of the table's rows), or
 * the rows it read without the index; stopped at its work limit when it had no end.
 * networkx: whether it agrees. When the graph has just grown, each number stands beside
 * the one from before: "13 → 13 edges read", "comparisons: 32 → 56".
 */

import { fmt, num, t, tn } from "../../i18n.js";
import { agreementParts, agreementText, edgesRead, lookupsText, rowsText } from "./words.js";

/** @import { Snapshot } from "../../types.js" */
/** @import { GtCosts, GtQuestion, GtSnapshot } from "./types.js" */

const SVG = "http://www.w3.org/2000/svg";

/** @param {HTMLElement} parent */
export function createCosts(parent) {
  const root = document.createElement("div");
  root.className = "gt-costs";
  root.dataset.spot = "costs";
  root.setAttribute("role", "group");
  root.setAttribute("aria-label", t("What each engine cost"));
  const empty = document.createElement("p");
  empty.className = "gt-costs-empty";
  const traversal = cell("traversal", t("Traversal"));
  const sql = cell("sql", t("Recursive SQL"));
  const nx = cell("networkx", t("networkx"));
  const bars = document.createElementNS(SVG, "svg");
  bars.classList.add("gt-round-bars");
  bars.setAttribute("role", "img");
  sql.figure.append(bars);
  root.append(empty, traversal.element, sql.element, nx.element);
  parent.append(root);
  /** @type {GtQuestion | null} */
  let question = null;
  /** @type {GtCosts | null} the costs before the graph grew */
  let before = null;

  /** @param {Snapshot} snap */
  function update(snap) {
    const snapshot = /** @type {GtSnapshot} */ (snap);
    question = snapshot.question;
    before = snapshot.before;
    root.dataset.asked = String(Boolean(question));
    empty.hidden = Boolean(question);
    empty.textContent = t("Ask a question: what the traversal, the SQL and networkx each did shows here.");
    for (const c of [traversal, sql, nx]) c.element.hidden = !question;
    if (!question) return;
    const s = question.sql;
    const tr = question.traversal;
    // the traversal
    progress(tr.touched);
    traversal.small.textContent = fmt(t("+ %(lookups)s to find the named nodes"), { lookups: lookupsText(tr.lookups) });
    // the SQL
    showAgreement(sql.mark, s.agrees);
    sql.element.dataset.agrees = String(s.agrees);
    sql.element.dataset.stopped = String(Boolean(s.stopped));
    const rounds = s.rounds ?? s.rows_per_round.length;
    sql.big.textContent = fmt(t("%(rows)s in %(rounds)s"), {
      rows: rowsText(s.rows),
      rounds: fmt(tn("%(n)s round", "%(n)s rounds", rounds), { n: num(rounds) }),
    });
    drawBars(bars, s.rows_per_round);
    // each line, and whether a narrow strip keeps it (the others are the side panel's)
    /** @type {Array<[string, boolean]>} */
    const lines = [];
    if (s.stopped) {
      lines.push([`⚠ ${fmt(t("stopped at the work limit of %(limit)s rows"), { limit: num(s.limit) })}`, true]);
    }
    if (s.index && before) {
      lines.push([fmt(t("index lookups: %(before)s → %(now)s"), { before: num(before.lookups), now: num(s.lookups) }), false]);
      lines.push([
        fmt(t("lookups × log₂ rows: %(before)s → %(now)s comparisons"), { before: num(before.comparisons), now: num(s.comparisons) }),
        true,
      ]);
    } else if (s.index) {
      lines.push([
        fmt(t("%(lookups)s × log₂ %(rows)s rows = %(n)s comparisons"), {
          lookups: lookupsText(s.lookups),
          rows: num(question.table_rows),
          n: num(s.comparisons),
        }),
        false,
      ]);
    } else {
      lines.push([
        before
          ? fmt(t("no index: rows read %(before)s → %(now)s"), { before: num(before.rows_read), now: num(s.rows_read) })
          : fmt(t("no index: %(n)s rows read, the whole table every round"), { n: num(s.rows_read) }),
        true,
      ]);
    }
    if (before) {
      lines.push([fmt(t("table: %(before)s → %(now)s rows"), { before: num(before.table_rows), now: num(question.table_rows) }), false]);
    }
    sql.small.replaceChildren(
      ...lines.map(([text, kept]) => {
        const line = document.createElement("span");
        line.className = "gt-cost-line";
        if (kept) line.dataset.kept = "true";
        line.textContent = text;
        return line;
      }),
    );
    // networkx
    const n = question.networkx;
    nx.big.textContent = agreementText(n.agrees);
    nx.element.dataset.agrees = String(n.agrees);
    nx.mark.textContent = "";
    nx.small.textContent =
      question.query.mode === "ends"
        ? fmt(tn("%(n)s node", "%(n)s nodes", n.answer_count), { n: num(n.answer_count) })
        : n.simple_only && tr.revisits
          ? fmt(tn("%(n)s simple path", "%(n)s simple paths", n.answer_count), { n: num(n.answer_count) })
          : fmt(tn("%(n)s path", "%(n)s paths", n.answer_count), { n: num(n.answer_count) });
  }

  /**
   * The traversal's edges read so far (the expansion playing), or in all.
   * @param {number} read
   */
  function progress(read) {
    if (!question) return;
    const total = question.traversal.touched;
    traversal.element.dataset.counting = String(read < total);
    traversal.big.textContent =
      before && read >= total
        ? fmt(t("%(before)s → %(now)s"), { before: num(before.touched), now: edgesRead(total) })
        : edgesRead(read);
  }

  return {
    element: root,
    update,
    progress,
    destroy() {
      root.remove();
    },
  };
}

/**
 * The agreement in a cell's head: the mark, and words a narrow strip only says.
 * @param {HTMLElement} place
 * @param {boolean | null} agrees
 */
function showAgreement(place, agrees) {
  const [mark, words] = agreementParts(agrees);
  const m = document.createElement("span");
  m.className = "gt-agree-mark";
  m.textContent = mark;
  const w = document.createElement("span");
  w.className = "gt-agree-words";
  w.textContent = ` ${words}`;
  place.replaceChildren(m, w);
}

/**
 * One engine's cell of the strip.
 * @param {string} engine
 * @param {string} title
 */
function cell(engine, title) {
  const element = document.createElement("div");
  element.className = "gt-cost";
  element.dataset.engine = engine;
  const head = document.createElement("p");
  head.className = "gt-cost-head";
  const name = document.createElement("span");
  name.textContent = title;
  const mark = document.createElement("span");
  mark.className = "gt-cost-agree";
  head.append(name, " ", mark);
  const figure = document.createElement("div");
  figure.className = "gt-cost-figure";
  const big = document.createElement("p");
  big.className = "gt-cost-big";
  figure.append(big);
  const small = document.createElement("p");
  small.className = "gt-cost-small";
  element.append(head, figure, small);
  return { element, mark, big, small, figure };
}

/**
 * Tiny bars: the rows each round produced, their numbers over them when there is room.
 * @param {SVGSVGElement} svg
 * @param {number[]} values
 */
function drawBars(svg, values) {
  const n = values.length;
  const w = Math.max(1, n) * 14;
  const h = 34;
  const most = Math.max(1, ...values);
  svg.setAttribute("viewBox", `0 0 ${w} ${h}`);
  svg.style.setProperty("--bars", String(Math.max(1, Math.min(n, 10))));
  svg.setAttribute(
    "aria-label",
    fmt(t("Rows produced per round: %(values)s"), { values: values.slice(0, 20).map((v) => num(v)).join(", ") + (n > 20 ? " …" : "") }),
  );
  svg.replaceChildren();
  const labelled = n <= 8 && most < 10000;
  // many rounds: thin bars that fill the box (no numbers to keep from stretching)
  svg.setAttribute("preserveAspectRatio", labelled ? "xMidYMid meet" : "none");
  values.forEach((v, i) => {
    const bh = Math.max(v ? 2 : 0.5, (v / most) * (labelled ? h - 11 : h - 1));
    const rect = document.createElementNS(SVG, "rect");
    rect.setAttribute("x", String(i * 14 + 2));
    rect.setAttribute("y", String(h - bh));
    rect.setAttribute("width", "10");
    rect.setAttribute("height", String(bh));
    rect.setAttribute("class", "gt-round-bar");
    svg.append(rect);
    if (labelled) {
      const text = document.createElementNS(SVG, "text");
      text.setAttribute("x", String(i * 14 + 7));
      text.setAttribute("y", String(h - bh - 2));
      text.setAttribute("text-anchor", "middle");
      text.setAttribute("class", "gt-round-value");
      text.textContent = num(v);
      svg.append(text);
    }
  });
}
