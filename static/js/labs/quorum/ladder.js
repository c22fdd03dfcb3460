/**
 * Lost writes against clock skew: the same seeded trials run with one node's clock at
 * each skew of a ladder (the `skew_ladder` action), one bar per skew with its count
 * written above it, the skews named under the bars. The chart can be focused and speaks
 * a summary; the table under it holds the same numbers, with the stale reads.
 */

import d3 from "d3";
import { fmt, num, t } from "../../i18n.js";
import { duration } from "../../motion.js";
import { element } from "./panels.js";

/** @import { Snapshot } from "../../types.js" */
/** @import { QuorumSnapshot, SkewLadder } from "./types.js" */

export const LADDER = "0,-1,-5,-20,-100,-1000";
const WIDTH = 360;
const HEIGHT = 190;
const M = { left: 40, right: 10, top: 18, bottom: 40 };

/**
 * A skew with its sign: "0", "−20", "+5".
 * @param {number} ms
 */
function signed(ms) {
  const sign = ms > 0 ? "+" : ms < 0 ? "−" : "";
  return `${sign}${num(Math.abs(ms))}`;
}

/**
 * A skew as a label: "0 ms", "−20 ms", "+5 ms".
 * @param {number} ms
 */
function skewText(ms) {
  return fmt(t("%(ms)s ms"), { ms: signed(ms) });
}

/**
 * The panel in the side column; `send(action, args)` asks for a ladder.
 * @param {HTMLElement} parent
 * @param {(action: string, args: object) => unknown} send
 * @param {{readOnly?: boolean}} [options]
 */
export function createLadder(parent, send, { readOnly = false } = {}) {
  const section = element("section", "q-ladder");
  section.setAttribute("aria-labelledby", "q-ladder-title");
  section.dataset.spot = "skew-ladder"; // a tour step may point here (tour/spotlight.js)
  const title = element("h2", null, t("Lost writes against clock skew"));
  title.id = "q-ladder-title";
  const text = element("p", "q-note");
  text.setAttribute("aria-live", "polite");
  const run = element("button", "button", "");
  run.type = "button";
  run.dataset.q = "skew-ladder";
  run.hidden = readOnly;
  const figure = element("figure", "q-ladder-figure");
  figure.hidden = true;
  section.append(title, text, run, figure);
  parent.append(section);

  const svg = d3
    .select(figure)
    .append("svg")
    .attr("class", "q-ladder-chart")
    .attr("role", "img")
    .attr("tabindex", 0) // reachable by keyboard: focusing it reads the summary
    .attr("viewBox", `0 0 ${WIDTH} ${HEIGHT}`);
  const yAxis = svg.append("g").attr("class", "q-axis").attr("transform", `translate(${M.left},0)`);
  const xAxis = svg.append("g").attr("class", "q-axis q-axis-x").attr("transform", `translate(0,${HEIGHT - M.bottom})`);
  const xLabel = svg
    .append("text")
    .attr("class", "q-axis-label")
    .attr("x", (M.left + WIDTH - M.right) / 2)
    .attr("y", HEIGHT - 4);
  const yLabel = svg
    .append("text")
    .attr("class", "q-axis-label")
    .attr("transform", `translate(11,${(HEIGHT - M.bottom + M.top) / 2}) rotate(-90)`);
  const bars = svg.append("g").attr("class", "q-ladder-bars");
  const tableWrap = element("div", "q-ladder-table");
  figure.append(tableWrap);

  let node = "A";
  let shown = "";
  run.addEventListener("click", () => send("skew_ladder", { node, ladder: LADDER, count: 1000 }));

  return {
    /** @param {Snapshot} state the lab's snapshot */
    update(state) {
      const snapshot = /** @type {QuorumSnapshot} */ (state);
      // the default ladder skews the first running node (a stopped one writes nothing)
      const running = (snapshot.network?.nodes ?? []).filter((n) => n.up).map((n) => n.id);
      node = running[0] ?? "A";
      const label = fmt(t("Plot lost writes against %(node)s's clock skew (0 to −1,000 ms)"), { node });
      if (run.textContent !== label) run.textContent = label;
      const ladder = snapshot.skew_ladder;
      const key = JSON.stringify(ladder);
      if (key === shown) return;
      shown = key;
      if (!ladder) {
        text.textContent = t(
          "Sets one node's clock behind by more and more, runs the same seeded trials at each skew, and counts the acknowledged writes that no copy kept.",
        );
        figure.hidden = true;
        return;
      }
      figure.hidden = false;
      text.textContent = resultText(ladder);
      draw(ladder);
    },
  };

  /** @param {SkewLadder} ladder */
  function draw(ladder) {
    const rungs = ladder.rungs;
    const x = d3
      .scaleBand()
      .domain(rungs.map((r) => String(r.skew_ms)))
      .range([M.left, WIDTH - M.right])
      .padding(0.25);
    const top = Math.max(1, ...rungs.map((r) => Number(r.lost_writes)));
    const y = d3.scaleLinear().domain([0, top]).nice().range([HEIGHT - M.bottom, M.top]);
    yAxis.call(d3.axisLeft(y).ticks(4).tickFormat((v) => num(Number(v))));
    xAxis.call(d3.axisBottom(x).tickFormat((v) => signed(Number(v))));
    xLabel.text(fmt(t("%(node)s's clock skew (ms; − runs behind)"), { node: ladder.node }));
    yLabel.text(fmt(t("lost writes of %(count)s"), { count: num(ladder.count) }));
    const ms = duration(400);
    const g = bars
      .selectAll("g.q-ladder-bar")
      .data(rungs, (r) => String(r.skew_ms))
      .join((enter) => {
        const bar = enter.append("g").attr("class", "q-ladder-bar");
        bar.append("rect").attr("y", y(0)).attr("height", 0);
        bar.append("text").attr("class", "q-ladder-value");
        return bar;
      })
      .attr("data-skew", (r) => r.skew_ms)
      .attr("data-lost", (r) => r.lost_writes);
    g.select("rect")
      .attr("x", (r) => x(String(r.skew_ms)) ?? 0)
      .attr("width", x.bandwidth())
      .transition()
      .duration(ms)
      .attr("y", (r) => y(r.lost_writes))
      .attr("height", (r) => Math.max(0, y(0) - y(r.lost_writes)));
    g.select("text")
      .attr("x", (r) => (x(String(r.skew_ms)) ?? 0) + x.bandwidth() / 2)
      .attr("y", (r) => y(r.lost_writes) - 4)
      .text((r) => num(r.lost_writes));
    svg.attr("aria-label", spoken(ladder));
    tableWrap.replaceChildren(table(ladder));
  }
}

