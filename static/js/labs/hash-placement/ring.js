/**
 * The circle of one scheme card: the 2^32 hash space (or Redis's 16,384 slots) as a band
 * coloured by owning shard, token or partition ticks, and every sample key as a dot at its
 * hash. A dot's position never changes with the table; only its colour does.
 */

import d3 from "d3";
import { fmt, num, t } from "../../i18n.js";
import { FADE_MS, duration, reducedMotion } from "../../motion.js";
import { shardColour } from "../../palette.js";
import {
  BAND_INNER,
  BAND_OUTER,
  CENTRE,
  DOT_RADIUS,
  LETTER_RADIUS,
  ORIGIN_LABEL_Y,
  assignLanes,
  bandPath,
  polar,
} from "./geometry.js";
import { arcsOf, centreLines, fractionOf, isRedis } from "./schemes.js";
import { createTicks } from "./ticks.js";
import { mix, remember, rememberMoved, rgbOf } from "./painter.js";
import { changedGoals } from "./timeline.js";

/** @import { Painter } from "./painter.js" */

// the widest the circle's second line in the middle may be, in units: the chord of the
// dots' innermost lane (LANE_OUTER less five steps) at its baseline
const CENTRE_TEXT_MAX = 124;
/** @import { Arc } from "./schemes.js" */
/** @import { DotNode, DotState, Group, HashSnapshot, Motion, Point, Scheme } from "./types.js" */

/**
 * A key dot on the circle: its key, its shard, where on the circle and where drawn.
 * @typedef {{ id: number, key: string, shard: string, fraction: number, at: Point }} RingDot
 */

/** @typedef {Omit<Motion, "layer" | "rim">} DotMotion a motion the ring's layer and rim complete */

const MIN_LETTER_SPAN = 0.045;
const PULSE_MS = 650;
const PLACE_MS = 700;
/** The outline of a ring dot, for the painter. */
export const RING_DOT_RIM = 0.7;

/**
 * Draw the ring of `scheme`: the table into the d3 group `layer`, key dots into `dots`
 * (dots in motion are painted by `painter`, painter.js).
 * @param {Group} layer
 * @param {Group} dots
 * @param {Scheme} scheme
 * @param {Painter} painter
 */
