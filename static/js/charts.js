/**
 * Small d3 bar charts: one bar per shard, keyed by shard, animated, values written out,
 * and summarised in words for screen readers (role=img with an aria-label).
 */

import d3 from "d3";
import { fmt, num, t } from "./i18n.js";
import { duration } from "./motion.js";
import { inkOn, shardColour } from "./palette.js";

/** @typedef {{ shard: string, value: number }} BarRow one bar: a shard and its number */

const WIDTH = 320;
const ROW = 22;
const LABEL_W = 22;
const VALUE_W = 64;

/**
 * A horizontal bar chart inside `container`; call `update(values, {mean})`.
 * @param {HTMLElement} container
 * @param {{title: string}} options `title` starts the spoken summary
 */
export function createBarChart(container, { title }) {
  const svg = d3
    .select(container)
    .append("svg")
    .attr("class", "bar-chart")
    .attr("role", "img")
    .attr("viewBox", `0 0 ${WIDTH} ${ROW}`);
  const bars = svg.append("g");
  const meanLine = svg.append("line").attr("class", "mean-line");

  /**
   * @param {Record<string, number>} values by shard
   * @param {{mean?: number | null}} [options] a line at the mean
   */
  function update(values, { mean } = {}) {
    const rows = Object.entries(values)
      .map(([shard, value]) => ({ shard, value }))
      .sort((a, b) => (a.shard < b.shard ? -1 : a.shard > b.shard ? 1 : 0));
    const height = Math.max(1, rows.length) * ROW + 4;
    const max = d3.max(rows, (d) => d.value) || 1;
    const x = d3.scaleLinear([0, max], [0, WIDTH - LABEL_W - VALUE_W]);
    const y = (/** @type {number} */ i) => i * ROW + 2;
    const ms = duration(500);
    svg.attr("viewBox", `0 0 ${WIDTH} ${height}`).attr("aria-label", summary(title, rows));
    const join = bars
      .selectAll("g.bar")
      .data(rows, (d) => d.shard)
      .join(
        (enter) => enterBar(enter, y),
        (update) => update,
        (exit) => exit.transition().duration(ms).style("opacity", 0).remove(),
      )
      .attr("data-shard", (d) => d.shard);
    join
      .transition()
      .duration(ms)
      .attr("transform", (d, i) => `translate(0,${y(i)})`)
      .style("opacity", 1);
    join
      .select("rect")
      .transition()
      .duration(ms)
      .attr("width", (d) => Math.max(1, x(d.value)));
    join
      .select("text.value")
      .text((d) => num(d.value))
      .transition()
      .duration(ms)
      .attr("x", (d) => LABEL_W + Math.max(1, x(d.value)) + 5);
    const showMean = typeof mean === "number" && rows.length > 1;
    meanLine
      .attr("y1", 0)
      .attr("y2", height)
      .style("display", () => (showMean ? null : "none"))
      .transition()
      .duration(ms)
      .attr("x1", LABEL_W + x(mean || 0))
      .attr("x2", LABEL_W + x(mean || 0));
  }

  return { update, element: svg.node() };
}

/**
 * @param {d3.Selection<d3.EnterElement, BarRow, any, any>} enter
 * @param {(i: number) => number} y
 */
function enterBar(enter, y) {
  const g = enter
    .append("g")
    .attr("class", "bar")
    .attr("transform", (d, i) => `translate(0,${y(i)})`)
    .style("opacity", 0);
  g.append("text")
    .attr("class", "shard-letter")
    .attr("x", 0)
    .attr("y", ROW / 2)
    .attr("dy", "0.35em")
    .text((d) => d.shard);
  g.append("rect")
    .attr("x", LABEL_W)
    .attr("y", 2)
    .attr("height", ROW - 6)
    .attr("rx", 3)
    .attr("width", 0)
    .attr("fill", (d) => shardColour(d.shard))
    .attr("stroke", (d) => (inkOn(d.shard) === "#ffffff" ? "none" : "#00000033"));
  g.append("text")
    .attr("class", "value")
    .attr("x", LABEL_W + 5)
    .attr("y", ROW / 2)
    .attr("dy", "0.35em");
  return g;
}

