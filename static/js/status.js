/**
 * The connection indicator: connecting, open, reconnecting, busy (the server asked us to
 * come back later) or refused for good, and how many are watching. Why it is busy is the
 * server's own sentence, shown under the words.
 */

import { fmt, sentence, t, tn } from "./i18n.js";

/** @import { SocketState } from "./socket.js" */
/** @import { ServerError } from "./types.js" */

/** @type {Record<string, () => string>} */
const WORDS = {
  connecting: () => t("Connecting…"),
  open: () => t("Connected"),
  reconnecting: () => t("Connection lost, reconnecting…"),
  busy: () => t("The server is busy; trying again…"),
  waiting: () => t("Waiting for the host to let you in"),
  refused: () => t("Disconnected"),
};

// Refused for good, said by why (the error the server sent before closing).
/** @type {Record<string, () => string>} */
const REFUSED_WORDS = {
  removed: () => t("Removed from the class"),
  turned_away: () => t("Not let into the class"),
  class_ended: () => t("The class has ended"),
};

/**
 * Drive the indicator element (it holds .status-text and .status-presence).
 * @param {HTMLElement | null} element
 * @returns {{set: (state: SocketState, reason?: ServerError | null) => void,
 *   watching: (count: number) => void}}
 */
export function createStatus(element) {
  const text = element?.querySelector(".status-text");
  const presence = element?.querySelector(".status-presence");
  let detail = element?.querySelector(".status-detail");
  if (element && !detail) {
    detail = document.createElement("span");
    detail.className = "status-detail";
    element.append(detail);
  }
  return {
    /**
     * Show one of "connecting", "open", "reconnecting", "busy", "refused"; `reason` is
     * the server's error behind it (busy: its sentence is shown; refused: it names why).
     */
    set(state, reason = null) {
      if (!element || !text || !detail) return;
      element.dataset.state = state;
      const words = state === "refused" ? REFUSED_WORDS[reason?.code ?? ""] : null;
      text.textContent = (words ?? WORDS[state] ?? WORDS.connecting)();
      const why = state === "busy" && reason?.message ? sentence(reason.message) : "";
      detail.textContent = why;
      if (why) element.dataset.detail = "true";
      else delete element.dataset.detail;
      // refused for good: nobody is counted for this page any more
      if (state === "refused" && presence) presence.textContent = "";
    },
    /** Show how many people watch this room. */
    watching(count) {
      if (!presence) return;
      presence.textContent =
        count > 1 ? fmt(tn("%(n)s watching", "%(n)s watching", count), { n: count }) : "";
    },
  };
}
