/**
 * Puts what just happened into words: a polite live region for screen readers, a visible
 * caption with the latest sentence, and a short log of the last few events.
 */

import { fmt, t } from "./i18n.js";

const LOG_LENGTH = 8;

/**
 * A narrator writing to `live` (aria-live), `caption` and `log` (an <ol>), any may be null.
 * @param {{live: HTMLElement | null, caption: HTMLElement | null, log: HTMLElement | null,
 *   limit?: number}} places
 * @returns {{say: (sentences: (string | null | undefined)[], options?: {seq?: number}) => void,
 *   note: (text: string) => void}}
 */
export function createNarrator({ live, caption, log, limit = LOG_LENGTH }) {
  /** @type {number | null} */
  let pending = null;

  /** @param {string} text */
  function announce(text) {
    if (!live) return;
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

  return {
    /** Narrate a list of sentences as one event (seq: the frame's sequence number). */
    say(sentences, { seq } = {}) {
      const text = sentences.filter(Boolean).join(" ");
      if (!text) return;
      announce(text);
      if (caption) caption.textContent = text;
      append(text, seq);
    },
    /** Show a status line without adding it to the log (e.g. "Connected"). */
    note(text) {
      announce(text);
    },
  };
}
