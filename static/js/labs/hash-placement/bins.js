/**
 * The row of shard bins under a card's circle. Every sample key also sits in its shard's
 * bin; when a change moves it, the dot flies from its old bin to its new one while every
 * other dot stays exactly where it is.
 */

import d3 from "d3";
import { fmt, num, t } from "../../i18n.js";
import { reducedMotion } from "../../motion.js";
import { inkOn, shardColour } from "../../palette.js";
import { DOT_RADIUS } from "./geometry.js";
import { LABEL_H } from "./slots.js";
import { colourAt, remember, rememberMoved, rgbOf } from "./painter.js";

/** @import { Selection } from "d3" */
/** @import { Painter } from "./painter.js" */
/** @import { Box, Drawn, DotNode, FlyingDot, Group, Plan, PlannedBin, PlannedDot, Point, Segment } from "./types.js" */
import { changedGoals, endOf, fadeAt, moves, positionAt, run, segment } from "./timeline.js";

/**
 * A plan for the bins (plan.js) with what bins.js draws besides: whether it is a change
 * (keys that did not move lose their outline), the keys per shard, the hot key's shard.
 * @typedef {Plan & { isChange: boolean, counts: Record<string, number>, hotShard: string | null }} BinsPlan
 */

/** @typedef {PlannedBin & { segments: Segment[] }} SegmentedBin a bin with its corner's motion */

/**
 * A bin's group, with where its corner is drawn now.
 * @typedef {SVGGElement & { __pos?: Point }} BinNode
 */

/**
 * A bin's key count, with the number it shows.
 * @typedef {SVGTextElement & { __shown?: number }} CountNode
 */

/**
 * The bin dots' circles and the bins' groups in their layers (nothing else is there).
 * @typedef {Selection<DotNode, PlannedDot, SVGGElement, unknown>} DotSelection
 * @typedef {Selection<BinNode, SegmentedBin, SVGGElement, unknown>} BinSelection
 */

// a bin's badge (its shard's letter) and the baseline of its count under it, in units: the
// letter and the count are 19 units (hash-placement.css)
const BADGE_W = 30;
const BADGE_H = 25;
const COUNT_Y = BADGE_H + 16;

/** The outline of a bin dot, for the painter. */
export const BIN_DOT_RIM = 0.6;

const FLAME =
  "M6 0C7 4 12 6 12 10.5C12 13.6 9.3 16 6 16S0 13.6 0 10.5C0 7.6 2.4 6 3 3.4C4 5 4.4 6 5 6.6C5.6 4.6 6 2.2 6 0Z";
const compact = new Intl.NumberFormat(document.documentElement.lang || "en", {
  notation: "compact",
  maximumFractionDigits: 1,
});

/**
 * A bin's key count, short enough for a narrow bin: 2,536 or 250K.
 * @param {number} value
 */
function shortCount(value) {
  return value >= 100000 ? compact.format(value) : num(value);
}

/**
 * Bins and bin dots of one card, drawn into the d3 groups `binLayer` and `dotLayer`; dots
 * in motion are painted by `painter` (painter.js).
 * @param {Group} binLayer
 * @param {Group} dotLayer
 * @param {Painter} painter
 */
