/**
 * Messages on the wire, painted on one canvas over the drawing: dots in flight (placed by
 * the virtual clock), dots held at a cut, and a short burst where a message was lost.
 * A canvas, not SVG circles: a couple of hundred moving SVG elements restyle and repaint
 * far too slowly in software-rendered Chromium (see docs/benchmarks.md, "Browser").
 * Each dot is copied from a sprite drawn once per style and size: without a GPU a path
 * filled and stroked costs about 10 µs a dot to rasterise, a copy of its pixels a fifth.
 * With motion reduced (prefers-reduced-motion) a message does not travel: it fades out
 * at its sender's end of the link over the first half of its flight and fades in at the
 * receiver's end over the second.
 */

import { reducedMotion } from "../motion.js";
import { HOLLOW_RIM, LOST_COLOUR, traceShape } from "./styles.js";
import { messagePath } from "./layout.js";

/** @import { MessagePath } from "./layout.js" */
/** @import { KindStyle, MessageLost, NetMessage, NetworkSnapshot, Point } from "./types.js" */

const DOT_RADIUS = 6;
const BURST_MS = 1400;
const HELD_GAP = 13;
const CAPTION_FONT = "600 11px system-ui, sans-serif";
const CAPTION_X = 9; // a caption's start, right of its dot's centre
const CAPTION_Y = 7; // its baseline, above the dot's centre
const CAPTION_TOP = CAPTION_Y + 11 + 3; // how far above the centre it can reach
const MAX_SPRITES = 600;
// With motion reduced: where along its link a message is shown (sender's end, receiver's
// end), and how faint it gets half-way, when it changes end (still seen to be on the wire).
const STILL_ENDS = [0.12, 0.88];
const STILL_FAINTEST = 0.2;

/**
 * Where a message `progress` (0..1) of the way through its flight is drawn along its link,
 * and how opaque: {along, alpha}. Moving, it travels; with motion reduced it fades out
 * at one end and in at the other.
 * @param {number} progress
 * @param {boolean} still
 * @returns {{along: number, alpha: number}}
 */
function flightPlace(progress, still) {
  if (!still) return { along: progress, alpha: 1 };
  const alpha = Math.max(STILL_FAINTEST, Math.abs(1 - 2 * progress));
  return { along: progress < 0.5 ? STILL_ENDS[0] : STILL_ENDS[1], alpha };
}

/**
 * A dot's image, drawn once per style and size; (x, y): where the dot's centre is in it.
 * @typedef {{image: HTMLCanvasElement, x: number, y: number}} Sprite
 */

/**
 * A message in flight, and what was worked out to draw it under layout `version`.
 * @typedef {{message: NetMessage,
 *   drawn: {version: number, path: MessagePath | null, image: Sprite | null} | null}} InFlight
 */

/**
 * Where a lost message died, and when (wall time) its burst began; `still`: motion reduced.
 * @typedef {Point & {born: number, still: boolean}} Burst
 */

/**
 * A painter over `canvas`; `styleOf(kind)` styles a dot, `labelOf(message)` may caption it.
 * @param {HTMLCanvasElement} canvas
 * @param {{styleOf: (kind: string) => KindStyle,
 *   labelOf?: ((message: NetMessage) => string | null) | null,
 *   cutPoint: (from: string, to: string, offset: number) => Point | null}} options
 */