/** @param {SkewLadder} ladder */
function resultText(ladder) {
  const first = ladder.rungs[0];
  const last = ladder.rungs[ladder.rungs.length - 1];
  return fmt(
    t("The same %(count)s trials at each skew of %(node)s's clock: %(low)s lost writes at %(from)s, %(high)s at %(to)s. A write is lost when its timestamp is older than the value it replaces: that value was written 0 to 999 ms before, so the further behind the clock, the more writes lose."),
    {
      count: num(ladder.count),
      node: ladder.node,
      low: num(first.lost_writes),
      from: skewText(first.skew_ms),
      high: num(last.lost_writes),
      to: skewText(last.skew_ms),
    },
  );
}

/** @param {SkewLadder} ladder */
function spoken(ladder) {
  const parts = ladder.rungs.map((r) =>
    fmt(t("%(skew)s: %(lost)s"), { skew: skewText(r.skew_ms), lost: num(r.lost_writes) }),
  );
  return fmt(t("Lost writes of %(count)s trials against %(node)s's clock skew: %(values)s."), {
    count: num(ladder.count),
    node: ladder.node,
    values: parts.join(t(", ")),
  });
}

/** @param {SkewLadder} ladder */
function table(ladder) {
  const el = element("table", "q-table");
  const caption = element("caption", "visually-hidden", t("Lost writes and stale reads at each skew"));
  el.append(caption);
  const head = element("tr", null);
  for (const label of [t("Skew"), t("Lost writes"), t("Stale reads"), t("Acknowledged writes")]) {
    const th = element("th", null, label);
    th.scope = "col";
    head.append(th);
  }
  el.createTHead().append(head);
  const body = el.createTBody();
  for (const r of ladder.rungs) {
    const row = element("tr", null);
    row.dataset.skew = String(r.skew_ms);
    for (const value of [skewText(r.skew_ms), num(r.lost_writes), num(r.stale), num(r.acknowledged)]) {
      row.append(element("td", "q-num", value));
    }
    body.append(row);
  }
  return el;
}
