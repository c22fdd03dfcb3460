/**
 * The watched lane, large: readers at the left, the cache in the middle (the hot board
 * with a countdown to its expiry, the refill lock when the strategy has one, the readers
 * waiting for it circling beside it), the database at the right (one slot per query it
 * runs at once, each running query a bar filling from its start to its end, the queue as
 * a line of dots under them, and the count).
 *
 * The boxes and words are SVG; the dots and the bars that fill are painted on one canvas
 * over it (a few hundred moving SVG elements are far too slow to restyle in a
 * software-rendered browser: docs/benchmarks.md). Everything is drawn at one virtual
 * time (clock.js): a dot's flight from one box to the next takes `hop` of it, a query
 * sits in its slot for its own query time.
 *
 * Layout: a wide view box, and a narrow one when the drawing is under 560 px wide.
 */

import d3 from "d3";
import { fmt, num, percent, t } from "../../i18n.js";
import { shapePath, traceShape } from "../../network/styles.js";
import { fitToRoom } from "../../stage-fit.js";
import { dotKinds, ms, queries, refillText, seconds } from "./words.js";

/** @import { CsEntry, CsRefillEvent, CsSnapshot } from "./types.js" */
/** @import { Dot } from "./traffic.js" */
/** @import { DotStyle } from "./words.js" */

/** @typedef {{x: number, y: number, w: number, h: number}} Box a box of the drawing */
/**
 * A slot of the database: its place, where its query's dot sits (`dotX`, `dotY`) and
 * its bar (`bx`, `by`, `bw`, `bh`).
 * @typedef {{i: number, x: number, y: number, h: number, dotX: number, dotY: number, bx: number, by: number, bw: number, bh: number}} Cell
 */
/** @typedef {ReturnType<ReturnType<typeof import("./traffic.js").createLaneTraffic>["at"]>} LaneState a lane at a time (traffic.js's `at`) */
/**
 * What the stage draws at one time (`paint`).
 * @typedef {object} StageView
 * @property {CsSnapshot} snapshot
 * @property {number} time µs
 * @property {number} hop µs a flight takes
 * @property {boolean} reduced
 * @property {number} fadeUs µs a dot fades in with reduced motion
 * @property {LaneState} lane the watched lane
 * @property {CsEntry | null} entry the hot board in its cache
 * @property {number} stale the database's newer version, if the entry is stale (else 0)
 * @property {boolean} lockHeld
 * @property {CsRefillEvent | null} refill its last refill
 * @property {number | null} chance a read's chance to refresh early (XFetch)
 * @property {number} orbit where the waiting readers are on their circle
 * @property {(board: number) => string} boardName
 */
/** @typedef {{x: number, y: number, alpha: number, small?: number}} Spot where a dot is drawn */
/** @typedef {d3.Selection<SVGGElement, unknown, null, undefined>} Group */

const NARROW_BELOW_PX = 560;
const COUNTDOWN_US = 1_000_000; // the countdown bar shows the last second (or the lifetime)

// Two view boxes: `flow` is the height of the arrows over the boxes; `card` the board in
// the cache; `corridor` the height at which a miss crosses the cache under the board (so
// that no dot covers its words); `lines` the two lines under it; `park` where waiting readers circle; `slots`
// the database's; `queue` its first dot and the room between dots.
const LAYOUTS = {
  wide: {
    width: 820,
    height: 290,
    narrow: false,
    title: 16,
    text: 13,
    dot: 5.2,
    flow: 16,
    readers: { x: 6, y: 26, w: 112, h: 258 },
    cache: { x: 236, y: 26, w: 246, h: 258 },
    card: { x: 250, y: 54, w: 218, h: 92 },
    corridor: 155,
    lines: [176, 194],
    park: { x: 359, y: 235, r: 23 },
    waitText: 277,
    db: { x: 540, y: 26, w: 274, h: 258 },
    count: 66,
    slots: { x: 550, y: 76, w: 256, h: 150 },
    queue: { x: 560, y: 246, step: 10, max: 20 },
    refill: 275,
  },
  narrow: {
    width: 360,
    height: 320,
    narrow: true,
    title: 12.5,
    text: 11,
    dot: 4.2,
    flow: 0,
    readers: { x: 1, y: 4, w: 56, h: 312 },
    cache: { x: 64, y: 4, w: 136, h: 312 },
    card: { x: 70, y: 26, w: 124, h: 102 },
    corridor: 136,
    lines: [156, 171],
    park: { x: 132, y: 230, r: 21 },
    waitText: 280,
    db: { x: 206, y: 4, w: 153, h: 312 },
    count: 38,
    slots: { x: 210, y: 64, w: 146, h: 176 },
    queue: { x: 216, y: 264, step: 7.5, max: 13 },
    refill: 306,
  },
};

