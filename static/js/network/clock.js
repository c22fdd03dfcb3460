/**
 * The virtual clock between server frames. Frames carry the lab's time (`t_ms`); while the
 * lab plays, the browser runs the clock on between them at `speed` virtual milliseconds per
 * real second, but never past the next scheduled event: a message waits at its destination
 * until the server says it arrived. Paused, the clock reads the server's time exactly.
 */

/** @import { Playback } from "../types.js" */

/**
 * A clock fed by `sync(playback, t_ms)` and read by `now()` in virtual milliseconds.
 * @param {{extrapolate?: boolean}} [options] false: never run on between frames
 */
export function createVirtualClock({ extrapolate = true } = {}) {
  let base = 0; // the server's time at the last frame
  let wall = 0; // performance.now() when that frame arrived
  let floor = 0; // never draw earlier than what is already on screen while playing
  let playing = false;
  let speed = 0;
  /** @type {number | null} */
  let due = null;
  let last = 0;

  return {
    /**
     * Take the server's clock from a snapshot's `playback` (and the frame's `t_ms`).
     * @param {Partial<Playback>} [playback]
     * @param {number} [tMs]
     */
    sync(playback = {}, tMs = undefined) {
      const now = typeof tMs === "number" && Number.isFinite(tMs) ? tMs : (playback.now_ms ?? 0);
      playing = Boolean(playback.playing);
      speed = Number(playback.speed) || 0;
      due = playback.next_due_ms ?? null;
      // Extrapolation may have run ahead of a late frame: hold what is drawn rather than
      // jump back, unless the lab paused (then the server's time is the truth).
      floor = playing ? Math.min(Math.max(last, now), due ?? now) : now;
      base = now;
      wall = performance.now();
      last = Math.max(floor, now);
    },
    /** The virtual time to draw at wall time `at` (default: now). */
    now(at = performance.now()) {
      if (!playing || !extrapolate || due === null) return (last = Math.max(base, floor));
      const run = base + ((at - wall) * speed) / 1000;
      last = Math.max(floor, Math.min(run, due));
      return last;
    },
    /** Whether the clock is running on its own between frames. */
    get running() {
      return playing && extrapolate && due !== null && speed > 0;
    },
    get serverNow() {
      return base;
    },
    get playing() {
      return playing;
    },
    get nextDue() {
      return due;
    },
  };
}
