/**
 * A card's key dots, painted on a canvas laid over the SVG, at rest and while a change
 * plays: every dot is drawn here, in one requestAnimationFrame callback, the dots at rest
 * once into a base image and the moving ones over it each frame. Software rendering
 * cannot restyle, lay out and repaint hundreds of SVG circles sixty times a second; it can
 * redraw one canvas. The SVG circles stay the keyed record of every dot (data, title,
 * class), in an inert template (card.js), never rendered: nothing written to them costs
 * style, layout or paint, not even when a new view box rescales the drawing (hover.js
 * gives the pointer the ring dots' titles). A moving dot's circle is written once, when
 * the last motion of the card has ended, and the canvas draws the card at rest in that
 * same frame.
 */

import d3 from "d3";
import { copyRows, createPixels, drawDot } from "./raster.js";

/** @import { Pixels } from "./raster.js" */
/** @import { DotNode, DotState, Motion, PaintedDot, RGB, RestingDot } from "./types.js" */

/** @typedef {{ y0: number, y1: number }} Rows a band of pixel rows, both ends included */

/** @typedef {ReturnType<typeof createPainter>} Painter */

// The dots' outline: white, and dark for a key that moved in the last change (the
// legend's dots, app.css .legend-dot, show the same two).
const RIM = d3.rgb("#ffffff");
const MOVED_RIM = d3.rgb("#1b1f24");
const MOVED_RIM_WIDTH = 1.1;
// Dots in motion need no more pixels than this per CSS pixel.
const MAX_RATIO = 2;
// Moving dots are drawn in this order: ring dots, bin dots, flying bin dots.
const LAYERS = 3;

/**
 * A canvas over `figure` whose user units are the SVGs' (`width` across), drawing the
 * circles of `groups` ([{node, rim}]: SVG groups in drawing order, and the outline width
 * of their dots). Returns
 * {animate, drawn, stop, refresh, fit, destroy}; `figure.__painting` is true while dots
 * move.
 * @param {HTMLElement & { __painting?: boolean }} figure
 * @param {number} width
 * @param {{ node: SVGGElement, rim: number }[]} groups
 */
