/**
 * A history as a time diagram, the way DDIA draws one: a line per client, each operation
 * a bar from its invocation to its reply, and the verdict of the history checker
 * (simulators/engine/history.py) under it, the operations that show a broken promise
 * outlined and numbered, the rest faded.
 *
 * Time runs left to right in the order things happened, not in milliseconds: every
 * invocation and every reply gets its own column. Whether two operations overlap, or one
 * finished before the other began, is all a checker looks at, and a millisecond axis
 * would squeeze a burst into a hair while stretching the pauses between.
 *
 * An operation whose outcome is unknown (`info`: its coordinator crashed, its reply was
 * lost) has no end: its bar runs to the right edge, dashed, with a "?". One that failed
 * is hatched and marked ✗. Nothing is told by colour alone: the outcome is also a mark,
 * the evidence a number. The figure's caption says the verdict in words, and a list
 * (for screen readers) tells every operation in order.
 *
 * Used by the quorum, replication and two-phase-commit labs. `update({ops, verdict})`:
 *   ops      [{id, client, kind: "write" | "read", value, invoke, complete, outcome,
 *             label?, short?}] in any order; `invoke`/`complete` are comparable numbers
 *             (the lab's step counter), `complete` null while pending or unknown; a bar
 *             shows its label, or `short` where that does not fit, cut with "…" to
 *             the bar (the whole label is the bar's title and in the list)
 *   verdict  {ok: true | false | null, witness: [ids], text} (null: nothing judged);
 *             `text` already translated
 */

import d3 from "d3";
import { fmt, t } from "./i18n.js";

const LANE = 34; // pixels between clients' lines
const TOP = 10;
const LEFT = 64; // room for the clients' names
const RIGHT = 18;
const BAR = 18; // a bar's height
const MOST_OPS = 24; // the newest this many operations are drawn (the list tells them all)

let diagrams = 0; // ids in the page: each diagram's hatching is its own

/** @param {any} op */
function labelOf(op) {
  if (op.label) return String(op.label);
  const value = op.value === null || op.value === undefined ? "…" : String(op.value);
  return op.kind === "write" ? fmt(t("W %(value)s"), { value }) : fmt(t("R → %(value)s"), { value });
}

/**
 * `label` as it fits in `room` pixels of `text` (an SVG text element): whole, whole and
 * pressed together by at most 15% (`squeeze`, the length to draw it in), or cut with
 * "…", or nothing when not even a character and "…" fit. A bar is only as wide as its
 * moments' columns: on a phone, an email read or written ran out of its bar, over the
 * next one and out of the diagram. Widths are measured once a string (`widths`); where
 * nothing is laid out (a closed panel) they are estimated and not kept.
 * @param {SVGTextContentElement} text
 * @param {string} label
 * @param {number} room
 * @param {Map<string, number>} widths
 * @returns {{shown: string, squeeze: number | null}}
 */
function fitLabel(text, label, room, widths) {
  const widthOf = (/** @type {string} */ s) => {
    const known = widths.get(s);
    if (known !== undefined) return known;
    text.removeAttribute("textLength");
    text.textContent = s;
    const measured = text.getComputedTextLength();
    if (!measured) return s.length * 6.6;
    widths.set(s, measured);
    return measured;
  };
  const whole = widthOf(label);
  if (whole <= room) return { shown: label, squeeze: null };
  if (whole * 0.85 <= room) return { shown: label, squeeze: room };
  const chars = [...label];
  let lo = 0; // the most characters known to fit before "…"
  let hi = chars.length - 1;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (widthOf(`${chars.slice(0, mid).join("").trimEnd()}…`) <= room) lo = mid;
    else hi = mid - 1;
  }
  return { shown: lo ? `${chars.slice(0, lo).join("").trimEnd()}…` : "", squeeze: null };
}

/** @param {any} op */
function outcomeText(op) {
  if (op.outcome === "fail") return t("failed");
  if (op.outcome === "info") return t("outcome unknown");
  if (op.complete === null || op.complete === undefined) return t("pending");
  return t("ok");
}

/**
 * A time diagram inside `parent`.
 * @param {HTMLElement} parent
 * @param {{title?: string}} [options]
 */
