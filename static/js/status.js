/** The connection indicator: connecting, open or reconnecting, and how many are watching. */

import { fmt, t, tn } from "./i18n.js";

const WORDS = {
  connecting: () => t("Connecting…"),
  open: () => t("Connected"),
  reconnecting: () => t("Connection lost, reconnecting…"),
  refused: () => t("Disconnected"),
};

/** Drive the indicator element (it holds .status-text and .status-presence). */
export function createStatus(element) {
  const text = element?.querySelector(".status-text");
  const presence = element?.querySelector(".status-presence");
  return {
    /** Show one of "connecting", "open", "reconnecting". */
    set(state) {
      if (!element) return;
      element.dataset.state = state;
      text.textContent = (WORDS[state] ?? WORDS.connecting)();
    },
    /** Show how many people watch this room. */
    watching(count) {
      if (!presence) return;
      presence.textContent =
        count > 1 ? fmt(tn("%(n)s watching", "%(n)s watching", count), { n: count }) : "";
    },
  };
}
