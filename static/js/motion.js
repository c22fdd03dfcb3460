/** Animation timing that respects the visitor's prefers-reduced-motion setting. */

const query = globalThis.matchMedia?.("(prefers-reduced-motion: reduce)");

/** True when the visitor asked for less motion. */
export function reducedMotion() {
  return Boolean(query?.matches);
}

/** `ms`, or 0 when motion is reduced: transitions then jump straight to their end. */
export function duration(ms) {
  return reducedMotion() ? 0 : ms;
}