export function createMessageLayer(canvas, { styleOf, labelOf = null, cutPoint }) {
  const ctx = /** @type {CanvasRenderingContext2D} */ (canvas.getContext("2d"));
  /** @type {InFlight[]} */
  let inFlight = []; // [{message, drawn}]: drawn = {version, path, image} once painted
  let version = 0; // the layout's; what was worked out for a message under another is redone
  /** @type {NetMessage[]} */
  let held = [];
  /** @type {Burst[]} */
  let bursts = [];
  /** @type {Map<string, Point>} */
  let positions = new Map();
  let scale = 1;
  let ratio = 0; // canvas pixels per CSS pixel; 0: not known yet (read from the canvas)
  /** @type {Map<string, MessagePath>} */
  let paths = new Map(); // "from>to" → path, rebuilt when the layout changes
  /** @type {Map<string, Sprite>} */
  let sprites = new Map(); // "shape colour outline width caption" → drawn at this size

  /**
   * @param {string} from
   * @param {string} to
   * @returns {MessagePath | null}
   */
  function pathFor(from, to) {
    const key = `${from}>${to}`;
    let path = paths.get(key);
    if (!path) {
      const a = positions.get(from);
      const b = positions.get(to);
      if (!a || !b) return null;
      path = messagePath(a, b);
      paths.set(key, path);
    }
    return path;
  }

  /**
   * The dot of `style` (and outline), with its caption `text` if any, drawn once at `k`
   * canvas pixels per unit; `x`, `y` are where the dot's centre falls in the image.
   * @param {KindStyle} style
   * @param {string} outline
   * @param {number} width
   * @param {string} text
   * @param {number} k
   * @returns {Sprite}
   */
  function sprite(style, outline, width, text, k) {
    const key = `${style.shape} ${style.hollow} ${style.colour} ${outline} ${width} ${text}`;
    let found = sprites.get(key);
    if (!found) {
      if (sprites.size >= MAX_SPRITES) sprites.clear();
      // room for the largest shape (the diamond reaches 1.15 r) and half the outline,
      // and for the caption up and to the right of the dot
      const reach = DOT_RADIUS * 1.15 + width / 2;
      const image = document.createElement("canvas");
      const c = /** @type {CanvasRenderingContext2D} */ (image.getContext("2d"));
      c.font = CAPTION_FONT;
      const right = text ? Math.max(reach, CAPTION_X + c.measureText(text).width + 2) : reach;
      const x = Math.ceil(reach * k) + 1;
      const y = Math.ceil((text ? CAPTION_TOP : reach) * k) + 1;
      image.width = x + Math.ceil(right * k) + 1;
      image.height = y + Math.ceil(reach * k) + 1;
      c.setTransform(k, 0, 0, k, x, y);
      traceShape(c, style.shape, 0, 0, DOT_RADIUS);
      c.fillStyle = style.colour;
      c.fill();
      c.lineWidth = width;
      c.strokeStyle = outline;
      c.stroke();
      if (style.hollow) {
        // a white inside within a rim of the colour (the outline stays around it)
        traceShape(c, style.shape, 0, 0, DOT_RADIUS - HOLLOW_RIM);
        c.fillStyle = "#ffffff";
        c.fill();
      }
      if (text) caption(c, text, 0, 0);
      found = { image, x, y };
      sprites.set(key, found);
    }
    return found;
  }

  /**
   * A dot (and caption) at (x, y) in user units, copied from its sprite.
   * @param {number} x
   * @param {number} y
   * @param {KindStyle} style
   * @param {number} k
   * @param {{text?: string, outline?: string, width?: number}} [look]
   */
  function dot(x, y, style, k, { text = "", outline = "#ffffff", width = 1.5 } = {}) {
    const image = sprite(style, outline, width, text, k);
    ctx.drawImage(image.image, Math.round(x * k) - image.x, Math.round(y * k) - image.y);
  }

  /**
   * @param {CanvasRenderingContext2D} c
   * @param {string} text
   * @param {number} x
   * @param {number} y
   */
  function caption(c, text, x, y) {
    c.font = CAPTION_FONT;
    c.lineWidth = 3;
    c.strokeStyle = "#ffffff";
    c.strokeText(text, x + CAPTION_X, y - CAPTION_Y);
    c.fillStyle = "#1b1f24";
    c.fillText(text, x + CAPTION_X, y - CAPTION_Y);
  }

  /**
   * @param {Burst} burst
   * @param {number} now
   */
  function drawBurst(burst, now) {
    const age = Math.min(1, (now - burst.born) / BURST_MS);
    const { x, y } = burst;
    ctx.globalAlpha = 1 - age * 0.85;
    ctx.strokeStyle = LOST_COLOUR;
    ctx.lineWidth = 3;
    const s = 7;
    ctx.beginPath();
    ctx.moveTo(x - s, y - s);
    ctx.lineTo(x + s, y + s);
    ctx.moveTo(x + s, y - s);
    ctx.lineTo(x - s, y + s);
    ctx.stroke();
    ctx.lineWidth = 1.5;
    ctx.beginPath();
    ctx.arc(x, y, 8 + age * 14, 0, 2 * Math.PI);
    ctx.stroke();
    ctx.globalAlpha = 1;
  }

  return {
    /**
     * New positions (a Map id → {x, y}), the viewBox→CSS pixel scale and the canvas
     * pixels per CSS pixel (else read from the canvas's size at the next paint).
     * @param {Map<string, Point>} nextPositions
     * @param {number} nextScale
     * @param {number} [nextRatio]
     */
    layout(nextPositions, nextScale, nextRatio = 0) {
      positions = nextPositions;
      scale = nextScale;
      ratio = nextRatio;
      paths = new Map();
      sprites = new Map();
      version += 1;
    },
    /**
     * What is on the wire now, from the network snapshot.
     * @param {Partial<NetworkSnapshot> | null | undefined} network
     */
    set(network) {
      inFlight = (network?.in_flight ?? []).map((message) => ({ message, drawn: null }));
      held = network?.held ?? [];
    },
    /**
     * A message died: a burst where it was at `at_ms` (progress along its flight).
     * @param {MessageLost} event
     * @param {boolean} reducedMotion
     */
    lost(event, reducedMotion) {
      const path = pathFor(event.from, event.to);
      if (!path) return;
      const span = event.arrive_ms - event.sent_ms;
      const raw = span > 0 ? (event.at_ms - event.sent_ms) / span : 0;
      const where = event.reason === "node_down" ? 1 : Math.min(1, Math.max(0.12, raw));
      bursts.push({ ...path.at(where), born: performance.now(), still: reducedMotion });
    },
    /** Whether anything is still animating on its own (a burst fading). */
    get busy() {
      return bursts.length > 0;
    },
    get counts() {
      return { inFlight: inFlight.length, held: held.length, bursts: bursts.length };
    },
    /**
     * Paint everything at virtual time `vt` (and wall time `now` for bursts).
     * @param {number} vt
     * @param {number} [now]
     */
    paint(vt, now = performance.now()) {
      // (reading the canvas's CSS width would lay the page out if anything changed)
      if (!ratio) ratio = canvas.width / Math.max(1, canvas.clientWidth || 1);
      const k = scale * ratio;
      ctx.setTransform(1, 0, 0, 1, 0, 0);
      ctx.clearRect(0, 0, canvas.width, canvas.height);
      const still = reducedMotion();
      // (a message's path and sprite are worked out once, not in every frame)
      for (const entry of inFlight) {
        const { message } = entry;
        if (entry.drawn?.version !== version) {
          const path = pathFor(message.from, message.to);
          const text = labelOf?.(message) ?? "";
          const image = path && sprite(styleOf(message.kind), "#ffffff", 1.5, text, k);
          entry.drawn = { version, path, image };
        }
        const { path, image } = entry.drawn;
        if (!path || !image) continue;
        const span = message.arrive_ms - message.sent_ms;
        const progress = span > 0 ? Math.min(1, Math.max(0, (vt - message.sent_ms) / span)) : 1;
        const { along, alpha } = flightPlace(progress, still);
        const x = path.x0 + path.dx * along;
        const y = path.y0 + path.dy * along;
        if (still) ctx.globalAlpha = alpha;
        ctx.drawImage(image.image, Math.round(x * k) - image.x, Math.round(y * k) - image.y);
      }
      if (still) ctx.globalAlpha = 1;
      const stacked = new Map();
      for (const message of held) {
        const key = `${message.from}>${message.to}`;
        const index = stacked.get(key) ?? 0;
        stacked.set(key, index + 1);
        const point = cutPoint(message.from, message.to, index * HELD_GAP);
        if (!point) continue;
        dot(point.x, point.y, styleOf(message.kind), k, { outline: "#1b1f24", width: 2.2 });
      }
      ctx.setTransform(k, 0, 0, k, 0, 0);
      bursts = bursts.filter((b) => now - b.born < BURST_MS);
      for (const burst of bursts) drawBurst(burst.still ? { ...burst, born: now } : burst, now);
    },
    clear() {
      inFlight = [];
      held = [];
      bursts = [];
      ctx.setTransform(1, 0, 0, 1, 0, 0);
      ctx.clearRect(0, 0, canvas.width, canvas.height);
    },
  };
}
