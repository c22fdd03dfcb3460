/** Animation timing that respects the visitor's prefers-reduced-motion setting. */

const query = globalThis.matchMedia?.("(prefers-reduced-motion: reduce)");

/** True when the visitor asked for less motion. */
export function reducedMotion() {
  return Boolean(query?.matches);
}

/**
 * How long a fade lasts where a flight would be, when motion is reduced: a key that moves
 * fades out where it was and in where it lands, and never crosses the drawing.
 */
export const FADE_MS = 600;

/**
 * `ms`, or 0 when motion is reduced: transitions then jump straight to their end.
 * @param {number} ms
 */
export function duration(ms) {
  return reducedMotion() ? 0 : ms;
}
