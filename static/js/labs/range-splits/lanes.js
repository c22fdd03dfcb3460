/**
 * One range table drawn as lanes: a row per shard, the key line across. Each slice is a
 * bar at its place in key order (as wide as its share of the keys, never thinner than a
 * hair) in the lane of the shard that holds it. A frame is drawn in two moments, as the
 * lab does it: first the splits (every slice in the lane it was in before the frame's
 * moves, the new boundaries flashing), then the moves (bars slide to their new lanes).
 * A slice written in the current second is outlined in ink (the hot slices), the one that
 * took the latest write more thickly. A range query is a band over the slices it read.
 */

import d3 from "d3";
import { fmt, num, t } from "../../i18n.js";
import { duration } from "../../motion.js";
import { inkOn, shardColour } from "../../palette.js";
import { fitToRoom } from "../../stage-fit.js";

/** @import { LabEvent } from "../../types.js" */
/** @import { RangeQuery, RangeTable, SliceRow } from "./types.js" */

// the lanes' width in view box units: about the width a panel has on a laptop (two
// panels side by side in a 1280 px window), so a unit is about a CSS pixel there and the
// text below reads at its own size; a larger room scales it up (fitToRoom)
const WIDTH = 400;
const LANE = 34;
const GAP = 8;
const LEFT = 20;
// the key line's text and the slices' ids are `--rs-tick` units (range-splits.css: 12,
// and 16 on a phone, whose panels draw a unit at about 0.7 px); the key line is as tall
// as its text and 4 more, and a character of its (monospace) text 0.62 of its size
const TICK_EM = 0.62;

/**
 * The size of the key line's text, in view box units, as the stylesheet sets it.
 * @param {Element} svg
 */
function tickSize(svg) {
  return parseFloat(getComputedStyle(svg).getPropertyValue("--rs-tick")) || 12;
}
const SPLIT_MS = 450;
const MOVE_MS = 650;

/**
 * @param {HTMLElement} parent
 * @param {{policy: string, title: string}} options
 */
