/**
 * The router and its shards. The router sits at the left; the shards, numbered from 0,
 * fill a grid at the right (2 columns up to 8 shards, then 4, then 8). A query draws a
 * line to each shard it asks and a dot along it: the request goes out, and each answer
 * comes back after its own latency (the slowest answer's flight lasts FLIGHT_MS, the
 * others in proportion), so the answers are seen arriving one by one and the router
 * counting them; the merge happens when the last one lands, and the slowest shard is
 * marked. Shards a query did not ask are dimmed; a slowed shard is hatched with its
 * factor written on it. Reduced motion: everything lands at once.
 */

import d3 from "d3";
import { decimal, fmt, num, t } from "../../i18n.js";
import { duration } from "../../motion.js";
import { fitToRoom } from "../../stage-fit.js";

/** @import { Snapshot } from "../../types.js" */
/** @import { Answer, GatherSnapshot, Query } from "./types.js" */

/**
 * A shard's box in the grid.
 * @typedef {{ id: number, x: number, y: number, w: number, h: number }} Cell
 */

const WIDTH = 520;
const HEIGHT = 300;
// the router as wide as its longest line at 14 px ("merged at 18.8 ms")
const ROUTER = { x: 2, y: HEIGHT / 2 - 44, w: 150, h: 88 };
const GRID = { x: 178, y: 10, w: WIDTH - 186, h: HEIGHT - 20 };
const OUT_MS = 350;
const FLIGHT_MS = 1600;

/**
 * Where each of `count` shards is drawn.
 * @param {number} count
 * @returns {Cell[]}
 */
function layout(count) {
  const cols = count <= 8 ? 2 : count <= 16 ? 4 : 8;
  const rows = Math.ceil(count / cols);
  const cellW = GRID.w / cols;
  const cellH = GRID.h / rows;
  const pad = Math.min(cellW, cellH) * 0.12;
  return Array.from({ length: count }, (_, i) => {
    const col = i % cols;
    const row = Math.floor(i / cols);
    return {
      id: i,
      x: GRID.x + col * cellW + pad,
      y: GRID.y + row * cellH + pad,
      w: cellW - 2 * pad,
      h: cellH - 2 * pad,
    };
  });
}

/**
 * Milliseconds as the lab shows them: 9.8 ms.
 * @param {number} us microseconds
 */
export function ms(us) {
  return fmt(t("%(ms)s ms"), { ms: decimal(us / 1000) });
}