export function createHistoryDiagram(parent, { title } = {}) {
  const uid = `hd${(diagrams += 1)}`;
  const figure = d3.select(parent).append("figure").attr("class", "history-diagram").attr("data-spot", "history-diagram");
  if (title) figure.append("h3").attr("class", "history-diagram-title").text(title);
  const svg = figure.append("svg").attr("class", "history-diagram-svg").attr("role", "img");
  const hatch = svg
    .append("defs")
    .append("pattern")
    .attr("id", `${uid}-hatch`)
    .attr("width", 6)
    .attr("height", 6)
    .attr("patternUnits", "userSpaceOnUse")
    .attr("patternTransform", "rotate(45)");
  hatch.append("rect").attr("width", 6).attr("height", 6).attr("class", "hd-hatch-ground");
  hatch.append("line").attr("x1", 0).attr("y1", 0).attr("x2", 0).attr("y2", 6).attr("class", "hd-hatch-line");
  const lanes = svg.append("g").attr("class", "hd-lanes");
  const bars = svg.append("g").attr("class", "hd-ops");
  const caption = figure.append("figcaption").attr("class", "history-diagram-verdict").attr("aria-live", "polite");
  const list = figure.append("ol").attr("class", "visually-hidden");
  /** @type {any} */
  let last = null;
  /** @type {Map<string, number>} each label's width as drawn, once measured */
  const widths = new Map();
  const observer = new ResizeObserver(() => {
    if (last) draw(last);
  });
  observer.observe(/** @type {Element} */ (figure.node()));

  /** @param {any} data */
  function draw(data) {
    const all = [...(data.ops ?? [])].sort((a, b) => a.invoke - b.invoke || a.id - b.id);
    const ops = all.slice(-MOST_OPS);
    const verdict = data.verdict ?? null;
    const witness = new Map((verdict?.witness ?? []).map((/** @type {number} */ id, /** @type {number} */ i) => [id, i + 1]));
    const broken = verdict?.ok === false;
    // a line per client, in order of their first operation; a client with operations
    // in flight at once (the quorum lab's learner) gets a line for each of them that
    // overlaps, so no bar hides another
    /** @type {Map<number, string>} */
    const laneOf = new Map();
    /** @type {Map<string, number[]>} each client's lines: the end of the last bar on each */
    const ends = new Map();
    /** @type {string[]} */
    const clients = [];
    for (const op of ops) {
      const open = op.complete === null || op.complete === undefined;
      const lines = ends.get(op.client) ?? [];
      ends.set(op.client, lines);
      let k = lines.findIndex((end) => end < op.invoke);
      if (k < 0) {
        k = lines.length;
        lines.push(0);
        clients.push(`${op.client}\u0000${k}`);
      }
      lines[k] = open ? Infinity : op.complete;
      laneOf.set(op.id, `${op.client}\u0000${k}`);
    }
    // each client's lines together
    const order = [...ends.keys()];
    clients.sort((a, b) => {
      const [ca, ka] = a.split("\u0000");
      const [cb, kb] = b.split("\u0000");
      return order.indexOf(ca) - order.indexOf(cb) || Number(ka) - Number(kb);
    });
    // a column for every invocation and every reply, in order
    const moments = [];
    for (const op of ops) {
      moments.push(op.invoke);
      if (op.complete !== null && op.complete !== undefined) moments.push(op.complete);
    }
    const columns = [...new Set(moments)].sort((a, b) => a - b);
    const column = new Map(columns.map((m, i) => [m, i]));
    const width = Math.max(280, /** @type {HTMLElement} */ (figure.node()).clientWidth || 600);
    const height = TOP * 2 + Math.max(1, clients.length) * LANE;
    const step = (width - LEFT - RIGHT) / Math.max(1, columns.length);
    const xOf = (/** @type {number} */ m) => LEFT + (/** @type {number} */ (column.get(m)) + 0.5) * step;
    const yOf = (/** @type {string} */ c) => TOP + clients.indexOf(c) * LANE + LANE / 2;
    svg.attr("viewBox", `0 0 ${width} ${height}`).attr("width", width).attr("height", height);

    const lane = lanes.selectAll("g.hd-lane").data(clients, (/** @type {any} */ c) => c);
    lane.exit().remove();
    const laneIn = lane.enter().append("g").attr("class", "hd-lane");
    laneIn.append("line");
    laneIn.append("text").attr("class", "hd-client");
    laneIn
      .merge(/** @type {any} */ (lane))
      .each(function (c) {
        const y = yOf(c);
        const g = d3.select(this);
        g.select("line").attr("x1", LEFT - 6).attr("x2", width - RIGHT + 8).attr("y1", y).attr("y2", y);
        const [name, k] = c.split("\u0000");
        g.select("text").attr("x", LEFT - 10).attr("y", y).text(k === "0" ? name : "");
      });

    // each bar's span, and the room its label has: the free stretch of its line around
    // the bar's middle, up to the bars before and after it on that line (a label wider
    // than its bar may run over the line, never over another bar or out of the diagram)
    /** @type {Map<number, {x0: number, x1: number, room: number}>} */
    const spans = new Map();
    /** @type {Map<string, {x0: number, x1: number, room: number}[]>} */
    const byLane = new Map();
    for (const op of ops) {
      const open = op.complete === null || op.complete === undefined;
      const x0 = xOf(op.invoke) - step * 0.35;
      const x1 = open ? width - RIGHT : xOf(op.complete) + step * 0.35;
      const span = { x0, x1, room: 0 };
      spans.set(op.id, span);
      const lane = /** @type {string} */ (laneOf.get(op.id));
      byLane.set(lane, [...(byLane.get(lane) ?? []), span]);
    }
    for (const line of byLane.values()) {
      line.sort((a, b) => a.x0 - b.x0);
      line.forEach((span, i) => {
        const before = i ? line[i - 1].x1 : LEFT - 6;
        const after = i < line.length - 1 ? line[i + 1].x0 : width;
        const middle = (span.x0 + span.x1) / 2;
        span.room = Math.max(span.x1 - span.x0 - 2, 2 * Math.min(middle - before, after - middle) - 2);
      });
    }

    const bar = bars.selectAll("g.hd-op").data(ops, (/** @type {any} */ op) => op.id);
    bar.exit().remove();
    const barIn = bar.enter().append("g").attr("class", "hd-op");
    barIn.append("title");
    barIn.append("rect").attr("class", "hd-bar").attr("rx", 4);
    barIn.append("text").attr("class", "hd-label");
    barIn.append("text").attr("class", "hd-mark");
    barIn.append("g").attr("class", "hd-badge").call((g) => {
      g.append("circle").attr("r", 8);
      g.append("text");
    });
    barIn
      .merge(/** @type {any} */ (bar))
      .attr("data-op", (op) => op.id)
      .attr("data-outcome", (op) => op.outcome)
      .classed("is-write", (op) => op.kind === "write")
      .classed("is-read", (op) => op.kind === "read")
      .classed("is-open", (op) => op.complete === null || op.complete === undefined)
      .classed("is-witness", (op) => witness.has(op.id))
      .classed("is-faded", (op) => broken && !witness.has(op.id))
      .each(function (op) {
        const g = d3.select(this);
        const open = op.complete === null || op.complete === undefined;
        const { x0, x1, room } = /** @type {{x0: number, x1: number, room: number}} */ (spans.get(op.id));
        const y = yOf(/** @type {string} */ (laneOf.get(op.id)));
        g.select("rect")
          .attr("x", x0)
          .attr("y", y - BAR / 2)
          .attr("width", Math.max(6, x1 - x0))
          .attr("height", BAR)
          .attr("fill", op.outcome === "fail" ? `url(#${uid}-hatch)` : null);
        // the label inside its bar (the whole of it in the bar's title and the list)
        const label = labelOf(op);
        const text = /** @type {SVGTextContentElement} */ (g.select(".hd-label").attr("x", (x0 + x1) / 2).attr("y", y).node());
        let fitted = fitLabel(text, label, room, widths);
        if (fitted.shown !== label && op.short) fitted = fitLabel(text, String(op.short), room, widths);
        if (text.textContent !== fitted.shown) text.textContent = fitted.shown;
        if (fitted.squeeze) text.setAttribute("textLength", String(fitted.squeeze));
        else text.removeAttribute("textLength");
        text.setAttribute("lengthAdjust", "spacingAndGlyphs");
        g.select("title").text(label);
        const mark = op.outcome === "fail" ? "✗" : op.outcome === "info" ? "?" : open ? "…" : "";
        g.select(".hd-mark")
          .attr("x", x1 - 2)
          .attr("y", y - BAR / 2 - 3)
          .text(mark);
        const n = witness.get(op.id);
        g.select(".hd-badge")
          .attr("display", n ? null : "none")
          .attr("transform", `translate(${x0},${y - BAR / 2})`)
          .select("text")
          .text(n ?? "");
      });

    if (!verdict) caption.text("");
    else caption.text(verdict.text ?? "");
    caption.attr("data-ok", verdict ? String(verdict.ok) : null);
    svg.attr(
      "aria-label",
      fmt(t("Time diagram of %(count)s operations by %(clients)s clients"), { count: ops.length, clients: ends.size }),
    );
    const items = list.selectAll("li").data(all, (/** @type {any} */ op) => op.id);
    items.exit().remove();
    items
      .enter()
      .append("li")
      .merge(/** @type {any} */ (items))
      .text((op) => {
        const said = fmt(t("%(client)s: %(operation)s, %(outcome)s"), { client: op.client, operation: labelOf(op), outcome: outcomeText(op) });
        const n = witness.get(op.id);
        return n ? fmt(t("%(said)s (evidence %(n)s)"), { said, n }) : said;
      });
  }

  return {
    /** @param {{ops: any[], verdict: any}} data */
    update(data) {
      last = data;
      draw(data);
    },
    destroy() {
      observer.disconnect();
      figure.remove();
    },
  };
}
