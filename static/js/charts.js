/**
 * Small d3 bar charts: one bar per shard, keyed by shard, animated, values written out,
 * and summarised in words for screen readers (role=img with an aria-label).
 */

import d3 from "d3";
import { fmt, num, t } from "./i18n.js";
import { duration } from "./motion.js";
import { inkOn, shardColour } from "./palette.js";

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
    const y = (i) => i * ROW + 2;
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

function summary(title, rows) {
  const parts = rows.map((d) =>
    fmt(t("%(shard)s %(value)s"), { shard: d.shard, value: num(d.value) }),
  );
  return fmt(t("%(title)s: %(values)s"), { title, values: parts.join(", ") });
}