/** @param {HTMLElement} parent */
export function createCluster(parent) {
  const box = document.createElement("div");
  box.className = "stage-fit sg-fit";
  parent.append(box);
  const svg = d3
    .select(box)
    .append("svg")
    .attr("class", "sg-cluster")
    .attr("role", "img")
    .attr("viewBox", `0 0 ${WIDTH} ${HEIGHT}`);
  const fit = fitToRoom(box, WIDTH / HEIGHT);
  const defs = svg.append("defs");
  defs
    .append("pattern")
    .attr("id", "sg-hatch")
    .attr("width", 6)
    .attr("height", 6)
    .attr("patternUnits", "userSpaceOnUse")
    .attr("patternTransform", "rotate(45)")
    .append("rect")
    .attr("width", 2.5)
    .attr("height", 6)
    .attr("class", "sg-hatch-line");
  const linesG = svg.append("g").attr("class", "sg-lines");
  const shardsG = svg.append("g").attr("class", "sg-shards");
  const dotsG = svg.append("g").attr("class", "sg-dots");
  const router = svg.append("g").attr("class", "sg-router");
  router
    .append("rect")
    .attr("x", ROUTER.x)
    .attr("y", ROUTER.y)
    .attr("width", ROUTER.w)
    .attr("height", ROUTER.h)
    .attr("rx", 8);
  const routerName = router
    .append("text")
    .attr("class", "sg-router-name")
    .attr("x", ROUTER.x + ROUTER.w / 2)
    .attr("y", ROUTER.y + 24);
  const routerCount = router
    .append("text")
    .attr("class", "sg-router-count")
    .attr("x", ROUTER.x + ROUTER.w / 2)
    .attr("y", ROUTER.y + 50);
  const routerTime = router
    .append("text")
    .attr("class", "sg-router-time")
    .attr("x", ROUTER.x + ROUTER.w / 2)
    .attr("y", ROUTER.y + 72);
  /** @type {d3.Timer[]} the answers' landings still to come */
  let timers = [];

  function stop() {
    for (const timer of timers) timer.stop();
    timers = [];
    dotsG.selectAll("*").interrupt().remove();
  }

  /**
   * @param {Snapshot} given the lab's snapshot
   * @param {boolean} animate the last query is new: play it
   */
  function update(given, animate) {
    const snapshot = /** @type {GatherSnapshot} */ (given);
    stop();
    routerName.text(t("Router"));
    const cells = layout(snapshot.shard_count);
    const query = snapshot.last_query;
    const answers = new Map((query?.answers ?? []).map((a) => [a.shard, a]));
    const slowOf = new Map(snapshot.shards.map((s) => [s.id, s.slow_factor]));
    const shards = shardsG
      .selectAll("g.sg-shard")
      .data(cells, (d) => d.id)
      .join((enter) => {
        const g = enter.append("g").attr("class", "sg-shard");
        g.append("rect").attr("class", "sg-shard-box").attr("rx", 5);
        g.append("rect").attr("class", "sg-shard-hatch").attr("rx", 5);
        g.append("text").attr("class", "sg-shard-id");
        g.append("text").attr("class", "sg-shard-time");
        g.append("title");
        return g;
      });
    const small = cells.length > 16;
    shards
      .attr("data-shard", (d) => d.id)
      .attr("data-asked", (d) => (answers.has(d.id) ? "yes" : query ? "no" : null))
      .attr("data-slow", (d) => slowOf.get(d.id) ?? 1)
      .classed("is-slowest", false);
    // the slowest answer is marked once it has landed: the merge waited for it
    const markSlowest = () =>
      shards.classed("is-slowest", (d) => query?.slowest === d.id && answers.size > 1);
    shards
      .selectAll("rect")
      .attr("x", (d) => d.x)
      .attr("y", (d) => d.y)
      .attr("width", (d) => d.w)
      .attr("height", (d) => d.h);
    shards.select(".sg-shard-hatch").attr("visibility", (d) => ((slowOf.get(d.id) ?? 1) > 1 ? "visible" : "hidden"));
    shards
      .select(".sg-shard-id")
      .attr("x", (d) => d.x + d.w / 2)
      .attr("y", (d) => d.y + (small ? d.h / 2 : d.h * 0.38))
      .attr("font-size", small ? 10 : 16)
      .text((d) => {
        const slow = slowOf.get(d.id) ?? 1;
        return slow > 1 ? `${d.id} ×${slow}` : String(d.id);
      });
    shards.select("title").text((d) => shardTitle(d.id, slowOf.get(d.id) ?? 1, answers.get(d.id)));
    const time = shards
      .select(".sg-shard-time")
      .attr("x", (d) => d.x + d.w / 2)
      .attr("y", (d) => d.y + d.h * 0.72)
      .attr("visibility", small ? "hidden" : "visible");

    const asked = cells.filter((c) => answers.has(c.id));
    const from = { x: ROUTER.x + ROUTER.w, y: HEIGHT / 2 };
    const to = (/** @type {Cell} */ c) => ({ x: c.x, y: c.y + c.h / 2 });
    linesG
      .selectAll("line")
      .data(asked, (d) => d.id)
      .join("line")
      .attr("x1", from.x)
      .attr("y1", from.y)
      .attr("x2", (d) => to(d).x)
      .attr("y2", (d) => to(d).y);
    const total = asked.length;
    const slowest = query ? query.latency_us : 0;
    svg.attr("aria-label", summary(snapshot, query));
    if (!query) {
      time.text("");
      routerCount.text(fmt(t("%(n)s shards"), { n: num(cells.length) }));
      routerTime.text("");
      return;
    }
    const flight = duration(FLIGHT_MS);
    const out = duration(OUT_MS);
    const landAt = (/** @type {Answer} */ a) => out + (slowest ? (a.latency_us / slowest) * flight : 0);
    const showLanded = (/** @type {number} */ n) => {
      routerCount.text(fmt(t("%(n)s of %(total)s answers"), { n: num(n), total: num(total) }));
    };
    if (!animate || (!flight && !out)) {
      time.text((d) => (answers.has(d.id) ? ms(/** @type {Answer} */ (answers.get(d.id)).latency_us) : ""));
      showLanded(total);
      routerTime.text(fmt(t("merged at %(time)s"), { time: ms(slowest) }));
      shards.classed("is-answered", (d) => answers.has(d.id));
      markSlowest();
      return;
    }
    time.text("");
    shards.classed("is-answered", false);
    showLanded(0);
    routerTime.text(t("waiting…"));
    let landed = 0;
    for (const cell of asked) {
      const answer = /** @type {Answer} */ (answers.get(cell.id)); // asked: it answered
      const dot = dotsG.append("circle").attr("class", "sg-dot").attr("r", 4).attr("cx", from.x).attr("cy", from.y);
      const end = to(cell);
      dot
        .transition()
        .duration(out)
        .attr("cx", end.x)
        .attr("cy", end.y)
        .transition()
        .duration(Math.max(1, landAt(answer) - out))
        .ease(d3.easeLinear)
        .attr("cx", from.x)
        .attr("cy", from.y)
        .attr("class", "sg-dot is-answer")
        .remove();
      timers.push(
        d3.timeout(() => {
          landed += 1;
          showLanded(landed);
          const g = shards.filter((d) => d.id === cell.id);
          g.classed("is-answered", true);
          g.select(".sg-shard-time").text(ms(answer.latency_us));
          if (landed === total) {
            routerTime.text(fmt(t("merged at %(time)s"), { time: ms(slowest) }));
            markSlowest();
          }
        }, landAt(answer)),
      );
    }
  }

  return {
    update,
    destroy() {
      stop();
      fit.destroy();
      box.remove();
    },
  };
}

/**
 * A shard's tooltip: its number, how slow, and its answer to the last query.
 * @param {number} id
 * @param {number} slow its slow factor
 * @param {Answer | undefined} answer
 */
function shardTitle(id, slow, answer) {
  const parts = [fmt(t("Shard %(id)s"), { id })];
  if (slow > 1) parts.push(fmt(t("%(factor)s times slower"), { factor: num(slow) }));
  if (answer) parts.push(fmt(t("answered after %(time)s with %(rows)s rows"), { time: ms(answer.latency_us), rows: num(answer.rows) }));
  return parts.join(", ");
}

/**
 * The drawing in words.
 * @param {GatherSnapshot} snapshot
 * @param {Query | null} query
 */
function summary(snapshot, query) {
  const head = fmt(t("A router in front of %(n)s shards."), { n: num(snapshot.shard_count) });
  if (!query) return head;
  return `${head} ${fmt(t("The last query asked %(asked)s of them and was answered after %(time)s, when shard %(slowest)s answered."), {
    asked: num(query.shards_asked),
    time: ms(query.latency_us),
    slowest: query.slowest,
  })}`;
}
