/**
 * The tail against N: the p50 and p99 of the gathered answer (the slowest of N shards'
 * answers) over N = 1, 2, 4 … 64, on a log scale. The analytic p99 of the maximum of N
 * draws (and its p50) is always drawn, dashed, for the shards as they are now (a slowed
 * shard included); a measurement (many simulated queries) is drawn over it as solid
 * lines with dots, so the two are seen to agree. The current N is marked.
 */

import d3 from "d3";
import { fmt, num, t } from "../../i18n.js";
import { duration } from "../../motion.js";
import { ms } from "./cluster.js";

/** @import { Snapshot } from "../../types.js" */
/** @import { CurvePoint, GatherMetrics, GatherSnapshot, MeasuredPoint } from "./types.js" */

// about the pixels the chart has beside the cluster on a laptop (1280 px), so its 13
// px labels read at their size there and grow with a larger room
const WIDTH = 420;
const HEIGHT = 310;
const M = { left: 50, right: 100, top: 14, bottom: 38 };

/** @param {HTMLElement} parent */
export function createTailChart(parent) {
  const figure = document.createElement("figure");
  figure.className = "sg-tail";
  figure.dataset.spot = "tail";
  const caption = document.createElement("figcaption");
  figure.append(caption);
  parent.append(figure);
  const svg = d3
    .select(figure)
    .append("svg")
    .attr("class", "sg-tail-chart")
    .attr("role", "img")
    .attr("viewBox", `0 0 ${WIDTH} ${HEIGHT}`);
  const x = d3.scaleLog().base(2).domain([1, 64]).range([M.left, WIDTH - M.right]);
  const y = d3.scaleLinear().range([HEIGHT - M.bottom, M.top]);
  const xAxis = svg.append("g").attr("class", "sg-axis").attr("transform", `translate(0,${HEIGHT - M.bottom})`);
  const yAxis = svg.append("g").attr("class", "sg-axis").attr("transform", `translate(${M.left},0)`);
  const xLabel = svg.append("text").attr("class", "sg-axis-label").attr("x", (M.left + WIDTH - M.right) / 2).attr("y", HEIGHT - 4);
  const yLabel = svg.append("text").attr("class", "sg-axis-label").attr("transform", `translate(12,${(HEIGHT - M.bottom + M.top) / 2}) rotate(-90)`);
  const nowLine = svg.append("line").attr("class", "sg-now");
  const paths = {
    a99: svg.append("path").attr("class", "sg-line sg-analytic sg-p99"),
    a50: svg.append("path").attr("class", "sg-line sg-analytic sg-p50"),
    m99: svg.append("path").attr("class", "sg-line sg-measured sg-p99"),
    m50: svg.append("path").attr("class", "sg-line sg-measured sg-p50"),
  };
  const dots = svg.append("g").attr("class", "sg-points");
  const labels = svg.append("g").attr("class", "sg-line-labels");

  /**
   * @param {Snapshot} given the lab's snapshot
   * @param {Record<string, any> | null} metrics
   */
  function update(given, metrics) {
    const snapshot = /** @type {GatherSnapshot} */ (given);
    const { analytic } = /** @type {GatherMetrics} */ (metrics);
    const measured = snapshot.measured?.points?.filter((p) => p.on_ladder) ?? [];
    // a measurement made while other shards were slow: shown faded, and said so
    const slowNow = snapshot.shards.filter((s) => s.slow_factor > 1).map((s) => [s.id, s.slow_factor]);
    const stale = !!snapshot.measured && JSON.stringify(snapshot.measured.slow) !== JSON.stringify(slowNow);
    svg.classed("is-stale", stale);
    caption.textContent = stale
      ? t("The shards have been slowed or sped up since the last measurement (faded): measure the tail again to compare it with the dashed curve.")
      : snapshot.measured
      ? fmt(t("How long the gathered answer takes against the number of shards: %(count)s simulated queries at each N (solid), and what theory gives for the slowest of N answers (dashed)."), {
          count: num(snapshot.measured.count),
        })
      : t("How long the gathered answer takes against the number of shards: what theory gives for the slowest of N answers (dashed). Measure the tail to draw simulated queries over it.");
    const top = d3.max([...analytic.map((p) => p.p99_us), ...measured.map((p) => p.p99_us)]) ?? 1;
    y.domain([0, (top / 1000) * 1.1]).nice();
    xAxis.call(d3.axisBottom(x).tickValues([1, 2, 4, 8, 16, 32, 64]).tickFormat((d) => num(Number(d))));
    yAxis.call(d3.axisLeft(y).ticks(5).tickFormat((d) => num(Number(d))));
    xLabel.text(t("shards asked (N)"));
    yLabel.text(t("gathered answer (ms)"));
    /** @param {"p50_us" | "p99_us"} key */
    const line = (key) =>
      /** @type {d3.Line<CurvePoint>} */ (/** @type {unknown} */ (d3.line()))
        .x((p) => x(p.shards))
        .y((p) => y(p[key] / 1000));
    const ms_ = duration(500);
    paths.a99.transition().duration(ms_).attr("d", line("p99_us")(analytic));
    paths.a50.transition().duration(ms_).attr("d", line("p50_us")(analytic));
    paths.m99.attr("d", measured.length ? line("p99_us")(measured) : null);
    paths.m50.attr("d", measured.length ? line("p50_us")(measured) : null);
    const points = measured.flatMap((p) => [
      { key: `99-${p.shards}`, n: p.shards, v: p.p99_us, kind: "p99" },
      { key: `50-${p.shards}`, n: p.shards, v: p.p50_us, kind: "p50" },
    ]);
    dots
      .selectAll("circle")
      .data(points, (d) => d.key)
      .join("circle")
      .attr("class", (d) => `sg-point sg-${d.kind}`)
      .attr("r", 3.5)
      .attr("cx", (d) => x(d.n))
      .attr("cy", (d) => y(d.v / 1000));
    const last = analytic[analytic.length - 1];
    const ends = [
      { key: "p99", text: fmt(t("p99 %(time)s"), { time: ms(last.p99_us) }), v: last.p99_us },
      { key: "p50", text: fmt(t("p50 %(time)s"), { time: ms(last.p50_us) }), v: last.p50_us },
    ];
    labels
      .selectAll("text")
      .data(ends, (d) => d.key)
      .join("text")
      .attr("class", (d) => `sg-end sg-${d.key}`)
      .attr("x", WIDTH - M.right + 6)
      .attr("y", (d) => y(d.v / 1000) + 4)
      .text((d) => d.text);
    const n = Math.min(64, Math.max(1, snapshot.shard_count));
    nowLine
      .attr("x1", x(n))
      .attr("x2", x(n))
      .attr("y1", M.top)
      .attr("y2", HEIGHT - M.bottom);
    svg.attr("aria-label", spoken(analytic, measured));
  }

  return {
    update,
    destroy() {
      figure.remove();
    },
  };
}

/**
 * The chart in words: the p99 with one shard and with the most, in theory and measured.
 * @param {CurvePoint[]} analytic
 * @param {MeasuredPoint[]} measured
 */
function spoken(analytic, measured) {
  const first = analytic[0];
  const last = analytic[analytic.length - 1];
  let text = fmt(t("In theory the p99 of the gathered answer grows from %(one)s with one shard to %(many)s with %(n)s."), {
    one: ms(first.p99_us),
    many: ms(last.p99_us),
    n: num(last.shards),
  });
  if (measured.length) {
    const a = measured[0];
    const b = measured[measured.length - 1];
    text += ` ${fmt(t("Measured: from %(one)s to %(many)s."), { one: ms(a.p99_us), many: ms(b.p99_us) })}`;
  }
  return text;
}

