/**
 * The moments of a timeline (docs/protocol.md, "The timeline and links"): where each
 * action a person did sits among the positions of the branch, the clock's ticks after
 * it belonging to it. `timeline.moments` lists some of them around the cursor (position
 * `m` is the cursor just before that action), `moments_skipped` earlier ones are left
 * out, `moments_total` counts them all. The stops of Step back and forward are 0, every
 * listed `m`, and the length. Also the words for a position ("Moment 2 of 5") and the
 * marks drawn under the scrubber.
 */

import { fmt, num, t, tn } from "./i18n.js";

/** @import { LabEvent, Timeline } from "./types.js" */

/**
 * A timeline's moments, defaulted (momentsOf), with its cursor and length.
 * @typedef {object} Moments
 * @property {number} cursor
 * @property {number} length
 * @property {number[]} moments where each listed moment's action sits, ascending
 * @property {number} skipped earlier moments left out of the list
 * @property {number} total every moment of the branch
 */

/**
 * The timeline's moment fields, defaulted (an older server sends none: every action).
 * @param {Timeline} timeline
 * @returns {Pick<Moments, "moments" | "skipped" | "total">}
 */
export function momentsOf(timeline) {
  const length = timeline.length ?? 0;
  if (!Array.isArray(timeline.moments)) {
    return { moments: [...Array(length).keys()], skipped: 0, total: length };
  }
  return {
    moments: timeline.moments,
    skipped: timeline.moments_skipped ?? 0,
    total: timeline.moments_total ?? timeline.moments.length,
  };
}

/**
 * Where Step back goes from `position`: the start of its moment, or of the one before.
 * @param {Moments} timeline
 * @param {number} position
 */
export function stopBefore(timeline, position) {
  const { moments } = timeline;
  for (let i = moments.length - 1; i >= 0; i -= 1) {
    if (moments[i] < position) return moments[i];
  }
  // earlier moments were left out (our seek is still on its way): one position back
  return timeline.skipped > 0 ? position - 1 : 0;
}

/**
 * Where Step forward goes from `position`: the end of its moment (the next one's start).
 * @param {Moments} timeline
 * @param {number} position
 */
export function stopAfter(timeline, position) {
  const { moments } = timeline;
  for (const at of moments) if (at > position) return at;
  return timeline.skipped + moments.length < timeline.total ? position + 1 : timeline.length;
}

/**
 * How many moments have begun by `position` (the number of the moment it is in).
 * @param {Moments} timeline
 * @param {number} position
 */
export function momentsBegun(timeline, position) {
  let begun = timeline.skipped;
  for (const at of timeline.moments) {
    if (at >= position) break;
    begun += 1;
  }
  return begun;
}

/**
 * "Moment n of N" at `position`, "Before moment 1 of N", or "No actions yet".
 * @param {Moments} timeline
 * @param {number} position
 */
export function momentText(timeline, position) {
  const { total } = timeline;
  if (total === 0) return t("No actions yet");
  const begun = momentsBegun(timeline, position);
  if (begun === 0) {
    return fmt(tn("Before moment 1 of %(total)s", "Before moment 1 of %(total)s", total), {
      total: num(total),
    });
  }
  return fmt(tn("Moment %(n)s of %(total)s", "Moment %(n)s of %(total)s", total), {
    n: num(begun),
    total: num(total),
  });
}

/**
 * The narrator's sentence for a `seeked` event, read with the timeline after it.
 * @param {LabEvent} event
 * @param {Moments} timeline
 */
export function describeSeek(event, timeline) {
  if (event.to === 0) return t("Back at the start, before any action.");
  const begun = momentsBegun(timeline, event.to);
  if (begun === 0) return t("Before the first moment.");
  const { total } = timeline;
  const values = { n: num(begun), total: num(total) };
  if (event.to >= timeline.length) {
    return fmt(
      tn("At the end: moment %(n)s of %(total)s.", "At the end: moment %(n)s of %(total)s.", total),
      values,
    );
  }
  return fmt(
    tn("Showing moment %(n)s of %(total)s.", "Showing moment %(n)s of %(total)s.", total),
    values,
  );
}

const THUMB_PX = 22; // the scrubber's thumb in app.css: its centre travels inset by half
const MARK_PX = 2;
const MARK_BUCKETS = 400; // marks within 1/400 of the track of each other are one

/**
 * A background that draws the listed moments as ticks under the scrubber's track, set
 * through the CSSOM (the page's CSP allows no inline style): {image, size, position}.
 * @param {Moments} timeline
 * @returns {{image: string, size: string, position: string} | null}
 */
export function marksBackground(timeline) {
  const { moments, length } = timeline;
  if (!length || !moments.length) return null;
  const places = [...new Set(moments.map((at) => Math.round((at / length) * MARK_BUCKETS)))];
  // The box spans the thumb's travel and one mark more; a mark at fraction f starts
  // f of the travel in: f·(box − mark), as a percentage of the box less f·mark px.
  const stops = places.map((bucket) => {
    const fraction = bucket / MARK_BUCKETS;
    const start = `${round(fraction * 100)}% - ${round(fraction * MARK_PX)}px`;
    return (
      `transparent 0 calc(${start}), ` +
      `var(--ink-soft, #555) 0 calc(${start} + ${MARK_PX}px)`
    );
  });
  return {
    image: `linear-gradient(to right, ${stops.join(", ")}, transparent 0)`,
    size: `calc(100% - ${THUMB_PX - MARK_PX}px) 6px`,
    position: `${(THUMB_PX - MARK_PX) / 2}px 100%`,
  };
}

/** @param {number} value */
function round(value) {
  return Math.round(value * 1000) / 1000;
}
