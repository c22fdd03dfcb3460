/**
 * How a message kind looks: a colour, a shape and a fill (solid, or `hollow`: a white
 * inside and a thick rim in the colour), so that no two kinds of a lab differ by colour
 * alone. A lab passes its own `{kind: {label, colour, shape, hollow?}}`; unknown kinds get
 * a stable style from their name.
 */

import { t } from "../i18n.js";

/** @import { KindStyle, LegendEntry } from "./types.js" */

export const SHAPES = ["circle", "square", "diamond", "triangle", "hexagon"];
export const HOLLOW_RIM = 2.2; // a hollow shape's rim, in the drawing's units
// Okabe-Ito, dark enough to read as a dot on white
const COLOURS = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#332288", "#882255"];

export const LOST_COLOUR = "#a3161a";

/**
 * A style lookup: `styleOf(kind) → {label, colour, shape}`; what a lab's `kinds` leave
 * out of a kind's style is filled in.
 * @param {Record<string, Partial<KindStyle>>} [kinds]
 * @returns {(kind: string) => KindStyle}
 */
export function createKindStyles(kinds = {}) {
  /** @type {Map<string, KindStyle>} */
  const cache = new Map();
  return function styleOf(kind) {
    if (kinds[kind]) {
      return { label: kind, colour: COLOURS[0], shape: "circle", hollow: false, ...kinds[kind] };
    }
    if (!cache.has(kind)) {
      const hash = stableHash(String(kind));
      cache.set(kind, {
        label: kind,
        colour: COLOURS[hash % COLOURS.length],
        shape: SHAPES[Math.floor(hash / COLOURS.length) % SHAPES.length],
        hollow: Math.floor(hash / COLOURS.length / SHAPES.length) % 2 === 1,
      });
    }
    return /** @type {KindStyle} */ (cache.get(kind));
  };
}

/** @param {string} text */
function stableHash(text) {
  let hash = 2166136261;
  for (let i = 0; i < text.length; i += 1) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 16777619) >>> 0;
  }
  return hash;
}

/**
 * Trace `shape` of radius `r` at (x, y) on a canvas context (then fill/stroke it).
 * @param {CanvasRenderingContext2D} ctx
 * @param {string} shape
 * @param {number} x
 * @param {number} y
 * @param {number} r
 */
export function traceShape(ctx, shape, x, y, r) {
  ctx.beginPath();
  if (shape === "square") {
    ctx.rect(x - r * 0.85, y - r * 0.85, r * 1.7, r * 1.7);
  } else if (shape === "diamond") {
    ctx.moveTo(x, y - r * 1.15);
    ctx.lineTo(x + r * 1.15, y);
    ctx.lineTo(x, y + r * 1.15);
    ctx.lineTo(x - r * 1.15, y);
    ctx.closePath();
  } else if (shape === "triangle") {
    ctx.moveTo(x, y - r * 1.15);
    ctx.lineTo(x + r * 1.05, y + r * 0.75);
    ctx.lineTo(x - r * 1.05, y + r * 0.75);
    ctx.closePath();
  } else if (shape === "hexagon") {
    for (const [dx, dy] of hexagon(r)) ctx.lineTo(x + dx, y + dy);
    ctx.closePath();
  } else {
    ctx.arc(x, y, r, 0, 2 * Math.PI);
  }
}

/**
 * The same shape as an SVG path `d` centred on 0,0 (for the legend).
 * @param {string} shape
 * @param {number} r
 * @returns {string}
 */
export function shapePath(shape, r) {
  if (shape === "square") {
    const s = r * 0.85;
    return `M${-s},${-s}H${s}V${s}H${-s}Z`;
  }
  if (shape === "diamond") {
    const s = r * 1.15;
    return `M0,${-s}L${s},0L0,${s}L${-s},0Z`;
  }
  if (shape === "triangle") {
    return `M0,${-r * 1.15}L${r * 1.05},${r * 0.75}L${-r * 1.05},${r * 0.75}Z`;
  }
  if (shape === "hexagon") {
    return `M${hexagon(r)
      .map(([x, y]) => `${x.toFixed(2)},${y.toFixed(2)}`)
      .join("L")}Z`;
  }
  return `M${r},0A${r},${r} 0 1,1 ${-r},0A${r},${r} 0 1,1 ${r},0Z`;
}

/**
 * Legend entries for the kinds in `kinds` (declared first, then those seen), plus lost/held.
 * @param {(kind: string) => KindStyle} styleOf
 * @param {Record<string, unknown>} declared
 * @param {string[]} seen
 * @param {{held?: boolean}} [options]
 * @returns {LegendEntry[]}
 */
export function legendEntries(styleOf, declared, seen, { held = false } = {}) {
  const names = [...Object.keys(declared)];
  for (const kind of seen) if (!names.includes(kind)) names.push(kind);
  const entries = names.map((kind) => ({ key: `kind:${kind}`, ...styleOf(kind) }));
  entries.push({ key: "lost", label: t("lost"), colour: LOST_COLOUR, shape: "cross" });
  if (held)
    entries.push({ key: "held", label: t("held at a cut"), colour: "#4a525c", shape: "held" });
  return entries;
}

/**
 * A hexagon's corners around 0,0, flat side up, as wide as a circle of radius `r`.
 * @param {number} r
 * @returns {[number, number][]}
 */
function hexagon(r) {
  const s = r * 1.08;
  return [0, 1, 2, 3, 4, 5].map((i) => {
    const a = (Math.PI / 3) * i;
    return [s * Math.cos(a), s * Math.sin(a)];
  });
}
