/**
 * A bar filled to a fraction (the share of keys that moved): a scale, which the browser's
 * compositor animates on its own, not a width, which would lay the whole page out again
 * in every frame of the animation (and with it the cards' drawings).
 */

import { duration } from "../../motion.js";

const FILL_MS = 700; // as long as app.css eases the fill's width (which no longer moves)

/**
 * Drive the fill element `node` (full width, scaled): returns {to(fraction)}.
 * @param {HTMLElement} node
 */
export function createFill(node) {
  node.style.transition = "none";
  node.style.width = "100%";
  node.style.transformOrigin = "0 0";
  node.style.transform = "scaleX(0)";
  let shown = 0;
  /** @type {{ animation: Animation, from: number, to: number } | null} while it fills */
  let moving = null;
  return {
    /**
     * Fill to `fraction` (0..1) in 700 ms (as app.css eased the width).
     * @param {number} fraction
     */
    to(fraction) {
      const to = Math.min(1, Math.max(0, fraction));
      if (to === shown) return; // already there, or on its way
      // From where it is now (read off the animation: reading the element's transform
      // would lay the page out).
      let from = shown;
      if (moving) {
        const progress = moving.animation.effect?.getComputedTiming().progress;
        if (typeof progress === "number") from = moving.from + (moving.to - moving.from) * progress;
        moving.animation.cancel();
        moving = null;
      }
      shown = to;
      node.style.transform = `scaleX(${to})`;
      const ms = duration(FILL_MS);
      if (ms > 0 && from !== to) {
        const animation = node.animate(
          [{ transform: `scaleX(${from})` }, { transform: `scaleX(${to})` }],
          { duration: ms, easing: "ease" },
        );
        moving = { animation, from, to };
        animation.onfinish = () => {
          if (moving?.animation === animation) moving = null;
        };
      }
    },
  };
}
