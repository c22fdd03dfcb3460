/**
 * The circle of one scheme card: the 2^32 hash space (or Redis's 16,384 slots) as a band
 * coloured by owning shard, token or partition ticks, and every sample key as a dot at its
 * hash. A dot's position never changes with the table; only its colour does.
 */

import d3 from "d3";
import { fmt, num, t } from "../../i18n.js";
import { duration } from "../../motion.js";
import { shardColour } from "../../palette.js";
import {
  BAND_INNER,
  BAND_OUTER,
  CENTRE,
  DOT_RADIUS,
  LETTER_RADIUS,
  TICK_OUTER,
  assignLanes,
  bandPath,
  polar,
} from "./geometry.js";
import { arcsOf, centreLines, fractionOf, isRedis, ticksOf } from "./schemes.js";
import { changedGoals } from "./timeline.js";

const MIN_LETTER_SPAN = 0.045;
const PULSE_MS = 650;

/** Draw the ring of `scheme`: the table into the d3 group `layer`, key dots into `dots`. */
export function createRing(layer, dots, scheme) {
  layer.append("path").attr("class", "band-base").attr("d", bandPath(0, 1));
  const arcs = layer.append("g").attr("class", "band-arcs");
  const ticks = layer.append("g").attr("class", "ticks");
  const letters = layer.append("g").attr("class", "arc-letters").attr("aria-hidden", "true");
  const centre = layer.append("g").attr("class", "ring-centre").attr("aria-hidden", "true");
  const origin = drawOrigin(layer);
  let lanesFor = null;

  function drawTable(snapshot, delayMs) {
    const ms = duration(500);
    const delay = duration(delayMs);
    const data = arcsOf(scheme, snapshot);
    drawBand(data, delay, ms);
    drawTicks(snapshot, delay, ms);
    drawLetters(data, delay, ms);
    drawCentre(snapshot);
    origin.text(originLabel(scheme, snapshot));
  }

  /** One path per shard (all its arcs), switched when the keys start to move. */
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
        (update) =>
          update.call((sel) =>
            sel
              .transition("table")
              .delay(delay)
              .duration(0)
              .attr("d", (d) => d.d),
          ),
        (exit) => exit.transition("table").delay(delay).duration(ms).style("opacity", 0).remove(),
      );
  }

  function drawTicks(snapshot, delay, ms) {
    ticks
      .selectAll("line")
      .data(ticksOf(scheme, snapshot), (d) => d.id)
      .join(
        (enter) =>
          enter
            .append("line")
            .each(function place(d) {
              const inner = polar(d.fraction, d.shard ? BAND_INNER - 2 : BAND_INNER);
              const outer = polar(d.fraction, d.shard ? TICK_OUTER : BAND_OUTER);
              d3.select(this)
                .attr("x1", inner.x)
                .attr("y1", inner.y)
                .attr("x2", outer.x)
                .attr("y2", outer.y);
            })
            .attr("class", (d) => (d.shard ? "token" : "boundary"))
            .style("opacity", 0),
        (update) => update,
        (exit) => exit.transition("table").delay(delay).duration(ms).style("opacity", 0).remove(),
      )
      .transition("table")
      .delay(delay)
      .duration(ms)
      .style("opacity", 1);
  }

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

  function drawCentre(snapshot) {
    const [big, small] = centreLines(scheme, snapshot);
    centre
      .selectAll("text")
      .data([big, small])
      .join("text")
      .attr("class", (d, i) => (i === 0 ? "centre-big" : "centre-small"))
      .attr("x", CENTRE.x)
      .attr("y", (d, i) => CENTRE.y + (i === 0 ? -4 : 18))
      .text((d) => d);
  }

  /** Place the key dots; keys in `departures` (id → delay ms) pulse and take their new colour. */
  function drawDots(snapshot, departures = new Map(), { fresh = false, isChange = false } = {}) {
    const items = snapshot.sample.map((key) => ({
      id: key.id,
      key: key.key,
      shard: key.where[scheme],
      fraction: fractionOf(scheme, key, snapshot),
    }));
    if (fresh || !lanesFor) lanesFor = assignLanes(items);
    const lanes = lanesFor;
    for (const d of items) d.at = polar(d.fraction, lanes.get(d.id) ?? BAND_INNER - 8);
    const sel = dots
      .selectAll("circle")
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
        (exit) => exit.remove(),
      );
    sel
      .select("title")
      .text((d) => fmt(t("%(key)s on shard %(shard)s"), { key: d.key, shard: d.shard }));
    const changed = changedGoals(sel, (d) => `${d.shard}@${d.at.x},${d.at.y}`);
    changed
      .filter((d) => !departures.has(d.id))
      .interrupt("place")
      .transition("place")
      .duration(duration(700))
      .attr("cx", (d) => d.at.x)
      .attr("cy", (d) => d.at.y)
      .attr("r", DOT_RADIUS)
      .attr("fill", (d) => shardColour(d.shard));
    // Keys that moved in the last change stay outlined until the next change.
    if (isChange || fresh) sel.filter((d) => !departures.has(d.id)).classed("moved", false);
    pulse(
      changed.filter((d) => departures.has(d.id)),
      departures,
    );
  }

  return { drawTable, drawDots, clearLanes: () => (lanesFor = null) };
}

function pulse(sel, departures) {
  const half = duration(PULSE_MS / 2);
  sel
    .raise()
    .interrupt("place")
    .transition("place")
    .delay((d) => duration(departures.get(d.id)))
    .duration(half)
    .attr("r", DOT_RADIUS * 2.4)
    .attr("cx", (d) => d.at.x)
    .attr("cy", (d) => d.at.y)
    .attr("fill", (d) => shardColour(d.shard))
    .attr("class", "moved")
    .transition()
    .duration(half)
    .attr("r", DOT_RADIUS);
}

function drawOrigin(layer) {
  const top = polar(0, BAND_OUTER + 4);
  const group = layer.append("g").attr("class", "origin").attr("aria-hidden", "true");
  group
    .append("line")
    .attr("x1", top.x)
    .attr("y1", CENTRE.y - BAND_INNER + 2)
    .attr("x2", top.x)
    .attr("y2", top.y - 4);
  return group
    .append("text")
    .attr("x", top.x + 6)
    .attr("y", top.y - 6);
}

/** Where the circle starts and ends: the hash space, or Redis Cluster's slots. */
function originLabel(scheme, snapshot) {
  if (scheme === "partitions" && isRedis(snapshot)) return t("slot 0 ↻ 16,383");
  return fmt(t("hash 0 ↻ %(max)s"), { max: num(2 ** 32 - 1) });
}
