/**
 * Work spread over animation frames. Applying a change to three cards at once (planning,
 * d3 joins, the first canvas paint, then style, layout and paint of all it touched) made
 * one frame 40–130 ms long on a machine without a GPU; done one piece a frame, each frame
 * stays short and the motion that has already started keeps running smoothly.
 */

/** A queue of jobs run in order, one per animation frame; returns {later, start, flush, cancel}. */
export function createFrameQueue() {
  /** @type {(() => void)[]} */
  const jobs = [];
  let frame = 0;

  function step() {
    frame = 0;
    const job = jobs.shift();
    if (jobs.length) frame = requestAnimationFrame(step);
    job?.();
  }

  return {
    /**
     * Add `job` to the queue (run it with `start`).
     * @param {() => void} job
     */
    later(job) {
      jobs.push(job);
    },
    /** Run the first job now and each of the others in a frame of its own. */
    start() {
      if (!frame && jobs.length) step();
    },
    /** Run every job still waiting, now and in order (a newer frame has arrived). */
    flush() {
      cancelAnimationFrame(frame);
      frame = 0;
      while (jobs.length) /** @type {() => void} */ (jobs.shift())();
    },
    /** Drop every job still waiting. */
    cancel() {
      cancelAnimationFrame(frame);
      frame = 0;
      jobs.length = 0;
    },
  };
}
