/**
 * Puts what just happened into words: a polite live region for screen readers, a visible
 * caption with the latest sentence, and a short log of the last few events.
 *
 * The live region keeps a pace a screen reader can follow: a playing lab sends ten frames
 * a second, and a line for each would queue minutes of speech behind the animation. The
 * first event after a quiet spell is said at once; what comes within the next
 * `PACE_MS` is gathered and said together when it ends: the latest `MOST_LINES`, after
 * a count of those left out.
 */

import { fmt, joinSentences, num, t, tn } from "./i18n.js";
import { momentText, momentsOf } from "./moments.js";

const LOG_LENGTH = 8;
const PACE_MS = 2000;
const MOST_LINES = 3;

/**
 * A narrator writing to `live` (aria-live), `caption` and `log` (an <ol>), any may be null.
 * @param {{live: HTMLElement | null, caption: HTMLElement | null, log: HTMLElement | null,
 *   limit?: number}} places
 * @returns {{say: (sentences: (string | null | undefined)[], options?: {seq?: number}) => void,
 *   note: (text: string) => void,
 *   opening: (timeline: import("./types.js").Timeline | undefined) => void}}
 */
export function createNarrator({ live, caption, log, limit = LOG_LENGTH }) {
  /** @type {number | null} */
  let pending = null;
  /** @type {string[]} what happened since the live region last spoke */
  let queued = [];
  /** @type {ReturnType<typeof setTimeout> | null} */
  let timer = null;
  let quietAt = 0;

  /** @param {string} text */
  function announce(text) {
    if (!live) return;
    queued.push(text);
    if (timer === null) timer = setTimeout(speak, Math.max(0, quietAt - performance.now()));
  }

  function speak() {
    timer = null;
    if (!live || !queued.length) return;
    const kept = queued.slice(-MOST_LINES);
    const skipped = queued.length - kept.length;
    queued = [];
    const text = joinSentences([
      skipped
        ? fmt(tn("%(n)s earlier event left out.", "%(n)s earlier events left out.", skipped), {
            n: num(skipped),
          })
        : null,
      ...kept,
    ]);
    quietAt = performance.now() + PACE_MS;
    // Clear first so that saying the same words twice is still announced.
    live.textContent = "";
    if (pending !== null) cancelAnimationFrame(pending);
    pending = requestAnimationFrame(() => {
      live.textContent = text;
    });
  }

  /**
   * @param {string} text
   * @param {number} [seq]
   */
  function append(text, seq) {
    if (!log) return;
    const item = document.createElement("li");
    if (seq !== undefined) {
      const marker = document.createElement("span");
      marker.className = "log-seq";
      marker.textContent = fmt(t("#%(seq)s"), { seq });
      item.append(marker, " ");
    }
    item.append(text);
    log.prepend(item);
    while (log.children.length > limit) log.lastElementChild?.remove();
  }

  let said = false;

  return {
    /** Narrate a list of sentences as one event (seq: the frame's sequence number). */
    say(sentences, { seq } = {}) {
      const text = joinSentences(sentences);
      if (!text) return;
      said = true;
      announce(text);
      if (caption) caption.textContent = text;
      append(text, seq);
    },
    /**
     * The caption of a page opened on a room with a history (a link's moment, a class
     * joined after the host acted), until something is narrated here: where the room
     * stands, not "Nothing has happened yet".
     * @param {import("./types.js").Timeline | undefined} timeline
     */
    opening(timeline) {
      if (said || !caption || !timeline) return;
      const moments = { ...momentsOf(timeline), cursor: timeline.cursor, length: timeline.length };
      if (!moments.total) return;
      caption.textContent = fmt(
        t("%(moment)s: the room as it stands. Step back to see how it came to this."),
        { moment: momentText(moments, timeline.cursor) },
      );
    },
    /** Show a status line without adding it to the log (e.g. "Connected"). */
    note(text) {
      announce(text);
    },
  };
}
