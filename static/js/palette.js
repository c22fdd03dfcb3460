/**
 * Shard colours: Okabe-Ito (minus black) then Paul Tol's muted set, twelve hues that stay
 * distinct under the common colour-vision deficiencies. Colour is never the only cue: every
 * place that colours a shard also writes its letter.
 */

const SHARD_COLOURS = {
  A: "#0072B2", // blue
  B: "#E69F00", // orange
  C: "#009E73", // bluish green
  D: "#CC79A7", // reddish purple
  E: "#D55E00", // vermillion
  F: "#56B4E9", // sky blue
  G: "#F0E442", // yellow
  H: "#332288", // indigo
  I: "#999933", // olive
  J: "#882255", // wine
  K: "#44AA99", // teal
  L: "#CC6677", // rose
};

const FALLBACK = "#888888";

/**
 * The fill colour of a shard, by its letter.
 * @param {string} shard
 */
export function shardColour(shard) {
  return SHARD_COLOURS[/** @type {keyof typeof SHARD_COLOURS} */ (shard)] ?? FALLBACK;
}

/**
 * Dark or white text, whichever reads better on the shard's colour.
 * @param {string} shard
 */
export function inkOn(shard) {
  const hex = shardColour(shard).slice(1);
  const [r, g, b] = [0, 2, 4].map((i) => parseInt(hex.slice(i, i + 2), 16) / 255);
  const luminance = 0.2126 * r + 0.7152 * g + 0.0722 * b;
  return luminance > 0.45 ? "#1a1a1a" : "#ffffff";
}
