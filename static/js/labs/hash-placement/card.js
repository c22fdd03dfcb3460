/**
 * One scheme's card: title and explanation, the circle with its key dots, the shard bins,
 * a looked-up key's path, and the scheme's numbers. Keeps what it needs between frames
 * (the slots keys sit in) so that only the keys that move, move.
 */

import d3 from "d3";
import { fmt, num, t } from "../../i18n.js";
import { fitToRoom } from "../../stage-fit.js";
import { BIN_DOT_RIM, createBins } from "./bins.js";
import { createCardMetrics } from "./card-metrics.js";
import { DOT_RADIUS, RING_BOTTOM, WIDTH } from "./geometry.js";
import { createDotHover } from "./hover.js";
import { drawLookup, lookupSentence } from "./lookup.js";
import { createPainter } from "./painter.js";
import { planChange, planFresh } from "./plan.js";
import { RING_DOT_RIM, createRing } from "./ring.js";
import { schemeExplanation, schemeTitle } from "./schemes.js";
import { initialSlots } from "./slots.js";

/** @import { LabEvent, Snapshot } from "../../types.js" */
/** @import { HashSnapshot, Lookup, Scheme, SchemeNumbers, Slots } from "./types.js" */

/**
 * What a frame tells a card besides its scheme's numbers: the keys in all, and whether
 * the frame changed placement (hash-placement.js, `context`).
 * @typedef {{ total: number, isChange: boolean }} FrameContext
 */

const BINS_TOP = RING_BOTTOM + 6;

/**
 * A card for `scheme` appended to `parent`; returns {show, change, setLookup, destroy}.
 * The share that moved stays on the card; the card's other numbers (spread, keys per
 * shard, rows sent) go to `numbersParent` when given (the side panel), else on the card.
 * @param {HTMLElement} parent
 * @param {Scheme} scheme
 * @param {HTMLElement | null} [numbersParent]
 */