export function createPainter(figure, width, groups) {
  const canvas = document.createElement("canvas");
  canvas.className = "card-canvas";
  canvas.setAttribute("aria-hidden", "true");
  figure.append(canvas);
  const context = /** @type {CanvasRenderingContext2D} */ (canvas.getContext("2d"));
  /** @type {Map<DotNode, Motion & { start: number }>} */
  const motions = new Map();
  /** @type {Pixels | null} the dots at rest */
  let base = null;
  /** @type {Pixels | null} base + the moving dots, as on the canvas (made with base) */
  let work = null;
  let stale = true;
  let scale = 1;
  /** @type {{ width: number, height: number } | null} the figure's size, in CSS pixels */
  let box = null;
  let frame = 0;
  const observer = new ResizeObserver(([entry]) => {
    box = entry.contentRect;
    if (base && base.width === pixelsAcross() && base.height === pixelsDown()) return;
    base = null;
    request();
  });
  observer.observe(figure);

  /**
   * Play `motion` on the SVG circle `node`: {end (ms), layer (0..2), rim (outline width),
   * state(ms) → {x, y, r, fill: {r, g, b}, alpha (1 if left out)}, done(node) writing
   * the final state}, and
   * optionally `moved(ms)` (else the node's class says whether it is outlined as moved)
   * and `track` (keep `node.__pos`). Replaces any motion `node` had; with `end` 0
   * (reduced motion) the dot goes straight to the end.
   * @param {DotNode} node
   * @param {Motion} motion
   */
  function animate(node, motion) {
    if (motion.end <= 0) {
      stop(node);
      motion.done(node);
      return;
    }
    motions.set(node, { ...motion, start: performance.now() });
    stale = true;
    request();
  }

  /**
   * How `node` is drawn now, {x, y, r, fill: {r, g, b}}: as last painted, or at rest.
   * @param {DotNode} node
   * @returns {RestingDot}
   */
  function drawn(node) {
    return (motions.has(node) && node.__drawn) || node.__rest || readDot(node);
  }

  /**
   * Forget `node`'s motion (the caller writes where it is now).
   * @param {DotNode} node
   */
  function stop(node) {
    if (!motions.delete(node)) return;
    node.__drawn = null;
    stale = true;
  }

  /**
   * The SVGs are about to be `height` user units tall: size the canvas for that now, not
   * when the ResizeObserver says so after the next paint (which would paint every dot
   * twice, once at the old size and once at the new, and lay the card out once more).
   * @param {number} height
   */
  function fit(height) {
    if (!box || !box.width) return;
    box = { width: box.width, height: (box.width * height) / width };
    if (base && base.width === pixelsAcross() && base.height === pixelsDown()) return;
    // A canvas of a new size lays the card out again: resized now, with the SVGs, it costs
    // one layout, not one more in the next frame. It is drawn at once at its new size: a
    // frame of the old image stretched to the new box would show.
    resize();
    if (base) {
      drawResting();
      context.putImageData(base.image, 0, 0);
      stale = true;
    }
    request();
  }

  /** The SVG circles changed: draw the dots at rest afresh (in the next frame). */
  function refresh() {
    stale = true;
    request();
  }

  function request() {
    if (!frame) frame = requestAnimationFrame(paint);
  }

  /** @param {number} now the frame's time */
  function paint(now) {
    frame = 0;
    if (!base) resize();
    /** @type {PaintedDot[]} */
    const dots = [];
    let moving = 0;
    /** @type {Rows | null} the rows of pixels that change this frame */
    let dirty = null;
    for (const [node, motion] of motions) {
      const ms = Math.min(motion.end, Math.max(0, now - motion.start));
      if (ms < motion.end) moving += 1;
      /** @type {PaintedDot} */
      const dot = {
        alpha: 1,
        ...motion.state(ms),
        moved: motion.moved ? motion.moved(ms) : node.classList.contains("moved"),
        rim: motion.rim,
        layer: motion.layer,
      };
      const before = node.__drawn;
      if (!before || !same(before, dot)) dirty = rowsOf(dot, rowsOf(before, dirty));
      node.__drawn = dot;
      if (motion.track) node.__pos = { x: dot.x, y: dot.y };
      dots.push(dot);
    }
    // Dots that have arrived wait on the canvas until the last one has: their circles are
    // then written in one go, and the card at rest drawn once. (With no room to draw in,
    // the circles are written at once; the canvas draws them when it has a size.)
    // (work is made with base: neither is null past this)
    if (!moving || !base || !work) {
      settle();
      return;
    }
    figure.__painting = true;
    if (stale) {
      drawResting();
      dirty = { y0: 0, y1: work.height - 1 };
    }
    // Only the rows where a dot moved are drawn again (none while every dot waits).
    if (dirty) {
      copyRows(base, work, dirty);
      for (let layer = 0; layer < LAYERS; layer += 1) {
        for (const dot of dots) if (dot.layer === layer) paintDot(work, dot, dot.rim, dirty);
      }
      const { y0, y1 } = dirty;
      context.putImageData(work.image, 0, 0, 0, y0, work.width, y1 - y0 + 1);
    }
    request();
  }

  /**
   * The rows `dot` covers (with its outline and anti-aliasing) added to `rows`.
   * @param {DotState | null | undefined} dot
   * @param {Rows | null} rows
   * @returns {Rows | null}
   */
  function rowsOf(dot, rows) {
    if (!dot || !work) return rows;
    const reach = (dot.r + MOVED_RIM_WIDTH) * scale + 1;
    const y0 = Math.max(0, Math.floor(dot.y * scale - reach));
    const y1 = Math.min(work.height - 1, Math.ceil(dot.y * scale + reach));
    if (!rows) return { y0, y1 };
    return { y0: Math.min(rows.y0, y0), y1: Math.max(rows.y1, y1) };
  }

  /** Every dot at rest into `base`, and a copy into `work` (both there: called once they are). */
  function drawResting() {
    stale = false;
    /** @type {Pixels} */ (base).words.fill(0);
    for (const { node, rim } of groups) {
      for (const circle of /** @type {HTMLCollectionOf<DotNode>} */ (node.children)) {
        if (motions.has(circle)) continue;
        paintDot(/** @type {Pixels} */ (base), circle.__rest ?? readDot(circle), rim);
      }
    }
    /** @type {Pixels} */ (work).words.set(/** @type {Pixels} */ (base).words);
  }

  /**
   * @param {Pixels} pixels
   * @param {RestingDot} dot
   * @param {number} rim the outline's width, when not outlined as moved
   * @param {Rows | null} [rows] only these rows
   */
  function paintDot(pixels, { x, y, r, fill, moved: outlined, alpha = 1 }, rim, rows = null) {
    const line = outlined ? MOVED_RIM_WIDTH : rim;
    const colour = outlined ? MOVED_RIM : RIM;
    drawDot(pixels, x * scale, y * scale, r * scale, fill, line * scale, colour, rows, alpha);
  }

  /** Write every moving dot's circle where its motion ends, and draw the card at rest. */
  function settle() {
    for (const [node, motion] of [...motions]) {
      stop(node);
      motion.done(node);
    }
    figure.__painting = false;
    if (!base || !stale) return;
    drawResting();
    context.putImageData(base.image, 0, 0);
  }

  function ratio() {
    return Math.min(MAX_RATIO, globalThis.devicePixelRatio || 1);
  }

  // (these two are asked once the figure has a size: `box` is there)
  function pixelsAcross() {
    return Math.max(1, Math.round(/** @type {{ width: number }} */ (box).width * ratio()));
  }

  function pixelsDown() {
    return Math.max(1, Math.round(/** @type {{ height: number }} */ (box).height * ratio()));
  }

  function resize() {
    if (!box || !box.width) return;
    const w = pixelsAcross();
    const h = pixelsDown();
    canvas.width = w;
    canvas.height = h;
    scale = w / width;
    base = createPixels(context.createImageData(w, h));
    work = createPixels(context.createImageData(w, h));
    stale = true;
  }

  return {
    animate,
    drawn,
    stop,
    refresh,
    fit,
    destroy() {
      cancelAnimationFrame(frame);
      frame = 0;
      observer.disconnect();
      motions.clear();
      canvas.remove();
    },
  };
}