export function createLanes(parent, { policy, title }) {
  const panel = document.createElement("section");
  panel.className = "rs-panel";
  panel.dataset.policy = policy;
  const head = document.createElement("h2");
  head.className = "rs-panel-title";
  head.textContent = title;
  const note = document.createElement("p");
  note.className = "rs-panel-note";
  const box = document.createElement("div");
  box.className = "stage-fit rs-fit";
  parent.append(panel);
  panel.append(head, note, box);
  const svg = d3
    .select(box)
    .append("svg")
    .attr("class", "rs-lanes")
    .attr("role", "img")
    .attr("preserveAspectRatio", "xMidYMid meet");
  const lanesG = svg.append("g").attr("class", "rs-lane-rows");
  const band = svg.append("rect").attr("class", "rs-band").attr("visibility", "hidden");
  const barsG = svg.append("g").attr("class", "rs-bars");
  const ticksG = svg.append("g").attr("class", "rs-ticks");
  const fit = fitToRoom(box, 2);
  /** @type {{ rows: SliceRow[], shards: string[] } | null} what the last update drew */
  let shown = null;

  /**
   * Where each slice's bar is (by slice id), each shard's lane, and the drawing's height.
   * @param {SliceRow[]} rows
   * @param {string[]} shards
   */
  function geometry(rows, shards) {
    const total = d3.sum(rows, (r) => r.keys) || 1;
    const floor = total / Math.max(1, rows.length) / 6; // an empty slice still shows
    const weights = rows.map((r) => Math.max(r.keys, floor));
    const sum = d3.sum(weights);
    const span = WIDTH - LEFT - 4;
    let x = LEFT;
    /** @type {Map<number, { x: number, w: number }>} */
    const place = new Map();
    rows.forEach((r, i) => {
      const w = (weights[i] / sum) * span;
      place.set(r.id, { x, w });
      x += w;
    });
    const axis = tickSize(/** @type {SVGSVGElement} */ (svg.node())) + 4;
    const y = (/** @type {string} */ shard) => axis + shards.indexOf(shard) * (LANE + GAP);
    const height = axis + shards.length * (LANE + GAP);
    return { place, y, height, axis };
  }

  /**
   * @param {RangeTable} table the snapshot's table
   * @param {string[]} shards
   * @param {{note?: string, events?: LabEvent[], query?: RangeQuery | null, animate?: boolean}} [how]
   */
  function update(table, shards, { note: said = "", events = [], query = null, animate = false } = {}) {
    const rows = table.slices;
    if (note.textContent !== said) note.textContent = said;
    const geo = geometry(rows, shards);
    // every row has its place (geometry placed them all)
    const placeOf = (/** @type {number} */ id) => /** @type {{ x: number, w: number }} */ (geo.place.get(id));
    svg.attr("viewBox", `0 0 ${WIDTH} ${geo.height}`);
    fit.setAspect(WIDTH / geo.height);
    svg.attr("aria-label", summary(title, rows, shards));
    // lanes: one per shard, its letter at the left
    const lanes = lanesG
      .selectAll("g.rs-lane")
      .data(shards, (d) => d)
      .join((enter) => {
        const g = enter.append("g").attr("class", "rs-lane");
        g.append("rect").attr("class", "rs-lane-bg");
        g.append("text").attr("class", "rs-lane-letter");
        return g;
      });
    lanes.attr("data-shard", (d) => d);
    lanes
      .select("rect")
      .attr("x", LEFT)
      .attr("y", (d) => geo.y(d))
      .attr("width", WIDTH - LEFT - 4)
      .attr("height", LANE);
    lanes
      .select("text")
      .attr("x", LEFT - 6)
      .attr("y", (d) => geo.y(d) + LANE / 2)
      .attr("fill", (d) => shardColour(d))
      .text((d) => d);

    // the first moment: each slice in the lane its keys were in before this frame (a
    // slice born in the frame, in the lane of the slice it was cut from)
    const mine = events.filter((e) => e.policy === policy);
    const splitAt = new Set(mine.filter((e) => e.type === "slice_split").map((e) => e.new));
    const old = shown ? new Map(shown.rows.map((r) => [r.id, r])) : new Map();
    const oldRows = animate && shown ? shown.rows : [];
    const starts = oldRows.map((r) => r.start);
    /**
     * The lane a slice is drawn in at a moment of the frame (0 the splits, 1 the moves).
     * @param {SliceRow} d
     * @param {number} moment
     */
    const laneOf = (d, moment) => {
      if (moment !== 0 || !oldRows.length) return d.shard;
      const i = d3.bisectRight(starts, d.start) - 1;
      return i >= 0 ? oldRows[i].shard : d.shard;
    };
    const splitMs = animate ? duration(SPLIT_MS) : 0;
    const moveMs = animate ? duration(MOVE_MS) : 0;

    const bars = barsG
      .selectAll("g.rs-slice")
      .data(rows, (d) => d.id)
      .join(
        (enter) => {
          const g = enter.append("g").attr("class", "rs-slice");
          g.append("rect").attr("class", "rs-slice-bar");
          g.append("text").attr("class", "rs-slice-id");
          g.append("title");
          // a new slice is born where its parent is: at its own place, in the old lane
          g.attr("transform", (d) => `translate(0,${geo.y(laneOf(d, 0))})`);
          return g;
        },
        (update) => update,
        (exit) => exit.remove(),
      )
      .order(); // in key order in the document too, as a screen reader walks them
    bars
      .attr("data-slice", (d) => d.id)
      .attr("data-shard", (d) => d.shard)
      .classed("is-hot", (d) => d.writes > 0)
      .classed("is-newest", (d) => d.id === table.newest)
      .classed("is-read", (d) => Boolean(query?.slices?.[policy]?.includes(d.id)))
      .classed("is-new", (d) => splitAt.has(d.id) || (animate && shown !== null && !old.has(d.id)));
    bars.select("title").text((d) => sliceTitle(d));
    bars
      .select("rect")
      .transition()
      .duration(splitMs)
      .attr("x", (d) => placeOf(d.id).x + 0.5)
      .attr("width", (d) => Math.max(1, placeOf(d.id).w - 1))
      .attr("height", LANE)
      .attr("fill", (d) => shardColour(laneOf(d, 0)))
      .transition()
      .duration(moveMs)
      .attr("fill", (d) => shardColour(d.shard));
    bars
      .select("text")
      .attr("x", (d) => placeOf(d.id).x + placeOf(d.id).w / 2)
      .attr("y", LANE / 2)
      .attr("fill", (d) => inkOn(d.shard))
      .text((d) => (placeOf(d.id).w >= 32 ? `#${d.id}` : ""));
    bars
      .interrupt()
      .attr("transform", (d) => `translate(0,${geo.y(laneOf(d, 0))})`)
      .transition()
      .delay(splitMs)
      .duration(moveMs)
      .attr("transform", (d) => `translate(0,${geo.y(d.shard)})`);
    setTimeout(() => bars.classed("is-new", false), splitMs + moveMs + 400);

    // the key line: slice start keys, as many as fit without touching
    const tickChar = (geo.axis - 4) * TICK_EM;
    const ticks = [];
    let free = -Infinity; // where the last label ends
    for (const r of rows) {
      const { x } = placeOf(r.id);
      const label = shortKey(r.start);
      if (x >= free) {
        ticks.push({ id: r.id, x, label });
        free = x + label.length * tickChar + 10;
      }
    }
    ticksG
      .selectAll("text")
      .data(ticks, (d) => d.id)
      .join("text")
      .attr("class", "rs-tick")
      .attr("x", (d) => d.x + 2)
      .attr("y", geo.axis - 5)
      .text((d) => d.label);

    const read = rows.filter((r) => query?.slices?.[policy]?.includes(r.id));
    if (read.length) {
      const first = placeOf(read[0].id);
      const last = placeOf(read[read.length - 1].id);
      band
        .attr("visibility", "visible")
        .attr("x", first.x - 2)
        .attr("y", geo.axis - 2)
        .attr("width", last.x + last.w - first.x + 4)
        .attr("height", geo.height - geo.axis + 2);
    } else band.attr("visibility", "hidden");
    shown = { rows, shards };
  }

  return {
    update,
    destroy() {
      fit.destroy();
      panel.remove();
    },
  };
}