export function createCard(parent, scheme, numbersParent = null) {
  const article = document.createElement("article");
  article.className = "scheme-card";
  article.dataset.scheme = scheme;
  article.id = `card-${scheme}`;
  article.innerHTML = `
    <header class="card-head"><h2 id="card-title-${scheme}"></h2><p class="explain"></p></header>
    <div class="card-fit stage-fit"><div class="card-figure"></div></div>
    <p class="lookup-text" hidden></p>
    <div class="card-metrics"></div>`;
  article.setAttribute("aria-labelledby", `card-title-${scheme}`);
  parent.append(article);
  // the four are in the markup just above
  const title = /** @type {HTMLElement} */ (article.querySelector("h2"));
  const explain = /** @type {HTMLElement} */ (article.querySelector(".explain"));
  const lookupText = /** @type {HTMLElement} */ (article.querySelector(".lookup-text"));
  const fit = fitToRoom(/** @type {HTMLElement} */ (article.querySelector(".card-fit")));
  // Stacked layers with one viewBox: the table (band, ticks, bins) in the back SVG, the
  // canvas that draws the key dots (painter.js), and a looked-up key's path on top. The table rarely changes and the dots
  // move every frame; keeping them apart spares the browser repainting the table.
  const figure = d3.select(article.querySelector(".card-figure"));
  const back = figure.append("svg").attr("class", "card-svg card-back").attr("role", "img");
  // The key dots' circles are a record, not a drawing: they live in an inert template
  // (no style, layout or paint whatever is written to them) and the canvas draws them.
  const record = document.createElement("template");
  record.className = "dot-record";
  figure.node()?.append(record);
  const inert = record.content.ownerDocument;
  const front = d3.select(inert.createElementNS("http://www.w3.org/2000/svg", "svg"));
  record.content.append(/** @type {SVGSVGElement} */ (front.node()));
  front.attr("class", "card-front");
  const ringDots = front.append("g").attr("class", "ring-dots");
  const binDots = front.append("g").attr("class", "bin-dots");
  // (every node here was made just above)
  const painter = createPainter(/** @type {HTMLElement} */ (figure.node()), WIDTH, [
    { node: /** @type {SVGGElement} */ (ringDots.node()), rim: RING_DOT_RIM },
    { node: /** @type {SVGGElement} */ (binDots.node()), rim: BIN_DOT_RIM },
  ]);
  const over = figure
    .append("svg")
    .attr("class", "card-svg card-over")
    .attr("aria-hidden", "true");
  const svgs = figure.selectAll("svg").attr("viewBox", `0 0 ${WIDTH} ${BINS_TOP + 100}`);
  defineArrowhead(over, `arrowhead-${scheme}`);
  const ring = createRing(back.append("g").attr("class", "ring-layer"), ringDots, scheme, painter);
  const bins = createBins(back.append("g").attr("class", "bins-layer"), binDots, painter);
  const overlay = over.append("g").attr("class", "lookup-layer");
  const hover = createDotHover(
    /** @type {HTMLElement} */ (figure.node()),
    back,
    ringDots,
    DOT_RADIUS,
  );
  /** @type {HTMLElement | null} */
  let numbers = null;
  if (numbersParent) {
    numbers = document.createElement("section");
    numbers.className = "scheme-numbers";
    numbers.dataset.scheme = scheme;
    numbers.setAttribute("aria-labelledby", `numbers-title-${scheme}`);
    const heading = document.createElement("h3");
    heading.id = `numbers-title-${scheme}`;
    numbers.append(heading);
    numbersParent.append(numbers);
  }
  const metrics = createCardMetrics(
    /** @type {HTMLElement} */ (article.querySelector(".card-metrics")),
    numbers,
  );
  /** @type {HashSnapshot | null} the snapshot drawn */
  let snapshot = null;
  /** @type {Slots | null} the slots its keys sit in (set with `snapshot`) */
  let slots = null;
  /** @type {Lookup | null} */
  let lookup = null;
  /** @type {{ cancel(): void } | null} the shrink to come */
  let shrinkTimer = null;
  /** @type {number | null} */
  let viewHeightShown = null;

  // Text in the card outside its SVGs is written only when it changes: any new text there
  // lays the whole card out again, its drawing included (the SVGs in their size container).
  /** @param {HashSnapshot} next */
  function heading(next) {
    setText(title, schemeTitle(scheme, next));
    setText(explain, schemeExplanation(scheme, next));
    const heading = numbers?.firstElementChild;
    if (heading) setText(heading, title.textContent);
  }

  /**
   * Make the drawing `height` tall now, and `later` once `afterMs` have passed.
   * @param {number} height
   * @param {number} [later]
   * @param {number} [afterMs]
   */
  function setHeight(height, later = height, afterMs = 0) {
    shrinkTimer?.cancel();
    shrinkTimer = null;
    viewHeight(height);
    if (later < height) shrinkTimer = shrinkLater(() => viewHeight(later), afterMs + 50);
  }

  /** @param {number} height */
  function viewHeight(height) {
    if (Math.ceil(height) === viewHeightShown) return;
    viewHeightShown = Math.ceil(height);
    svgs.attr("viewBox", `0 0 ${WIDTH} ${Math.ceil(height)}`);
    // on the stage the figure fits the room left to it (stage-fit.js)
    fit.setAspect(WIDTH / Math.ceil(height));
    painter.fit(Math.ceil(height));
  }

  /**
   * Draw `next` from scratch (first view, a reconnect, or a new key set). Returns the
   * function that writes the card's numbers and lookup path: the caller runs it, at once
   * or in a later frame.
   * @param {Snapshot} given the lab's snapshot
   * @param {SchemeNumbers} numbers the scheme's
   * @param {FrameContext} context
   */
  function show(given, numbers, context) {
    const next = /** @type {HashSnapshot} */ (given);
    heading(next);
    slots = initialSlots(next.sample, scheme, next.shards);
    const drawn = bins.current();
    const fresh = planFresh(scheme, next, slots, BINS_TOP);
    for (const bin of fresh.plan.bins) bin.entering = !drawn.bins.has(bin.shard);
    setHeight(fresh.height);
    ring.drawTable(next, 0);
    ring.drawDots(next, new Map(), { fresh: true });
    bins.animate({
      ...fresh.plan,
      isChange: true,
      counts: numbers.per_shard,
      hotShard: hotShardOf(next, scheme),
    });
    snapshot = next;
    painter.refresh();
    return () => finish(numbers, context);
  }

  /**
   * Animate from the current drawing to `next`: only the keys whose shard changed fly.
   * Returns the function that writes the numbers, as `show` does.
   * @param {Snapshot} given the lab's snapshot
   * @param {SchemeNumbers} numbers the scheme's
   * @param {FrameContext} context
   */
  function change(given, numbers, context) {
    const next = /** @type {HashSnapshot} */ (given);
    if (!snapshot || !sameKeys(snapshot, next)) return show(next, numbers, context);
    heading(next);
    const hashSpaceChanged =
      scheme === "partitions" && snapshot.schemes.partitions.hash !== next.schemes.partitions.hash;
    const result = planChange({
      scheme,
      before: snapshot,
      after: next,
      slots: /** @type {Slots} */ (slots), // (set with `snapshot`)
      top: BINS_TOP,
      drawn: bins.current(),
    });
    slots = result.slots;
    setHeight(result.height, result.endHeight, result.plan.times.total);
    ring.drawTable(next, result.plan.times.flightStart);
    if (hashSpaceChanged) ring.clearLanes();
    ring.drawDots(next, result.departures, { isChange: context.isChange });
    bins.animate({
      ...result.plan,
      isChange: context.isChange,
      counts: numbers.per_shard,
      hotShard: hotShardOf(next, scheme),
    });
    snapshot = next;
    painter.refresh();
    return () => finish(numbers, context);
  }

  /**
   * Write the card's numbers and lookup path (after `show` or `change`: `snapshot` is set).
   * @param {SchemeNumbers} numbers
   * @param {FrameContext} context
   */
  function finish(numbers, context) {
    const current = /** @type {HashSnapshot} */ (snapshot);
    metrics.update(numbers, {
      ...context,
      hotKey: current.hot_key,
      shardCount: current.shards.length,
    });
    drawLookupNow();
    const n = current.shards.length;
    back.attr(
      "aria-label",
      fmt(
        t("%(title)s: %(keys)s sample keys on a circle of hash values, and in %(n)s shard bins."),
        {
          title: schemeTitle(scheme, current),
          keys: num(current.sample.length),
          n: num(n),
        },
      ),
    );
  }

  function drawLookupNow() {
    const binOf = (/** @type {string} */ shard) => bins.current().bins.get(shard)?.to;
    drawLookup(overlay, scheme, lookup, {
      binOf,
      partitionCount: snapshot?.schemes.partitions.count,
      arrowhead: `url(#arrowhead-${scheme})`,
    });
    if (lookupText.hidden !== !lookup) lookupText.hidden = !lookup;
    setText(lookupText, lookup ? lookupSentence(scheme, lookup) : "");
  }

  return {
    show,
    change,
    /**
     * Show a looked-up key's path (the lookup event), or none (drawn now, or by `finish`).
     * @param {LabEvent | null} event a `lookup` event
     * @param {{ draw?: boolean }} [how]
     */
    setLookup(event, { draw = true } = {}) {
      lookup = /** @type {Lookup | null} */ (event);
      if (snapshot && draw) drawLookupNow();
    },
    destroy() {
      shrinkTimer?.cancel();
      fit.destroy();
      hover.destroy();
      painter.destroy();
      svgs.selectAll("*").interrupt();
      article.remove();
      numbers?.remove();
    },
  };
}