/**
 * @param {string} title
 * @param {BarRow[]} rows
 */
function summary(title, rows) {
  const parts = rows.map((d) =>
    fmt(t("%(shard)s %(value)s"), { shard: d.shard, value: num(d.value) }),
  );
  return fmt(t("%(title)s: %(values)s"), { title, values: parts.join(", ") });
}

/**
 * A series of a line chart: its points `[x, y]` (a `y` of null breaks the line), the
 * label written at its last point (so lines never differ by colour alone), and how it
 * is drawn: `className` styles it, `line: false` leaves only its dots, `dots` marks each
 * point, `area` fills under it.
 * @typedef {object} LineSeries
 * @property {string} id
 * @property {string} [label] written at the line's end (omitted: no label)
 * @property {Array<[number, number | null]>} points
 * @property {string} [className]
 * @property {boolean} [line] default true
 * @property {boolean} [dots] default false
 * @property {boolean} [area] default false
 */

/**
 * A labelled vertical or horizontal mark: `{x, label}` or `{y, label}`.
 * @typedef {{x?: number, y?: number, label?: string, className?: string}} ChartMark
 */

/**
 * A small d3 line chart inside `container`: axes with their labels, lines (or dots, or an
 * area) keyed by id, labelled at their ends, and marks; `role="img"` with a spoken summary
 * given by the caller. Used for values over time and for curves against a measure.
 *   const chart = createLineChart(el, {width, height, xLabel, yLabel, xFormat, yFormat});
 *   chart.update({series, xDomain, yDomain, marks, summary});
 * @param {HTMLElement} container
 * @param {{width?: number, height?: number, margin?: {left: number, right: number, top: number, bottom: number},
 *   xLabel?: string, yLabel?: string, xFormat?: (v: number) => string, yFormat?: (v: number) => string,
 *   xTicks?: number, yTicks?: number, className?: string}} [options]
 */