/**
 * @param {HTMLElement} parent
 */
export function createStage(parent) {
  const kinds = dotKinds();
  const fit = document.createElement("div");
  fit.className = "stage-fit cs-fit";
  const box = document.createElement("div");
  box.className = "cs-figure";
  fit.append(box);
  parent.append(fit);
  const svg = d3.select(box).append("svg").attr("class", "cs-drawing").attr("role", "img");
  const canvas = document.createElement("canvas");
  canvas.className = "cs-dots";
  canvas.setAttribute("aria-hidden", "true");
  box.append(canvas);
  const ctx = /** @type {CanvasRenderingContext2D} */ (canvas.getContext("2d"));
  const fitter = fitToRoom(fit, LAYOUTS.wide.width / LAYOUTS.wide.height);

  let L = LAYOUTS.wide;
  let scale = 1; // CSS pixels per view box unit
  let ratio = 1; // canvas pixels per CSS pixel
  let setupKey = "";
  let limit = 10;
  let strategy = "plain";
  let countdown = 0; // the share of the countdown bar filled
  const shown = new Map(); // text elements' last words (written only when they change)

  const g = {
    flows: svg.append("g").attr("class", "cs-flows"),
    readers: svg.append("g").attr("class", "cs-readers"),
    cache: svg.append("g").attr("class", "cs-cache"),
    db: svg.append("g").attr("class", "cs-db"),
  };

  // Each frame's words and marks are written only when they change: a write, even of the
  // same value, makes the browser restyle and repaint (ten times a second is plenty).
  /**
   * @param {d3.Selection<d3.BaseType, unknown, d3.BaseType, unknown>} selection
   * @param {string} words
   */
  function text(selection, words) {
    const node = selection.node();
    if (shown.get(node) === words) return;
    shown.set(node, words);
    selection.text(words);
  }

  /**
   * Set attribute `name` (null: remove it) when it changed.
   * @param {d3.Selection<d3.BaseType, unknown, d3.BaseType, unknown>} selection an element's
   * @param {string} name
   * @param {string | number | null | undefined} value
   */
  function attr(selection, name, value) {
    const node = /** @type {Element | null} */ (selection.node());
    if (!node) return;
    const words = value === null || value === undefined ? null : String(value);
    if (node.getAttribute(name) !== words) selection.attr(name, words);
  }

  /**
   * Put class `name` on or off when it changed.
   * @param {d3.Selection<d3.BaseType, unknown, d3.BaseType, unknown>} selection an element's
   * @param {string} name
   * @param {unknown} on
   */
  function flag(selection, name, on) {
    const node = /** @type {Element | null} */ (selection.node());
    if (node && node.classList.contains(name) !== Boolean(on)) node.classList.toggle(name, Boolean(on));
  }

  /**
   * A text at (x, y): `anchor` start, middle (the default) or end.
   * @param {Group} parent
   * @param {string} className
   * @param {number} x
   * @param {number} y
   * @param {number} size
   */
  function label(parent, className, x, y, size, anchor = "middle") {
    return parent.append("text").attr("class", className).attr("x", x).attr("y", y).attr("font-size", size).attr("text-anchor", anchor);
  }

  /**
   * Build the boxes for the layout, the limit and the strategy.
   * @param {CsSnapshot} snapshot
   */
  function build(snapshot) {
    const key = [L.width, snapshot.db_limit, snapshot.strategy, snapshot.hot.board, snapshot.rate, snapshot.query_ms].join("|");
    if (key === setupKey) return;
    setupKey = key;
    wordsKey = "";
    limit = snapshot.db_limit;
    strategy = snapshot.strategy;
    shown.clear();
    svg.attr("viewBox", `0 0 ${L.width} ${L.height}`);
    for (const part of Object.values(g)) part.selectAll("*").remove();
    const { readers, cache, card, db } = L;
    const centre = (/** @type {Box} */ b) => b.x + b.w / 2;
    const mid = (/** @type {Box} */ b) => b.y + b.h / 2;
    // what flows: GET from the readers to the cache, the query from the cache on
    if (L.flow) {
      const arrow = (/** @type {number} */ x1, /** @type {number} */ x2, /** @type {string} */ words) => {
        const y = L.flow;
        g.flows.append("line").attr("x1", x1).attr("x2", x2 - 6).attr("y1", y).attr("y2", y);
        g.flows.append("path").attr("d", `M${x2},${y}l-8,-4.5v9z`);
        label(g.flows, "cs-flow", (x1 + x2) / 2, y - 4, 12.5).text(words);
      };
      arrow(readers.x + readers.w + 6, cache.x - 6, t("GET the board"));
      arrow(cache.x + cache.w + 6, db.x - 6, fmt(t("miss: query, %(time)s"), { time: ms(snapshot.query_ms * 1000) }));
    }

    // readers
    g.readers.append("rect").attr("class", "cs-box").attr("x", readers.x).attr("y", readers.y).attr("width", readers.w).attr("height", readers.h).attr("rx", 10);
    label(g.readers, "cs-title", centre(readers), readers.y + 20, L.title).text(t("Readers"));
    const person = L.narrow ? 0.7 : 1;
    for (let i = 0; i < 3; i += 1) {
      const px = centre(readers) + (i - 1) * 22 * person;
      const py = readers.y + readers.h - 52 * person;
      g.readers.append("circle").attr("class", "cs-person").attr("cx", px).attr("cy", py).attr("r", 7 * person);
      g.readers.append("path").attr("class", "cs-person").attr("d", `M${px - 11 * person},${py + 28 * person}q0,${-18 * person} ${11 * person},${-18 * person}q${11 * person},0 ${11 * person},${18 * person}z`);
    }
    const rateY = L.narrow ? readers.y + 44 : mid(readers) - 4;
    label(g.readers, "cs-rate", centre(readers), rateY, L.narrow ? 15 : 22).text(num(snapshot.rate));
    label(g.readers, "cs-small", centre(readers), rateY + (L.narrow ? 13 : 18), L.text - 1).text(L.narrow ? t("a second") : t("reads a second"));

    // cache
    g.cache.append("rect").attr("class", "cs-box").attr("x", cache.x).attr("y", cache.y).attr("width", cache.w).attr("height", cache.h).attr("rx", 10);
    label(g.cache, "cs-title", centre(cache), cache.y + 18, L.title).text(t("Cache"));
    const cardG = g.cache.append("g").attr("class", "cs-card");
    cardG.append("rect").attr("class", "cs-card-box").attr("x", card.x).attr("y", card.y).attr("width", card.w).attr("height", card.h).attr("rx", 6);
    const pad = L.narrow ? 7 : 10;
    label(cardG, "cs-board", card.x + pad, card.y + 24, L.narrow ? 18 : 22, "start").text(t(snapshot.hot.board));
    label(cardG, "cs-small cs-card-what", card.x + (L.narrow ? 50 : 64), card.y + 22, L.text - 1, "start").text(L.narrow ? t("board") : t("departures board"));
    label(cardG, "cs-small cs-version", card.x + pad, card.y + 42, L.narrow ? L.text - 1.5 : L.text - 0.5, "start");
    const barY = card.y + (L.narrow ? 50 : 50);
    cardG.append("rect").attr("class", "cs-bar-track").attr("x", card.x + pad).attr("y", barY).attr("width", card.w - 2 * pad).attr("height", 11).attr("rx", 3);
    label(cardG, "cs-countdown", card.x + pad, card.y + card.h - (L.narrow ? 24 : 14), L.text + (L.narrow ? 0 : 1), "start");
    label(cardG, "cs-countdown-2", card.x + pad, card.y + card.h - 8, L.text, "start");
    const lock = g.cache.append("g").attr("class", "cs-lock");
    const lx = card.x + card.w - 24;
    const ly = card.y + 6;
    lock.append("path").attr("class", "cs-lock-shackle").attr("d", `M${lx + 3},${ly + 9}v-4a5,5 0 0 1 10,0v4`);
    lock.append("rect").attr("class", "cs-lock-body").attr("x", lx).attr("y", ly + 9).attr("width", 16).attr("height", 12).attr("rx", 2);
    label(g.cache, "cs-line cs-line-1", centre(cache), L.lines[0], L.text);
    label(g.cache, "cs-line cs-line-2", centre(cache), L.lines[1], L.text);
    g.cache.append("circle").attr("class", "cs-park").attr("cx", L.park.x).attr("cy", L.park.y).attr("r", L.park.r);
    label(g.cache, "cs-wait", centre(cache), L.waitText, L.text);

    // database
    g.db.append("rect").attr("class", "cs-box").attr("x", db.x).attr("y", db.y).attr("width", db.w).attr("height", db.h).attr("rx", 10);
    label(g.db, "cs-title", centre(db), db.y + 18, L.title).text(t("Database"));
    const count = label(g.db, "cs-db-count", centre(db), L.count, L.text + (L.narrow ? 0 : 1));
    count.append("tspan").attr("class", "cs-running");
    count.append("tspan").attr("class", "cs-queued").attr("x", L.narrow ? centre(db) : null).attr("dy", L.narrow ? "1.25em" : null);
    const cells = slotCells(limit);
    g.db
      .append("g")
      .attr("class", "cs-slots")
      .selectAll("rect")
      .data(cells)
      .join("rect")
      .attr("class", "cs-slot")
      .attr("x", (c) => c.bx)
      .attr("y", (c) => c.by)
      .attr("width", (c) => c.bw)
      .attr("height", (c) => c.bh)
      .attr("rx", 2);
    label(g.db, "cs-small cs-queue-label", L.queue.x - 6, L.queue.y - 12, L.narrow ? L.text - 2 : L.text - 0.5, "start").text(t("queue"));
    label(g.db, "cs-small cs-queue-more", L.queue.x + L.queue.max * L.queue.step + 6, L.queue.y + 4, L.text - 1, "start");
    label(g.db, "cs-refill", centre(db), L.refill, L.text + (L.narrow ? 0 : 1));
    svg.attr("data-strategy", strategy);
    svg.classed("uses-lock", strategy === "lock" || strategy === "xfetch_lock");
    svg.classed("uses-xfetch", strategy === "xfetch" || strategy === "xfetch_lock");
  }

  let cellsKey = "";
  /** @type {Cell[]} */
  let cellsMade = [];

  /**
   * The database's slots: where each query's dot sits and its bar fills.
   * @param {number} n
   */
  function slotCells(n) {
    const key = `${L.width} ${n}`;
    if (key !== cellsKey) {
      cellsKey = key;
      cellsMade = makeCells(n);
    }
    return cellsMade;
  }

  /**
   * @param {number} n
   * @returns {Cell[]}
   */
  function makeCells(n) {
    const cols = n <= 16 ? 1 : n <= 32 ? 2 : 4;
    const rows = Math.ceil(n / cols);
    const { slots } = L;
    const cw = slots.w / cols;
    const ch = slots.h / rows;
    return Array.from({ length: n }, (_, i) => {
      const col = Math.floor(i / rows);
      const row = i % rows;
      const x = slots.x + col * cw;
      const y = slots.y + row * ch;
      const dotX = x + Math.min(8, ch * 0.6);
      return { i, x, y, h: ch, dotX, dotY: y + ch / 2, bx: dotX + Math.min(8, ch * 0.6) + 2, by: y + ch * 0.14, bw: cw - (dotX - x) - Math.min(8, ch * 0.6) - 6, bh: ch * 0.72 };
    });
  }

  function relayout() {
    const across = fit.clientWidth || parent.clientWidth || LAYOUTS.wide.width;
    const next = across < NARROW_BELOW_PX ? LAYOUTS.narrow : LAYOUTS.wide;
    if (next !== L) {
      L = next;
      setupKey = "";
      fitter.setAspect(L.width / L.height);
    }
    const widthPx = box.clientWidth || across;
    scale = widthPx / L.width;
    const dpr = window.devicePixelRatio || 1;
    canvas.width = Math.max(1, Math.round(widthPx * dpr));
    canvas.height = Math.max(1, Math.round(widthPx * (L.height / L.width) * dpr));
    ratio = canvas.width / Math.max(1, widthPx);
  }
  const resize = new ResizeObserver(() => {
    relayout();
    onResize?.();
  });
  resize.observe(fit);
  resize.observe(box);
  /** @type {(() => void) | null} */
  let onResize = null;
  relayout();

  /**
   * Draw the lane at one time.
   * @param {StageView} view
   */
  function paint(view) {
    const { snapshot, time, lane } = view;
    build(snapshot);
    const entry = view.entry;
    const left = entry ? entry.expiry_us - time : 0;
    const expired = !entry || left <= 0;
    const span = Math.min(COUNTDOWN_US, snapshot.ttl_ms * 1000 || COUNTDOWN_US);
    // the bar's fill is painted with the dots (it changes every frame; the SVG need not)
    countdown = expired ? 0 : Math.min(1, left / span);
    // The words change far less often than the frames come: they are made again only
    // when what they say changed (the countdown to the hundredth of a second).
    const refill = view.refill;
    const chance = view.chance === null ? null : Math.round(view.chance * 10_000);
    const key = [
      setupKey,
      entry ? `${entry.version} ${entry.expiry_us}` : "-",
      entry ? Math.floor(left / 10_000) : "",
      view.stale,
      view.lockHeld,
      chance,
      lane.waiting,
      lane.running.length,
      lane.queued.length,
      refill ? `${refill.lane} ${refill.at_us}` : "",
    ].join("|");
    if (key !== wordsKey) {
      wordsKey = key;
      writeWords(view, entry, left, expired);
    }
    paintDots(view);
  }

  let wordsKey = "";

  /**
   * The drawing's words and marks for what `view` shows.
   * @param {StageView} view
   * @param {CsEntry | null} entry
   * @param {number} left µs to its expiry
   * @param {boolean} expired
   */
  function writeWords(view, entry, left, expired) {
    const { snapshot, lane, refill } = view;
    const cardG = g.cache.select(".cs-card");
    flag(cardG, "is-expired", expired);
    flag(cardG, "is-stale", Boolean(view.stale));
    let first;
    let second = "";
    if (!entry) first = t("not in the cache: readers miss");
    else if (left > 0) {
      first = L.narrow ? t("expires in") : fmt(t("expires in %(time)s"), { time: seconds(left) });
      if (L.narrow) second = seconds(left);
    } else {
      first = L.narrow ? t("expired") : fmt(t("expired %(time)s ago"), { time: ms(-left) });
      if (L.narrow) second = t("readers miss");
    }
    if (!entry && L.narrow) {
      first = t("not cached");
      second = t("readers miss");
    }
    text(cardG.select(".cs-countdown"), first);
    text(cardG.select(".cs-countdown-2"), second);
    text(
      cardG.select(".cs-version"),
      entry
        ? view.stale
          ? fmt(t("version %(v)s, stale: the database has %(db)s"), { v: num(entry.version), db: num(view.stale) })
          : fmt(t("version %(v)s"), { v: num(entry.version) })
        : "",
    );
    // the lock, and what the strategy does on a miss
    const usesLock = strategy === "lock" || strategy === "xfetch_lock";
    const xfetch = strategy === "xfetch" || strategy === "xfetch_lock";
    const lock = g.cache.select(".cs-lock");
    attr(lock, "visibility", usesLock ? "visible" : "hidden");
    flag(lock, "is-held", Boolean(view.lockHeld));
    const lines = [];
    if (usesLock) {
      if (L.narrow) lines.push(view.lockHeld ? t("lock held") : t("lock free"));
      else lines.push(view.lockHeld ? t("lock: held, one reader refills") : t("lock: free"));
    } else lines.push(L.narrow ? t("no lock") : t("no lock: every miss queries"));
    if (xfetch) {
      lines.push(
        view.chance === null
          ? t("early refresh: nothing cached")
          : fmt(L.narrow ? t("early refresh: %(p)s") : t("chance a read refreshes early: %(p)s"), {
              p: view.chance < 0.0001 ? percent(0, 0) : percent(view.chance, view.chance < 0.01 ? 2 : view.chance < 0.1 ? 1 : 0),
            }),
      );
    }
    text(g.cache.select(".cs-line-1"), lines[0] ?? "");
    text(g.cache.select(".cs-line-2"), lines[1] ?? "");
    attr(g.cache.select(".cs-park"), "visibility", usesLock || lane.waiting ? "visible" : "hidden");
    text(
      g.cache.select(".cs-wait"),
      usesLock || lane.waiting
        ? L.narrow
          ? fmt(t("%(n)s waiting"), { n: num(lane.waiting) })
          : fmt(t("%(n)s waiting, looking every %(poll)s"), { n: num(lane.waiting), poll: ms(snapshot.model.poll_us) })
        : "",
    );
    // the database
    text(g.db.select(".cs-running"), fmt(t("%(n)s running"), { n: queries(lane.running.length) }));
    text(g.db.select(".cs-queued"), L.narrow ? fmt(t("%(n)s queued"), { n: num(lane.queued.length) }) : fmt(t(" · %(n)s queued"), { n: num(lane.queued.length) }));
    const count = g.db.select(".cs-db-count");
    attr(count, "data-running", lane.running.length);
    attr(count, "data-queued", lane.queued.length);
    const more = lane.queued.length - L.queue.max;
    text(g.db.select(".cs-queue-more"), more > 0 ? fmt(t("+%(n)s"), { n: num(more) }) : "");
    const refillLine = refill ? fmt(t("last refill: %(what)s"), { what: refillText(refill) }) : "";
    const refillEl = g.db.select(".cs-refill");
    text(refillEl, refillLine);
    attr(refillEl, "data-queries", refill ? refill.queries : null);
    attr(refillEl, "data-early-us", refill && refill.early ? refill.expiry_us - refill.started_us : null);
    flag(refillEl, "is-burst", Boolean(refill && refill.queries > 1));
  }

  // Each kind of dot drawn once per size and scale, then copied (drawImage).
  /** @type {Map<string, HTMLCanvasElement>} */
  const sprites = new Map();

  /**
   * The image of a dot of `kind`, `r` view box units, at `k` canvas pixels a unit.
   * @param {string} kind
   * @param {number} r
   * @param {number} k
   */
  function sprite(kind, r, k) {
    const key = `${kind} ${r.toFixed(2)} ${k.toFixed(3)}`;
    let image = sprites.get(key);
    if (!image) {
      if (sprites.size > 64) sprites.clear();
      image = document.createElement("canvas");
      const side = Math.ceil((2 * r + 6) * k);
      image.width = image.height = side;
      const pen = /** @type {CanvasRenderingContext2D} */ (image.getContext("2d"));
      pen.setTransform(k, 0, 0, k, side / 2, side / 2);
      drawShape(pen, kinds[kind] ?? kinds.miss, 0, 0, r);
      sprites.set(key, image);
    }
    return image;
  }

  /**
   * A board's code as an image, `size` units high, at `k` canvas pixels a unit.
   * @param {string} words
   * @param {number} size
   * @param {number} k
   */
  function word(words, size, k) {
    const key = `word ${words} ${size.toFixed(2)} ${k.toFixed(3)}`;
    let image = sprites.get(key);
    if (!image) {
      image = document.createElement("canvas");
      const pen = /** @type {CanvasRenderingContext2D} */ (image.getContext("2d"));
      const font = `600 ${size * k}px system-ui, sans-serif`;
      pen.font = font;
      image.width = Math.ceil(pen.measureText(words).width + 2);
      image.height = Math.ceil(size * k * 1.3);
      pen.font = font;
      pen.textBaseline = "middle";
      pen.fillStyle = "#1a1a1a";
      pen.fillText(words, 1, image.height / 2);
      sprites.set(key, image);
    }
    return image;
  }

  /**
   * The canvas: bars of the running queries, then every dot where it is.
   * @param {StageView} view
   */
  function paintDots(view) {
    const { time, hop, lane, reduced } = view;
    const k = scale * ratio;
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.clearRect(0, 0, canvas.width, canvas.height);
    ctx.setTransform(k, 0, 0, k, 0, 0);
    // the countdown bar's fill (its track and frame are SVG)
    const pad = L.narrow ? 7 : 10;
    const { card } = L;
    ctx.fillStyle = "#0072B2";
    ctx.fillRect(card.x + pad + 0.5, card.y + 50.5, Math.max(0, (card.w - 2 * pad - 1) * countdown), 10);
    const cells = slotCells(limit);
    const fontSize = Math.min(10, (cells[0]?.bh ?? 10) * 0.8);
    for (const d of lane.running) {
      const cell = cells[d.slot % cells.length];
      if (!cell) continue;
      const done = Math.max(0, Math.min(1, (time - (d.s ?? time)) / Math.max(1, (d.f ?? time) - (d.s ?? time))));
      ctx.fillStyle = d.kind === "early" ? "#b9e4d4" : "#f6c9a8";
      ctx.fillRect(cell.bx, cell.by, cell.bw * done, cell.bh);
      ctx.strokeStyle = d.kind === "early" ? "#009E73" : "#D55E00";
      ctx.lineWidth = 1;
      ctx.strokeRect(cell.bx + 0.5, cell.by + 0.5, Math.max(0, cell.bw * done - 1), cell.bh - 1);
      if (cell.bh >= 9 && cell.bw > 34) {
        const image = word(view.boardName(d.board), fontSize, k);
        ctx.drawImage(image, cell.bx + 4, cell.by + cell.bh / 2 - image.height / k / 2, image.width / k, image.height / k);
      }
    }
    /** @type {Map<Dot, number>} each queued dot's place in the queue */
    const ranks = new Map(lane.queued.map((d, i) => [d, i]));
    const tail = lane.queued.length;
    const r = L.dot;
    // what was drawn, in view box units, for the tests (never read by the page)
    /** @type {Spot[]} */
    const drawn = [];
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    for (const d of lane.dots) {
      const at = place(d, time, hop, ranks, tail, cells, view.orbit, reduced, view.fadeUs);
      if (!at) continue;
      const size = at.small ? Math.min(r, at.small) : r;
      const image = sprite(d.kind, size, k);
      ctx.globalAlpha = at.alpha;
      // a copy of the dot's pixels: far cheaper than filling and stroking its path
      ctx.drawImage(image, Math.round(at.x * k - image.width / 2), Math.round(at.y * k - image.height / 2));
      drawn.push(at);
    }
    ctx.globalAlpha = 1;
    ctx.setTransform(k, 0, 0, k, 0, 0);
    /** @type {any} */ (canvas).__drawn = drawn;
  }

  /**
   * Where a dot is at `time`: {x, y, alpha, small?} or null (not on the drawing). A hit
   * touches the board's left edge and goes back; a miss touches it, crosses the cache
   * under the board and goes on to the database, and comes back the same way; a reader
   * waiting for the lock circles under the board.
   * @param {Dot} d
   * @param {number} time
   * @param {number} hop
   * @param {Map<Dot, number>} ranks the queued dots' places in the queue
   * @param {number} tail how many are queued
   * @param {Cell[]} cells
   * @param {number} orbit
   * @param {boolean} reduced
   * @param {number} fadeUs
   * @returns {Spot | null}
   */
  function place(d, time, hop, ranks, tail, cells, orbit, reduced, fadeUs) {
    const { readers, card, park, queue, corridor } = L;
    const r = L.dot;
    // on a phone the readers' box is narrow: a dot starts in its middle, between the words
    const home = L.narrow
      ? { x: readers.x + readers.w / 2, y: readers.y + 78 + d.lane * (readers.h - 160) }
      : { x: readers.x + readers.w - 2, y: readers.y + 34 + d.lane * (readers.h - 44) };
    const touch = { x: card.x - r - 1, y: card.y + 8 + d.lane * (card.h - 16) };
    const under = { x: card.x + 4, y: corridor };
    const across = { x: card.x + card.w + 6, y: corridor };
    const side = { x: card.x - r - 1, y: park.y };
    const angle = orbit + d.lane * Math.PI * 2;
    const parked = { x: park.x + park.r * Math.cos(angle), y: park.y + park.r * Math.sin(angle) };
    const queueAt = (/** @type {number} */ rank) => ({ x: queue.x + Math.min(rank, queue.max) * queue.step, y: queue.y });
    const cell = cells[Math.max(0, d.slot) % Math.max(1, cells.length)];
    const slot = cell ? { x: cell.dotX, y: cell.dotY, small: cell.h * 0.42 } : queueAt(0);
    const at = (/** @type {{x: number, y: number, small?: number}} */ p, alpha = 1) => ({ x: p.x, y: p.y, alpha, small: p.small });
    const path = (/** @type {{x: number, y: number}[]} */ points, /** @type {number} */ f) => along(points, f);
    if (d.kind === "busy") {
      // refused at the database's door (its queue is full), and back
      const door = { x: L.db.x + 8, y: queue.y };
      if (reduced) return time >= d.a && time < d.a + fadeUs ? at(door, 1 - (time - d.a) / fadeUs) : null;
      if (time < d.a - hop) return null;
      if (time < d.a) return path([home, touch], 1 - (d.a - time) / hop);
      if (time < d.a + hop) return path([touch, under, across, door], (time - d.a) / hop);
      if (time < d.a + 3 * hop) return path([door, across, under, home], (time - d.a - hop) / (2 * hop));
      return null;
    }
    if (d.e === null) {
      const end = d.d ?? Infinity;
      if (reduced) {
        if (d.kind === "hit") return time >= d.a && time < d.a + fadeUs ? at(touch, 1 - (time - d.a) / fadeUs) : null;
        return time >= d.a && time < end ? at(parked) : null;
      }
      if (time < d.a - hop) return null;
      if (time < d.a) return path([home, touch], 1 - (d.a - time) / hop);
      if (d.kind === "hit") {
        if (time < end) return at(touch);
        if (time < end + hop) return path([touch, home], (time - end) / hop);
        return null;
      }
      // a reader that waits: from the board down to circle under it, and home at the end
      const settle = Math.min(hop / 2, Math.max(0, end - d.a) / 2);
      if (time < d.a + settle) return path([touch, side, parked], (time - d.a) / settle);
      if (time < end) return at(parked);
      if (time < end + hop) return path([parked, home], (time - end) / hop);
      return null;
    }
    const e = d.e;
    const f = d.f ?? Infinity;
    const queued = d.s === null || d.s > e;
    const rank = ranks.get(d);
    if (reduced) {
      if (time < d.a) return null;
      if (time < e) return d.a < e ? at(parked) : null;
      if (d.s === null || time < d.s) return at(queueAt(rank ?? tail));
      if (time < f) return at(slot);
      return null;
    }
    const reach = Math.min(d.a, e - hop);
    if (time < reach - hop) return null;
    if (time < reach) return path([home, touch], 1 - (reach - time) / hop);
    const waited = d.a < e - hop;
    if (time < e - hop) {
      const settle = Math.min(hop / 2, (e - hop - reach) / 2);
      if (time < reach + settle) return path([touch, side, parked], (time - reach) / settle);
      return at(parked);
    }
    const target = queued ? queueAt(tail) : slot;
    if (time < e) return path(waited ? [parked, across, target] : [touch, under, across, target], 1 - (e - time) / hop);
    if (d.s === null || time < d.s) return at(queueAt(rank ?? tail));
    if (time < f) {
      const move = Math.min(hop / 2, (f - d.s) / 2);
      if (queued && move > 0 && time < d.s + move) return path([queueAt(0), slot], (time - d.s) / move);
      return at(slot);
    }
    if (time < f + 2 * hop) return path([slot, across, under, home], (time - f) / (2 * hop));
    return null;
  }

  return {
    paint,
    /** @param {() => void} fn called after the drawing changed size */
    onResize(fn) {
      onResize = fn;
    },
    /** @param {string} words the drawing's spoken summary */
    describe(words) {
      svg.attr("aria-label", words);
    },
    element: svg.node(),
    destroy() {
      resize.disconnect();
      fitter.destroy();
      fit.remove();
    },
  };
}