export function createBins(binLayer, dotLayer, painter) {
  /**
   * Where each key dot and each bin is drawn right now (mid-animation too).
   * @returns {Drawn}
   */
  function current() {
    /** @type {Drawn["dots"]} */
    const dots = new Map();
    /** @type {DotSelection} */ (dotLayer.selectAll("circle")).each(function read(d) {
      if (this.__pos) dots.set(d.id, this.__pos);
    });
    /** @type {Drawn["bins"]} */
    const bins = new Map();
    /** @type {BinSelection} */ (binLayer.selectAll("g.bin")).each(function read(d) {
      if (this.__pos && !d.leaving) bins.set(d.shard, { ...this.__pos, to: d.to });
    });
    return { dots, bins };
  }

  /**
   * Animate to a new arrangement. `plan` holds: bins [{shard, from, mid, to, entering,
   * leaving}], dots [{id, key, shard, flies, departsAt, landsAt, segments}], counts
   * {shard: n}, hotShard, and the phase times (see plan.js).
   * @param {BinsPlan} plan
   */
  function animate(plan) {
    drawBinGroups(plan);
    drawDots(plan);
  }

  /** @param {BinsPlan} plan */
  function drawBinGroups(plan) {
    const { times } = plan;
    for (const bin of plan.bins) {
      bin.segments = [
        segment(corner(bin.from), corner(bin.mid), 0, times.enterMs),
        segment(corner(bin.mid), corner(bin.to), times.leaveStart, times.total),
      ];
    }
    const groups = /** @type {BinSelection} */ (binLayer.selectAll("g.bin"))
      .data(/** @type {SegmentedBin[]} */ (plan.bins), (d) => d.shard) // (each with its segments, just above)
      .join(
        enterBin,
        (update) => update,
        (exit) => exit.remove(),
      )
      .classed("is-hot", (d) => d.shard === plan.hotShard);
    groups
      .select("path.flame")
      .style("display", (d) => (d.shard === plan.hotShard ? null : "none"));
    const changed = changedGoals(groups, (d) => {
      const end = endOf(d.segments);
      return `${end.x},${end.y},${d.mid.h},${d.to.h},${d.leaving}`;
    });
    run(changed, times.total, "bin-move");
    changed
      .filter((d) => d.entering)
      .style("opacity", 0)
      .transition("bin-fade")
      .duration(times.enterMs)
      .style("opacity", 1);
    changed
      .filter((d) => d.leaving)
      .transition("bin-fade")
      .delay(times.leaveStart)
      .duration(Math.max(0, times.total - times.leaveStart))
      .style("opacity", 0)
      .remove();
    changed
      .select("rect.bin-body")
      .transition("bin-size")
      .duration(times.enterMs)
      .attr("height", (d) => Math.max(0, d.mid.h - LABEL_H))
      .transition()
      .delay(Math.max(0, times.leaveStart - times.enterMs))
      .duration(Math.max(0, times.total - times.leaveStart))
      .attr("height", (d) => Math.max(0, d.to.h - LABEL_H));
    tweenCounts(groups, plan);
  }

  /**
   * The bins' key counts, counted up or down while the keys fly.
   * @param {Selection<BinNode | SVGGElement, SegmentedBin, SVGGElement, unknown>} groups
   * @param {BinsPlan} plan
   */
  function tweenCounts(groups, plan) {
    const { times } = plan;
    groups.attr("aria-label", (d) =>
      fmt(t("Shard %(shard)s: %(count)s keys"), {
        shard: d.shard,
        count: num(plan.counts[d.shard] ?? 0),
      }),
    );
    changedGoals(
      /** @type {Selection<CountNode, SegmentedBin, SVGGElement, unknown>} */ (groups.select("text.bin-count")),
      (d) => String(plan.counts[d.shard] ?? 0),
    )
      .transition("count")
      .delay(times.countStart)
      .duration(Math.max(0, times.countEnd - times.countStart))
      .tween("text", function count(d) {
        // (`this` as `node`: TypeScript takes a function that assigns to `this.…` for a constructor)
        const node = this;
        const end = plan.counts[d.shard] ?? 0;
        const value = d3.interpolateRound(node.__shown ?? end, end);
        return (u) => {
          const shown = value(u);
          // A new text relays the SVG out: write only when the number changes.
          if (shown === node.__shown && node.textContent) return;
          node.__shown = shown;
          node.textContent = shortCount(shown);
        };
      });
  }

  /** @param {BinsPlan} plan */
  function drawDots(plan) {
    const sel = /** @type {DotSelection} */ (dotLayer.selectAll("circle"))
      .data(plan.dots, (d) => d.id)
      .join(
        (enter) =>
          enter
            .append("circle")
            .attr("r", DOT_RADIUS)
            .attr("fill", (d) => shardColour(d.shard)),
        (update) => update,
        (exit) => exit.each(function forget() { painter.stop(this); }).remove(),
      );
    const changed = changedGoals(sel, (d) => {
      const end = endOf(d.segments);
      return `${d.shard}@${end.x},${end.y}`;
    });
    // Keys that moved in the last change stay outlined until the next change. A flying dot
    // is outlined at once on the canvas and its circle takes the class when it lands: the
    // class on hundreds of circles at once would restyle them all in the first frame.
    if (plan.isChange) sel.filter((d) => !d.flies).each(unmark);
    changed.filter((d) => d.flies).each(mark);
    const { total, recolourMs } = plan.times;
    const reduced = reducedMotion();
    const where = reduced ? fadeAt : positionAt;
    const recolourAt = (/** @type {FlyingDot} */ d) => (reduced ? (d.departsAt + d.landsAt) / 2 : d.departsAt);
    changed.each(/** @this {DotNode} */ function move(d) {
      const colour = shardColour(d.shard);
      if (!d.flies && !moves(d.segments)) {
        painter.stop(this);
        rest(this, endOf(d.segments), colour);
        return;
      }
      const to = rgbOf(colour);
      const from = painter.drawn(this).fill;
      painter.animate(this, {
        end: total,
        layer: d.flies ? 2 : 1,
        rim: BIN_DOT_RIM,
        track: true,
        moved: () => this.__moved === true,
        state: (ms) => ({
          ...where(d.segments, ms),
          r: DOT_RADIUS,
          // (a fading key takes its new colour unseen, half-way, when it is transparent)
          fill: d.flies ? colourAt(from, to, ms, recolourAt(d), recolourMs) : to,
        }),
        done: (node) => rest(node, endOf(d.segments), colour),
      });
    });
  }

  return { animate, current };
}