export function createRing(layer, dots, scheme, painter) {
  layer.append("path").attr("class", "band-base").attr("d", bandPath(0, 1));
  const arcs = layer.append("g").attr("class", "band-arcs");
  const ticks = createTicks(layer, scheme);
  const letters = layer.append("g").attr("class", "arc-letters").attr("aria-hidden", "true");
  const centre = layer.append("g").attr("class", "ring-centre").attr("aria-hidden", "true");
  const origin = drawOrigin(layer);
  /** @type {Map<number, number> | null} each key's lane radius, kept while the keys stay */
  let lanesFor = null;

  /**
   * The band, ticks, letters and centre of `snapshot`, switched after `delayMs`.
   * @param {HashSnapshot} snapshot
   * @param {number} delayMs
   */
  function drawTable(snapshot, delayMs) {
    const ms = duration(500);
    const delay = duration(delayMs);
    const data = arcsOf(scheme, snapshot);
    drawBand(data, delay, ms);
    ticks.draw(snapshot, delay, ms);
    drawLetters(data, delay, ms);
    drawCentre(snapshot);
    origin.text(originLabel(scheme, snapshot));
  }

  /**
   * One path per shard (all its arcs), switched when the keys start to move.
   * @param {Arc[]} data
   * @param {number} delay
   * @param {number} ms
   */
  function drawBand(data, delay, ms) {
    const byShard = d3
      .groups(data, (d) => d.shard)
      .map(([shard, arcsOfShard]) => ({
        shard,
        d: arcsOfShard.map((a) => bandPath(a.start, a.end)).join(""),
      }));
    arcs
      .selectAll("path")
      .data(byShard, (d) => d.shard)
      .join(
        (enter) =>
          enter
            .append("path")
            .attr("fill", (d) => shardColour(d.shard))
            .attr("d", (d) => d.d)
            .style("opacity", 0)
            .call((sel) =>
              sel.append("title").text((d) => fmt(t("Shard %(shard)s"), { shard: d.shard })),
            )
            .call((sel) => sel.transition("table").delay(delay).duration(ms).style("opacity", 1)),
        // Opacity 1 as well: this transition replaces a fade-in (or fade-out) still
        // running, which would otherwise leave the arc half transparent for good.
        (update) =>
          update.call((sel) =>
            sel
              .transition("table")
              .delay(delay)
              .duration(0)
              .attr("d", (d) => d.d)
              .style("opacity", 1),
          ),
        (exit) => exit.transition("table").delay(delay).duration(ms).style("opacity", 0).remove(),
      );
  }

  /**
   * Each shard's letter on its arcs wide enough to hold one.
   * @param {Arc[]} data
   * @param {number} delay
   * @param {number} ms
   */
  function drawLetters(data, delay, ms) {
    const big = data.filter((d) => d.end - d.start >= MIN_LETTER_SPAN);
    letters
      .selectAll("text")
      .data(big, (d) => d.id)
      .join(
        (enter) =>
          enter
            .append("text")
            .attr("class", "arc-letter")
            .attr("dy", "0.35em")
            .each(function place(d) {
              const p = polar((d.start + d.end) / 2, LETTER_RADIUS);
              d3.select(this).attr("x", p.x).attr("y", p.y);
            })
            .text((d) => d.shard)
            .style("opacity", 0),
        (update) => update,
        (exit) => exit.transition("table").delay(delay).duration(ms).style("opacity", 0).remove(),
      )
      .transition("table")
      .delay(delay)
      .duration(ms)
      .style("opacity", 1);
  }

  /** @param {HashSnapshot} snapshot */
  function drawCentre(snapshot) {
    const [big, small] = centreLines(scheme, snapshot);
    const lines = centre
      .selectAll("text")
      .data([big, small])
      .join("text")
      .attr("class", (d, i) => (i === 0 ? "centre-big" : "centre-small"))
      .attr("x", CENTRE.x)
      .attr("y", (d, i) => CENTRE.y + (i === 0 ? -4 : 18))
      .text((d) => d);
    // the second line stays inside the dots' innermost lane: a longer one ("no ranges,
    // no table") is drawn narrower rather than over the dots
    const second = /** @type {SVGTextElement | undefined} */ (lines.nodes()[1]);
    if (!second) return;
    second.removeAttribute("textLength");
    if (second.getComputedTextLength() <= CENTRE_TEXT_MAX) return;
    second.setAttribute("textLength", String(CENTRE_TEXT_MAX));
    second.setAttribute("lengthAdjust", "spacingAndGlyphs");
  }

  /**
   * Place the key dots; keys in `departures` (id → delay ms) pulse and take their new colour.
   * @param {HashSnapshot} snapshot
   * @param {Map<number, number>} [departures]
   * @param {{ fresh?: boolean, isChange?: boolean }} [how]
   */
  function drawDots(snapshot, departures = new Map(), { fresh = false, isChange = false } = {}) {
    // (each gets its `at` just below)
    const items = /** @type {RingDot[]} */ (
      snapshot.sample.map((key) => ({
        id: key.id,
        key: key.key,
        shard: key.where[scheme],
        fraction: fractionOf(scheme, key, snapshot),
      }))
    );
    if (fresh || !lanesFor) lanesFor = assignLanes(items);
    const lanes = lanesFor;
    for (const d of items) d.at = polar(d.fraction, lanes.get(d.id) ?? BAND_INNER - 8);
    // (the group holds the key dots' circles only)
    const sel = /** @type {import("d3").Selection<DotNode, RingDot, SVGGElement, unknown>} */ (
      dots.selectAll("circle")
    )
      .data(items, (d) => d.id)
      .join(
        (enter) =>
          enter
            .append("circle")
            .attr("r", DOT_RADIUS)
            .attr("cx", (d) => d.at.x)
            .attr("cy", (d) => d.at.y)
            .attr("fill", (d) => shardColour(d.shard))
            .call((s) => s.append("title")),
        (update) => update,
        (exit) => exit.each(/** @this {DotNode} */ function forget() { painter.stop(this); }).remove(),
      );
    const changed = changedGoals(sel, (d) => `${d.shard}@${d.at.x},${d.at.y}`);
    changed
      .select("title")
      .text((d) => fmt(t("%(key)s on shard %(shard)s"), { key: d.key, shard: d.shard }));
    // Keys that moved in the last change stay outlined until the next change (a pulsing
    // dot is outlined on the canvas, its circle takes the class when the pulse ends).
    if (isChange || fresh) {
      sel.filter((d) => !departures.has(d.id)).each(/** @this {DotNode} */ function unmark() {
        this.__moved = false;
        if (this.classList.contains("moved")) this.classList.remove("moved");
        rememberMoved(this, false);
      });
    }
    changed.each(/** @this {DotNode} */ function move(d) {
      const motion = departures.has(d.id)
        ? pulse(this, d, duration(/** @type {number} */ (departures.get(d.id))))
        : place(this, d);
      if (motion) painter.animate(this, { ...motion, layer: 0, rim: RING_DOT_RIM });
    });
  }

  /**
   * A key whose place or colour changed without moving shard: glide there (or jump).
   * @param {DotNode} node
   * @param {RingDot} d
   * @returns {DotMotion | null}
   */
  function place(node, d) {
    const from = painter.drawn(node);
    const colour = shardColour(d.shard);
    const to = { ...d.at, r: DOT_RADIUS, fill: rgbOf(colour) };
    const done = (/** @type {DotNode} */ n) => rest(n, to, colour, false);
    if (from.x === to.x && from.y === to.y && from.r === to.r && from.fill === to.fill) {
      painter.stop(node);
      done(node);
      return null;
    }
    const span = duration(PLACE_MS);
    return { end: span, state: (ms) => tween(from, to, d3.easeCubicInOut(ms / span)), done };
  }

  /**
   * A key that moved shard: after `delay`, it swells, takes its new colour and shrinks.
   * @param {DotNode} node
   * @param {RingDot} d
   * @param {number} delay
   * @returns {DotMotion}
   */
  function pulse(node, d, delay) {
    const from = painter.drawn(node);
    const half = duration(PULSE_MS / 2);
    const colour = shardColour(d.shard);
    const big = { ...d.at, r: DOT_RADIUS * 2.4, fill: rgbOf(colour) };
    const to = { ...big, r: DOT_RADIUS };
    const was = node.classList.contains("moved");
    node.__moved = true;
    if (reducedMotion()) {
      // no swelling: the key takes its new colour in a cross-fade, where it is
      const still = { ...d.at, r: DOT_RADIUS, fill: from.fill };
      return {
        end: delay + FADE_MS,
        moved: (ms) => (ms >= delay ? node.__moved === true : was),
        state: (ms) =>
          ms < delay ? from : tween(still, to, Math.min(1, (ms - delay) / FADE_MS)),
        done: (n) => rest(n, to, colour, n.__moved === true),
      };
    }
    return {
      end: delay + 2 * half,
      moved: (ms) => (ms >= delay ? node.__moved === true : was),
      state(ms) {
        if (ms < delay) return from;
        const u = (ms - delay) / half;
        if (u < 1) return tween(from, big, d3.easeCubicInOut(u));
        return tween(big, to, d3.easeCubicInOut(Math.min(1, u - 1)));
      },
      done: (n) => rest(n, to, colour, n.__moved === true),
    };
  }

  return { drawTable, drawDots, clearLanes: () => (lanesFor = null) };
}