export function createLineChart(container, options = {}) {
  const width = options.width ?? 360;
  const height = options.height ?? 150;
  const m = options.margin ?? { left: 40, right: 70, top: 10, bottom: 30 };
  const xFormat = options.xFormat ?? ((v) => num(v));
  const yFormat = options.yFormat ?? ((v) => num(v));
  const svg = d3
    .select(container)
    .append("svg")
    .attr("class", `line-chart ${options.className ?? ""}`.trim())
    .attr("role", "img")
    .attr("viewBox", `0 0 ${width} ${height}`);
  const x = d3.scaleLinear().range([m.left, width - m.right]);
  const y = d3.scaleLinear().range([height - m.bottom, m.top]);
  const marksG = svg.append("g").attr("class", "chart-marks");
  const xAxis = svg.append("g").attr("class", "chart-axis").attr("transform", `translate(0,${height - m.bottom})`);
  const yAxis = svg.append("g").attr("class", "chart-axis").attr("transform", `translate(${m.left},0)`);
  if (options.xLabel) {
    svg
      .append("text")
      .attr("class", "chart-axis-label")
      .attr("x", (m.left + width - m.right) / 2)
      .attr("y", height - 3)
      .text(options.xLabel);
  }
  if (options.yLabel) {
    svg
      .append("text")
      .attr("class", "chart-axis-label")
      .attr("transform", `translate(10,${(height - m.bottom + m.top) / 2}) rotate(-90)`)
      .text(options.yLabel);
  }
  const seriesG = svg.append("g").attr("class", "chart-series");
  const endsG = svg.append("g").attr("class", "chart-ends");
  let shownDomains = "";

  /**
   * @param {{series: LineSeries[], xDomain: [number, number], yDomain: [number, number],
   *   marks?: ChartMark[], summary?: string}} data
   */
  function update({ series, xDomain, yDomain, marks = [], summary: spoken = "" }) {
    x.domain(xDomain);
    y.domain(yDomain);
    const domains = `${xDomain} ${yDomain}`;
    if (domains !== shownDomains) {
      shownDomains = domains;
      // xTicks 0: no x axis (small multiples show it under the last one only)
      if (options.xTicks !== 0) xAxis.call(d3.axisBottom(x).ticks(options.xTicks ?? 5).tickFormat((v) => xFormat(Number(v))));
      yAxis.call(d3.axisLeft(y).ticks(options.yTicks ?? 4).tickFormat((v) => yFormat(Number(v))));
    }
    const inside = (/** @type {[number, number | null]} */ p) => p[1] !== null && Number.isFinite(p[1]);
    const line = /** @type {d3.Line<any>} */ (d3.line())
      .defined(inside)
      .x((p) => x(p[0]))
      .y((p) => y(/** @type {number} */ (p[1])));
    const area = /** @type {d3.Area<any>} */ (d3.area())
      .defined(inside)
      .x((p) => x(p[0]))
      .y0(y(yDomain[0]))
      .y1((p) => y(/** @type {number} */ (p[1])));
    const groups = seriesG
      .selectAll("g.chart-line")
      .data(series, (s) => s.id)
      .join((enter) => {
        const g = enter.append("g").attr("class", "chart-line");
        g.append("path").attr("class", "chart-area");
        g.append("path").attr("class", "chart-path");
        g.append("g").attr("class", "chart-dots");
        return g;
      })
      .attr("class", (s) => `chart-line ${s.className ?? ""}`.trim())
      .attr("data-series", (s) => s.id);
    groups.select(".chart-area").attr("d", (s) => (s.area ? area(s.points) : null));
    groups.select(".chart-path").attr("d", (s) => (s.line === false ? null : line(s.points)));
    groups
      .select(".chart-dots")
      .selectAll("circle")
      .data((s) => (s.dots ? s.points.filter(inside) : []))
      .join("circle")
      .attr("r", 3)
      .attr("cx", (p) => x(p[0]))
      .attr("cy", (p) => y(/** @type {number} */ (p[1])));
    // each line's label at the right of the chart, at the height of its last point
    const ends = series
      .filter((s) => s.label)
      .map((s) => ({ s, last: [...s.points].reverse().find(inside) }))
      .filter((e) => e.last);
    // end labels kept apart: one under the other when two lines end close together
    const placed = ends.map((e) => ({ ...e, at: y(/** @type {number} */ (e.last?.[1])) })).sort((a, b) => a.at - b.at);
    for (let i = 1; i < placed.length; i += 1) placed[i].at = Math.max(placed[i].at, placed[i - 1].at + 11);
    endsG
      .selectAll("text")
      .data(placed, (e) => e.s.id)
      .join("text")
      .attr("class", (e) => `chart-end ${e.s.className ?? ""}`.trim())
      .attr("x", width - m.right + 5)
      .attr("y", (e) => e.at + 4)
      .text((e) => e.s.label ?? "");
    const markG = marksG
      .selectAll("g.chart-mark")
      .data(marks, (d, i) => `${i}`)
      .join((enter) => {
        const g = enter.append("g").attr("class", "chart-mark");
        g.append("line");
        g.append("text");
        return g;
      })
      .attr("class", (d) => `chart-mark ${d.className ?? ""}`.trim());
    // x alone: a vertical line across the chart; y alone: a horizontal one; both: a
    // point, with a line down to the x axis and its label beside it
    /** @typedef {(d: ChartMark) => number} Place */
    /** @type {Place} */
    const x1 = (d) => (d.x === undefined ? m.left : x(d.x));
    /** @type {Place} */
    const x2 = (d) => (d.x === undefined ? width - m.right : x(d.x));
    /** @type {Place} */
    const y1 = (d) => (d.y === undefined || d.x !== undefined ? height - m.bottom : y(d.y));
    /** @type {Place} */
    const y2 = (d) => (d.y === undefined ? m.top : y(d.y));
    markG.select("line").attr("x1", x1).attr("x2", x2).attr("y1", y1).attr("y2", y2);
    markG
      .select("text")
      .attr("x", (d) => (d.x === undefined ? width - m.right + 4 : x(d.x) + 4))
      .attr("y", (d) => (d.y === undefined ? m.top + 9 : d.x === undefined ? y(d.y) + 4 : y(d.y) - 4))
      .text((d) => d.label ?? "");
    svg.attr("aria-label", spoken);
  }

  return { update, element: svg.node(), x, y };
}