// The cards' drawings shrink back once their keys have landed. The shrinks of one change
// are made when the last card's is due (the three cards start a change a frame or a few
// apart, and end alike; a drawing at rest that keeps its taller box a moment longer looks
// just the same), one card an animation frame: each redraws its canvas at the new size.
const SHRINK_GROUP_MS = 1000; // shrinks asked for this close together are one group
/** @type {{ since: number, due: number, shrinks: Set<() => void>, timer: number } | null} */
let shrinkGroup = null;

/**
 * Run `shrink` in `ms`, or with the rest of its group; returns {cancel}.
 * @param {() => void} shrink
 * @param {number} ms
 */
function shrinkLater(shrink, ms) {
  const now = performance.now();
  if (!shrinkGroup || now - shrinkGroup.since > SHRINK_GROUP_MS) {
    shrinkGroup = { since: now, due: 0, shrinks: new Set(), timer: 0 };
  }
  const group = shrinkGroup;
  group.shrinks.add(shrink);
  group.due = Math.max(group.due, now + ms);
  clearTimeout(group.timer);
  group.timer = setTimeout(
    () => {
      if (shrinkGroup === group) shrinkGroup = null;
      const queue = [...group.shrinks];
      const next = () => {
        const run = queue.shift();
        if (!run) return;
        // (a shrink cancelled meanwhile, by a newer change, is skipped)
        if (group.shrinks.has(run)) run();
        requestAnimationFrame(next);
      };
      requestAnimationFrame(next);
    },
    Math.max(0, group.due - now),
  );
  return {
    cancel() {
      group.shrinks.delete(shrink);
    },
  };
}

/**
 * @param {Node} node
 * @param {string | null} text
 */
function setText(node, text) {
  if (node.textContent !== text) node.textContent = text;
}

/**
 * The shard the hot key is on under `scheme` (null: no hot key).
 * @param {HashSnapshot} snapshot
 * @param {Scheme} scheme
 * @returns {string | null}
 */
function hotShardOf(snapshot, scheme) {
  return snapshot.hot_key?.where?.[scheme] ?? null;
}

/**
 * True when two snapshots hold the same key set and sample.
 * @param {HashSnapshot} a
 * @param {HashSnapshot} b
 */
function sameKeys(a, b) {
  if (a.keys.kind !== b.keys.kind || a.keys.count !== b.keys.count) return false;
  if (a.sample.length !== b.sample.length) return false;
  return a.sample.every((key, i) => key.id === b.sample[i].id && key.key === b.sample[i].key);
}

/**
 * @param {import("d3").Selection<SVGSVGElement, unknown, null, undefined>} svg
 * @param {string} id
 */
function defineArrowhead(svg, id) {
  svg
    .append("defs")
    .append("marker")
    .attr("id", id)
    .attr("viewBox", "0 0 10 10")
    .attr("refX", 8)
    .attr("refY", 5)
    .attr("markerUnits", "userSpaceOnUse")
    .attr("markerWidth", 11)
    .attr("markerHeight", 11)
    .attr("orient", "auto-start-reverse")
    .append("path")
    .attr("d", "M0,0L10,5L0,10Z")
    .attr("class", "arrowhead");
}
