/**
 * The numbers under one scheme card: how much the last change moved (big, for the back of
 * the room), how even the load is, keys per shard as bars, who sent and received rows, and
 * where requests go when a key is hot.
 */

import d3 from "d3";
import { createBarChart } from "../../charts.js";
import { decimal, fmt, num, percent, t } from "../../i18n.js";
import { duration } from "../../motion.js";
import { createFill } from "./fill.js";

/** @import { HotKey, SchemeNumbers } from "./types.js" */

/**
 * What the card's numbers need besides its scheme's: the keys in all, the hot key, the
 * shard count.
 * @typedef {{ total: number, hotKey: HotKey | null, shardCount: number }} CardContext
 */

/**
 * The big number's element, with the fraction it shows.
 * @typedef {HTMLElement & { __fraction?: number }} CountingNode
 */

const COUNT_UP_MS = 1400;

/**
 * Build the metrics block inside `container` (an element); returns {update}. The share
 * that moved goes in `container`; the rest in `details` when given (else `container`).
 * @param {HTMLElement} container
 * @param {HTMLElement | null} [details]
 */
export function createCardMetrics(container, details = null) {
  container.innerHTML = "";
  const moved = element("div", "moved");
  const movedBig = element("span", "moved-big");
  // the number itself, in a box of its own (see countUp)
  const movedNumber = element("span");
  movedBig.append(movedNumber);
  const movedLabel = element("span", "moved-label");
  const meter = element("span", "moved-meter");
  const meterFill = element("span", "moved-meter-fill");
  const fill = createFill(meterFill);
  meter.append(meterFill);
  meter.setAttribute("aria-hidden", "true");
  moved.append(movedBig, movedLabel, meter);
  const spread = element("dl", "spread");
  const chartBox = element("div", "chart");
  const chartTitle = element("p", "chart-title");
  chartTitle.textContent = t("Keys per shard (all keys; the line is the mean)");
  const chart = createBarChart(chartBox, { title: t("Keys per shard") });
  const flow = element("p", "flow");
  const requests = element("p", "requests");
  container.append(moved);
  (details ?? container).append(spread, chartTitle, chartBox, flow, requests);

  /**
   * @param {SchemeNumbers} numbers
   * @param {CardContext} context
   */
  function update(numbers, { total, hotKey, shardCount }) {
    showMoved(numbers, total);
    spread.replaceChildren(
      pair(t("max / mean"), decimal(numbers.max_over_mean, 2)),
      pair(t("std dev"), decimal(numbers.stddev, 1)),
      pair(t("mean"), decimal(numbers.mean, 0)),
    );
    chart.update(numbers.per_shard, { mean: numbers.mean });
    const text = flowText(numbers);
    if (flow.textContent !== text) flow.textContent = text;
    showRequests(numbers, hotKey, shardCount);
  }

  /**
   * @param {SchemeNumbers} numbers
   * @param {number} total
   */
  function showMoved(numbers, total) {
    countUp(movedNumber, numbers.moved_fraction);
    // "0 of 1,000" too, not a shorter sentence: the label keeps its length (and its number
    // of lines) from the first change on, so the drawing above it keeps its size
    const label = total
      ? fmt(t("of the keys moved in the last change: %(moved)s of %(total)s"), {
          moved: num(numbers.moved),
          total: num(total),
        })
      : t("of the keys moved in the last change");
    // (a new text here lays the card out again, its drawing included)
    if (movedLabel.textContent !== label) movedLabel.textContent = label;
    fill.to(numbers.moved_fraction);
    moved.classList.toggle("is-storm", numbers.moved_fraction >= 0.5);
  }

  /**
   * @param {SchemeNumbers} numbers
   * @param {HotKey | null} hotKey
   * @param {number} shardCount
   */
  function showRequests(numbers, hotKey, shardCount) {
    requests.hidden = !hotKey;
    if (!hotKey) return;
    const [busiest, share] = Object.entries(numbers.request_share).sort(
      (a, b) => b[1] - a[1],
    )[0] ?? ["?", 0];
    requests.textContent = fmt(
      t(
        "Hot key %(key)s: shard %(shard)s serves %(share)s of requests (an even share is %(fair)s).",
      ),
      {
        key: hotKey.key,
        shard: busiest,
        share: percent(share / 100),
        fair: percent(1 / shardCount),
      },
    );
  }

  return { update };
}

