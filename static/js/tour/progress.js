/**
 * What a tour remembers and decides from data alone: how far a visitor got in a lab's
 * tour (localStorage, per lab), and whether a frame shows a step done.
 */

/** @import { Frame, TourStep } from "../types.js" */

const STORE_PREFIX = "playground:tour:";

/**
 * `{state, step}`: state "new" (never seen), "running", "skipped" or "done".
 * @param {string} slug
 * @returns {{state: string, step: string | null}}
 */
export function loadProgress(slug) {
  try {
    const stored = JSON.parse(localStorage.getItem(STORE_PREFIX + slug) ?? "null");
    return stored?.state ? stored : { state: "new", step: null };
  } catch {
    return { state: "new", step: null };
  }
}

/**
 * Remember where the visitor is in `slug`'s tour.
 * @param {string} slug
 * @param {string} state
 * @param {string | null | undefined} step
 */
export function saveProgress(slug, state, step) {
  try {
    localStorage.setItem(STORE_PREFIX + slug, JSON.stringify({ state, step: step ?? null }));
  } catch {
    // storage refused (private browsing): the tour still runs, it just forgets
  }
}

/**
 * Whether `frame` shows `step` done: a frame of its `done_when.action`, or one carrying
 * an event of type `done_when.event` with every field of `done_when.with`. Whoever acted
 * (the visitor's own click, "Show me", a class's driver) makes no difference.
 * @param {TourStep} step
 * @param {Pick<Frame, "action" | "events">} frame
 * @returns {boolean}
 */
export function isDone(step, frame) {
  const when = step.done_when ?? {};
  if (when.action) return frame.action?.name === when.action;
  const wanted = Object.entries(when.with ?? {});
  return (frame.events ?? []).some(
    (event) => event.type === when.event && wanted.every(([key, value]) => event[key] === value),
  );
}
