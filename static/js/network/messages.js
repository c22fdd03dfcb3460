/**
 * Messages on the wire, painted on one canvas over the drawing: dots in flight (placed by
 * the virtual clock), dots held at a cut, and a short burst where a message was lost.
 * A canvas, not SVG circles: a couple of hundred moving SVG elements restyle and repaint
 * far too slowly in software-rendered Chromium (see docs/benchmarks.md, "Browser").
 */

import { LOST_COLOUR, traceShape } from "./styles.js";
import { messagePath } from "./layout.js";

const DOT_RADIUS = 6;
const BURST_MS = 1400;
const HELD_GAP = 13;

/**
 * A painter over `canvas`; `styleOf(kind)` styles a dot, `labelOf(message)` may caption it.
 * @param {HTMLCanvasElement} canvas
 * @param {{styleOf: (kind: string) => {colour: string, shape: string},
 *   labelOf?: ((message: any) => string | null) | null,
 *   cutPoint: (from: string, to: string, offset: number) => {x: number, y: number} | null}} options
 */
export function createMessageLayer(canvas, { styleOf, labelOf = null, cutPoint }) {
  const ctx = /** @type {CanvasRenderingContext2D} */ (canvas.getContext("2d"));
  let inFlight = [];
  let held = [];
  let bursts = [];
  let positions = new Map();
  let scale = 1;
  let paths = new Map(); // "from>to" → path, rebuilt when the layout changes

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

  function dot(x, y, style, { outline = "#ffffff", width = 1.5 } = {}) {
    traceShape(ctx, style.shape, x, y, DOT_RADIUS);
    ctx.fillStyle = style.colour;
    ctx.fill();
    ctx.lineWidth = width;
    ctx.strokeStyle = outline;
    ctx.stroke();
  }

  function caption(message, x, y) {
    const text = labelOf?.(message);
    if (!text) return;
    ctx.font = "600 11px system-ui, sans-serif";
    ctx.lineWidth = 3;
    ctx.strokeStyle = "#ffffff";
    ctx.strokeText(text, x + 9, y - 7);
    ctx.fillStyle = "#1b1f24";
    ctx.fillText(text, x + 9, y - 7);
  }

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
    /** New positions (a Map id → {x, y}) and the viewBox→pixel scale. */
    layout(nextPositions, nextScale) {
      positions = nextPositions;
      scale = nextScale;
      paths = new Map();
    },
    /** What is on the wire now, from the network snapshot. */
    set(network) {
      inFlight = network?.in_flight ?? [];
      held = network?.held ?? [];
    },
    /** A message died: a burst where it was at `at_ms` (progress along its flight). */
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
    /** Paint everything at virtual time `vt` (and wall time `now` for bursts). */
    paint(vt, now = performance.now()) {
      const dpr = canvas.width / Math.max(1, canvas.clientWidth || 1);
      ctx.setTransform(1, 0, 0, 1, 0, 0);
      ctx.clearRect(0, 0, canvas.width, canvas.height);
      ctx.setTransform(scale * dpr, 0, 0, scale * dpr, 0, 0);
      for (const message of inFlight) {
        const path = pathFor(message.from, message.to);
        if (!path) continue;
        const span = message.arrive_ms - message.sent_ms;
        const progress = span > 0 ? Math.min(1, Math.max(0, (vt - message.sent_ms) / span)) : 1;
        const x = path.x0 + path.dx * progress;
        const y = path.y0 + path.dy * progress;
        dot(x, y, styleOf(message.kind));
        caption(message, x, y);
      }
      const stacked = new Map();
      for (const message of held) {
        const key = `${message.from}>${message.to}`;
        const index = stacked.get(key) ?? 0;
        stacked.set(key, index + 1);
        const point = cutPoint(message.from, message.to, index * HELD_GAP);
        if (!point) continue;
        dot(point.x, point.y, styleOf(message.kind), { outline: "#1b1f24", width: 2.2 });
      }
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