/**
 * A start key as the key line shows it: a timestamp key by its milliseconds (the lab
 * writes them as T, twelve digits and a serial), "−∞" for the start of the key space.
 * @param {string} key
 */
function shortKey(key) {
  if (key === "") return "−∞";
  const stamp = /^T0*(\d+)-/.exec(key);
  return stamp ? `T${stamp[1]}…` : key;
}

/**
 * A slice's tooltip.
 * @param {SliceRow} d
 */
function sliceTitle(d) {
  return fmt(t("Slice %(id)s: from %(start)s to %(end)s, on shard %(shard)s, %(keys)s keys, %(writes)s writes this second"), {
    id: d.id,
    start: d.start === "" ? t("the start") : d.start,
    end: d.end === null ? t("the end") : d.end,
    shard: d.shard,
    keys: num(d.keys),
    writes: num(d.writes),
  });
}

/**
 * A table's drawing in words: slices per shard, and where this second's writes went.
 * @param {string} title
 * @param {SliceRow[]} rows
 * @param {string[]} shards
 */
function summary(title, rows, shards) {
  const per = shards.map((s) => fmt(t("%(shard)s: %(count)s slices"), {
    shard: s,
    count: num(rows.filter((r) => r.shard === s).length),
  }));
  const hot = rows.filter((r) => r.writes > 0).map((r) => r.shard);
  const hotText = hot.length
    ? fmt(t("written this second on %(shards)s"), { shards: [...new Set(hot)].join(", ") })
    : t("nothing written this second");
  return `${title}. ${fmt(t("%(count)s slices"), { count: num(rows.length) })}; ${per.join("; ")}; ${hotText}.`;
}