/**
 * Put a ring dot at rest.
 * @param {DotNode} node
 * @param {DotState} at
 * @param {string} colour
 * @param {boolean} moved outline it as moved
 */
function rest(node, { x, y, r }, colour, moved) {
  node.setAttribute("cx", String(x));
  node.setAttribute("cy", String(y));
  node.setAttribute("r", String(r));
  node.setAttribute("fill", colour);
  if (moved) node.classList.add("moved");
  remember(node, { x, y, r, colour, moved: node.classList.contains("moved") });
}

/**
 * A dot `e` of the way (0..1) from `a` to `b`.
 * @param {DotState} a
 * @param {DotState} b
 * @param {number} e
 * @returns {DotState}
 */
function tween(a, b, e) {
  return {
    x: a.x + (b.x - a.x) * e,
    y: a.y + (b.y - a.y) * e,
    r: a.r + (b.r - a.r) * e,
    fill: mix(a.fill, b.fill, e),
  };
}

/**
 * The mark at 12 o'clock where the circle starts; returns its label.
 * @param {Group} layer
 */
function drawOrigin(layer) {
  const top = polar(0, BAND_OUTER + 4);
  const group = layer.append("g").attr("class", "origin").attr("aria-hidden", "true");
  group
    .append("line")
    .attr("x1", top.x)
    .attr("y1", CENTRE.y - BAND_INNER + 2)
    .attr("x2", top.x)
    .attr("y2", top.y - 4);
  // centred over the circle, above the shards' letters: at its size it is wider than the
  // room right of the mark
  return group.append("text").attr("x", CENTRE.x).attr("y", ORIGIN_LABEL_Y);
}

/**
 * Where the circle starts and ends: the hash space, or Redis Cluster's slots.
 * @param {Scheme} scheme
 * @param {HashSnapshot} snapshot
 */
function originLabel(scheme, snapshot) {
  if (scheme === "partitions" && isRedis(snapshot)) return t("slot 0 ↻ 16,383");
  return fmt(t("hash 0 ↻ %(max)s"), { max: num(2 ** 32 - 1) });
}