/**
 * Count the big percentage up (or down) to its new value while the keys fly.
 *
 * The number sits in a box of its own, exactly as wide as its text and one line high
 * (in em and lh, so it follows the font size), positioned and clipped (with room to
 * spare): the browser lays a new text out inside that box alone. A text that changed
 * the width of its box would lay the whole card out again, and with it the card's
 * drawing (its SVGs, in their size container), in every frame of the count. While it
 * counts, the box is as wide as the wider of the two ends; when it has arrived, as wide
 * as the number it shows. (The label sits under the number, not beside it: its width,
 * and so its lines and the room left to the drawing, never depend on the number's.)
 * @param {CountingNode} node
 * @param {number} fraction
 */
function countUp(node, fraction) {
  const from = node.__fraction ?? 0;
  node.__fraction = fraction;
  const ms = from === fraction ? 0 : duration(COUNT_UP_MS);
  const last = percent(fraction);
  holdSize(node, ms > 0 ? [percent(from), last] : [last]);
  d3.select(node)
    .interrupt("count")
    .transition("count")
    .duration(ms)
    .ease(d3.easeCubicOut)
    .tween("text", () => {
      const value = d3.interpolateNumber(from, fraction);
      return (u) => {
        const text = percent(value(u));
        if (node.textContent !== text) node.textContent = text;
      };
    })
    .on("end", () => holdSize(node, [last]));
}

/** @type {CanvasRenderingContext2D | null} */
let measure = null;

/**
 * Size the box `node` for the widest of `texts` (in its own font).
 * @param {HTMLElement} node
 * @param {string[]} texts
 */
function holdSize(node, texts) {
  const style = getComputedStyle(node);
  const size = parseFloat(style.fontSize) || 16;
  measure ??= /** @type {CanvasRenderingContext2D} */ (
    document.createElement("canvas").getContext("2d")
  );
  // (the `font` shorthand reads empty when a longhand has no shorthand form)
  measure.font = `${style.fontStyle} ${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
  measure.letterSpacing = style.letterSpacing;
  const widest = Math.max(...texts.map((text) => /** @type {CanvasRenderingContext2D} */ (measure).measureText(text).width));
  const width = `${(widest / size).toFixed(4)}em`;
  if (node.style.width === width) return;
  Object.assign(node.style, {
    display: "inline-block",
    position: "relative",
    overflow: "clip",
    overflowClipMargin: "0.5em",
    width,
    height: "1lh",
  });
}

/** @param {SchemeNumbers} numbers */
function flowText(numbers) {
  const sent = entries(numbers.sent);
  const received = entries(numbers.received);
  if (!sent && !received) return t("No rows sent or received yet.");
  return fmt(t("Rows sent: %(sent)s. Received: %(received)s."), {
    sent: sent || t("none"),
    received: received || t("none"),
  });
}

/**
 * "A 12 · B 3": the shards with a number above 0.
 * @param {Record<string, number>} [record]
 */
function entries(record = {}) {
  return Object.entries(record)
    .filter(([, n]) => n > 0)
    .map(([shard, n]) => `${shard} ${num(n)}`)
    .join(" · ");
}

/**
 * @param {string} term
 * @param {string} value
 */
function pair(term, value) {
  const wrapper = element("div", "pair");
  const dt = element("dt");
  dt.textContent = term;
  const dd = element("dd");
  dd.textContent = value;
  wrapper.append(dt, dd);
  return wrapper;
}

/**
 * @param {string} tag
 * @param {string} [className]
 */
function element(tag, className) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  return node;
}