/**
 * The point `f` (0..1, eased in and out) of the way along the line through `points`.
 * @param {{x: number, y: number}[]} points
 * @param {number} f
 */
function along(points, f) {
  const u = Math.max(0, Math.min(1, f));
  const eased = u < 0.5 ? 2 * u * u : 1 - (-2 * u + 2) ** 2 / 2;
  const lengths = points.slice(1).map((p, i) => Math.hypot(p.x - points[i].x, p.y - points[i].y));
  let left = eased * lengths.reduce((a, b) => a + b, 0);
  for (let i = 0; i < lengths.length; i += 1) {
    if (left <= lengths[i] || i === lengths.length - 1) {
      const k = lengths[i] ? Math.min(1, left / lengths[i]) : 1;
      const a = points[i];
      const b = points[i + 1];
      return { x: a.x + (b.x - a.x) * k, y: a.y + (b.y - a.y) * k, alpha: 1 };
    }
    left -= lengths[i];
  }
  return { ...points[points.length - 1], alpha: 1 };
}

/**
 * A dot of `style` at (x, y): solid, hollow (a white inside) or a cross.
 * @param {CanvasRenderingContext2D} ctx
 * @param {DotStyle} style
 * @param {number} x
 * @param {number} y
 * @param {number} r
 */
function drawShape(ctx, style, x, y, r) {
  if (style.shape === "cross") {
    ctx.strokeStyle = style.colour;
    ctx.lineWidth = 2.4;
    ctx.beginPath();
    ctx.moveTo(x - r, y - r);
    ctx.lineTo(x + r, y + r);
    ctx.moveTo(x + r, y - r);
    ctx.lineTo(x - r, y + r);
    ctx.stroke();
    return;
  }
  traceShape(ctx, style.shape, x, y, r);
  if (style.hollow) {
    ctx.fillStyle = "#ffffff";
    ctx.fill();
    ctx.strokeStyle = style.colour;
    ctx.lineWidth = 2;
    ctx.stroke();
  } else {
    ctx.fillStyle = style.colour;
    ctx.fill();
    ctx.strokeStyle = "#ffffff";
    ctx.lineWidth = 0.8;
    ctx.stroke();
  }
}

/**
 * The legend's mark of a kind, as an SVG path `d` (and whether it is hollow).
 * @param {DotStyle} style
 */
export function legendMark(style, r = 5) {
  if (style.shape === "cross") return `M${-r},${-r}L${r},${r}M${r},${-r}L${-r},${r}`;
  return shapePath(style.shape, r);
}