/**
 * Put a dot at rest at `p` in colour `fill`, outlined if it moved in the last change.
 * @param {DotNode} node
 * @param {Point} p
 * @param {string} fill
 */
function rest(node, p, fill) {
  node.__pos = { x: p.x, y: p.y };
  // A position, not a transform: a transform on each of 240 dots would give each its own
  // paint property node, and the browser re-walks them all whenever anything repaints.
  node.setAttribute("cx", String(p.x));
  node.setAttribute("cy", String(p.y));
  node.setAttribute("fill", fill);
  if (node.__moved) node.classList.add("moved");
  remember(node, { ...node.__pos, r: DOT_RADIUS, colour: fill, moved: node.__moved === true });
}

/** @this {DotNode} */
function mark() {
  this.__moved = true;
}

/** @this {DotNode} */
function unmark() {
  this.__moved = false;
  if (this.classList.contains("moved")) this.classList.remove("moved");
  rememberMoved(this, false);
}

/** @param {Box} box */
function corner(box) {
  return { x: box.x, y: box.y };
}

/**
 * A new bin: its body, its badge and letter, its count, and the hot key's flame.
 * @param {Selection<import("d3").EnterElement, SegmentedBin, SVGGElement, unknown>} enter
 */
function enterBin(enter) {
  const g = enter
    .append("g")
    .attr("class", "bin")
    .attr("role", "img")
    .attr("data-shard", (d) => d.shard);
  g.each(/** @this {BinNode} */ function start(d) {
    this.__pos = corner(d.from);
  }).attr("transform", (d) => `translate(${d.from.x},${d.from.y})`);
  g.append("rect")
    .attr("class", "bin-body")
    .attr("y", LABEL_H)
    .attr("width", (d) => d.from.w)
    .attr("height", (d) => Math.max(0, d.from.h - LABEL_H))
    .attr("rx", 4)
    .attr("fill", (d) => shardColour(d.shard))
    .attr("stroke", (d) => shardColour(d.shard));
  g.append("rect")
    .attr("class", "bin-badge")
    .attr("x", (d) => d.from.w / 2 - BADGE_W / 2)
    .attr("y", 0)
    .attr("width", BADGE_W)
    .attr("height", BADGE_H)
    .attr("rx", 4)
    .attr("fill", (d) => shardColour(d.shard));
  g.append("text")
    .attr("class", "bin-letter")
    .attr("x", (d) => d.from.w / 2)
    .attr("y", BADGE_H / 2)
    .attr("dy", "0.35em")
    .attr("fill", (d) => inkOn(d.shard))
    .text((d) => d.shard);
  g.append("text")
    .attr("class", "bin-count")
    .attr("x", (d) => d.from.w / 2)
    .attr("y", COUNT_Y);
  g.append("path")
    .attr("class", "flame")
    .attr("d", FLAME)
    .attr("transform", (d) => `translate(${d.from.w / 2 + BADGE_W / 2 + 2},0) scale(1.4)`)
    .style("display", "none")
    .append("title")
    .text(t("Hot key"));
  return g;
}