/**
 * Note how the circle `node` is drawn at rest (`x`, `y`, `r`, CSS `colour`, `moved`), so
 * that a canvas can draw it without reading the DOM. Whoever writes a dot's circle says so.
 * @param {DotNode} node
 * @param {{ x: number, y: number, r: number, colour: string, moved: boolean }} rest
 */
export function remember(node, { x, y, r, colour, moved }) {
  node.__rest = { x, y, r, fill: rgbOf(colour), moved };
}

/**
 * The circle's outline class changed (the keys that moved in the last change).
 * @param {DotNode} node
 * @param {boolean} moved
 */
export function rememberMoved(node, moved) {
  if (node.__rest) node.__rest.moved = moved;
}

/**
 * True when two painted dots look the same.
 * @param {PaintedDot} a
 * @param {PaintedDot} b
 */
function same(a, b) {
  const f = a.fill;
  const g = b.fill;
  return (
    a.x === b.x &&
    a.y === b.y &&
    a.r === b.r &&
    a.moved === b.moved &&
    a.alpha === b.alpha &&
    (f === g || (f.r === g.r && f.g === g.g && f.b === g.b))
  );
}

/**
 * How a circle is drawn, read off its attributes.
 * @param {Element} circle
 * @returns {RestingDot}
 */
function readDot(circle) {
  const number = (/** @type {string} */ name) => Number(circle.getAttribute(name));
  return {
    x: number("cx"),
    y: number("cy"),
    r: number("r"),
    fill: rgbOf(/** @type {string} */ (circle.getAttribute("fill"))), // (every dot's is written)
    moved: circle.classList.contains("moved"),
  };
}

/** @type {Map<string, RGB>} */
const colours = new Map();

/**
 * A CSS colour as {r, g, b} (remembered: shard colours are few).
 * @param {string} colour
 * @returns {RGB}
 */
export function rgbOf(colour) {
  let rgb = colours.get(colour);
  if (!rgb) {
    const c = d3.rgb(colour);
    rgb = { r: c.r, g: c.g, b: c.b };
    colours.set(colour, rgb);
  }
  return rgb;
}

/**
 * Between two {r, g, b} colours, `e` of the way (0..1).
 * @param {RGB} a
 * @param {RGB} b
 * @param {number} e
 * @returns {RGB}
 */
export function mix(a, b, e) {
  if (e <= 0 || a === b) return a;
  if (e >= 1) return b;
  return { r: a.r + (b.r - a.r) * e, g: a.g + (b.g - a.g) * e, b: a.b + (b.b - a.b) * e };
}

/**
 * A colour `ms` into a change from `from` to `to` that starts at `start` and lasts `span`.
 * @param {RGB} from
 * @param {RGB} to
 * @param {number} ms
 * @param {number} start
 * @param {number} span
 */
export function colourAt(from, to, ms, start, span) {
  if (ms <= start) return from;
  if (ms >= start + span) return to;
  return mix(from, to, d3.easeCubicInOut((ms - start) / span));
}
